"""`browser_run_task`: a whole task delegated to Waymark's own planner, executor and verifier,
streamed as progress notifications and stopped when the client cancels the call."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import ConfigDict, create_model

from waymark.host.agent.timeline import event_text, summary_lines
from waymark.host.mcp.errors import ToolError
from waymark.host.mcp.registry import Content, Failed, Structured, Tool, ToolCall, text
from waymark.host.mcp.tools_page import fields_of
from waymark.host.rpc.agent import RunParams

RunTaskParams = create_model(
    "RunTaskParams", __config__=ConfigDict(extra="forbid"),
    **fields_of(RunParams, task="what to do, in words", start_url="open this URL in a new tab first (default: the current tab)",
                output_schema="a JSON Schema (Draft 2020-12) the answer must match: the result's structured content then holds "
                              "`data` of that shape and, for each value, where on the pages it was found (`grounding`)"),
)


class _Events:
    """The run's notifications, queued by the control connection and handled in the tool's task."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()

    def __call__(self, name: str, data: dict[str, Any]) -> None:
        self.queue.put_nowait((name, data))


async def run_task(params: Any, call: ToolCall) -> list[Content] | Structured | Failed:
    """Run the task to its summary; each step is a progress notification."""
    session = call.session
    run: dict[str, Any] = {"task": params.task, **call.models, "policy": session.policy.model_dump(), "secret_client": session.client}
    if params.output_schema is not None:
        run["output_schema"] = params.output_schema
    if params.start_url:
        run["start_url"] = params.start_url
    else:
        run["tab_id"] = session.tab_id
    return summary_content(await streamed("agent.run", run, call), asked_for_data=params.output_schema is not None)


async def streamed(method: str, params: dict[str, Any], call: ToolCall) -> dict[str, Any]:
    """Call a host method that runs a task (`agent.run`, `workflow.run`) to its summary: each
    step a progress notification, its questions answered by the user."""
    events = _Events()
    running = asyncio.ensure_future(call.session.call(method, params, on_notify=events))
    steps = 0
    try:
        while True:
            getter = asyncio.ensure_future(events.queue.get())
            await asyncio.wait({running, getter}, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                getter.cancel()
                break
            name, data = getter.result()
            if name in ("confirm", "ask_user"):
                await _answer(name, data, call)
                continue
            steps += name == "step"
            line = f"run {data.get('run_id', '')} started" if name == "run" else event_text({"event": name, **data})
            if line:
                await call.progress(steps, None, line.strip())
        summary: dict[str, Any] = running.result()
    finally:
        # A cancelled call cancels the host's run too (the control connection sends `cancel`).
        running.cancel()
    return summary


def summary_content(summary: dict[str, Any], asked_for_data: bool = False) -> list[Content] | Structured | Failed:
    """A run's summary as the tool's answer: the verdict line, the result, the trace to read, and
    the answer's data as structured content when the call asked for it or the run gave some. A run
    that did not succeed (failed, unproven, stopped) is an error result: it did not do the task."""
    lines = [summary_lines(summary)]
    if summary.get("result"):
        lines.append(f"Result: {summary['result']}")
    lines.append(f"Trace: waymark trace show {summary.get('run_id', '')}")
    content: list[Content] = [text("\n".join(lines))]
    failed = summary.get("success") is not True
    if not asked_for_data and summary.get("data") is None:
        return Failed(content) if failed else content
    # A program reads the answer here, not in prose: the data, each value's grounding, and the verdict.
    return Structured(content, {k: summary.get(k) for k in ("data", "grounding", "success", "outcome", "reason", "run_id")},
                      is_error=failed)


async def _answer(name: str, data: dict[str, Any], call: ToolCall) -> None:
    """A confirmation goes to the user (the side panel when attached, else the client's user);
    one that cannot be asked is declined. A question goes to the client's user (MCP elicitation),
    else to the user at the browser (the side panel, when attached); with neither, it stays
    unanswered and the agent goes on without."""
    answer: Any = None
    if name == "ask_user":
        try:
            answer = await call.ask(str(data.get("question", "")))
        except ToolError:
            answer = None
    elif name == "confirm":
        try:
            answer = await call.confirm(str(data.get("action_line", "")), str(data.get("reason", "")))
        except ToolError:
            answer = False
    await call.session.call("agent.answer", {"run_id": data["run_id"], "request_id": data["request_id"], "answer": answer})


def task_tools() -> list[Tool]:
    """browser_run_task."""
    return [Tool("browser_run_task", "Delegate a whole task to Waymark's agent: it plans, acts and proves each step "
                 "with checks; progress is streamed, cancelling the call stops it.", RunTaskParams, run_task)]
