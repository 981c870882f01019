"""`trace.page`: a run's trace as its HTML page (host.agent.trace_page), written beside the trace,
so the side panel's Trace link opens a page a person reads, not the raw JSON lines."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.agent.trace import TraceNotFound, find_run, read_trace
from waymark.host.agent.trace_page import render_html
from waymark.host.core.validation import problems
from waymark.host.methods import CallContext, MethodError, method

PAGE_FILE = "trace.html"


class TracePageParams(BaseModel):
    """Parameters of `trace.page`."""

    model_config = ConfigDict(extra="forbid")

    #: The run's id (a run folder's name under the runs folder); never a path from the browser.
    run_id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@method("trace.page")
async def trace_page(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Write the run's trace.html (again: a run still going has more to show) and return {path}."""
    try:
        run_id = TracePageParams.model_validate(params).run_id
    except ValidationError as exc:
        raise MethodError("bad_params", f"trace.page: {problems(exc)}") from None
    try:
        folder = find_run(run_id)
    except TraceNotFound as exc:
        raise MethodError("trace_not_found", str(exc)) from None
    events, summary = read_trace(folder)
    out = folder / PAGE_FILE
    out.write_text(render_html(folder, events, summary), encoding="utf-8")
    out.chmod(0o600)  # screenshots of the user's pages: as private as the trace itself
    return {"path": str(out)}
