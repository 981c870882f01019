"""Tools for the actions of the grammar (host/core/actions.py): one tool per action, its arguments
the action model's fields. Each answers with the ActionResult in one line and the fresh
snapshot, or only what changed in it when that is shorter, so a client needs no separate
snapshot call (a stale ref comes with the whole fresh one)."""

from __future__ import annotations

from pydantic import BaseModel

from waymark.host.agent.prompts import wrap_untrusted
from waymark.host.agent.verifier import PredicateError, parse_predicate
from waymark.host.core import actions as grammar
from waymark.host.mcp.errors import ToolError
from waymark.host.mcp.registry import Content, Failed, Tool, ToolCall, text
from waymark.host.mcp.results import result_line

#: Tool name -> the grammar's action model; the description is the model's docstring.
ACTION_TOOLS: dict[str, type[BaseModel]] = {
    "browser_click": grammar.Click,
    "browser_double_click": grammar.DoubleClick,
    "browser_hover": grammar.Hover,
    "browser_type": grammar.Type,
    "browser_fill": grammar.Fill,
    "browser_press_key": grammar.Press,
    "browser_select_option": grammar.Select,
    "browser_check": grammar.Check,
    "browser_uncheck": grammar.Uncheck,
    "browser_file_upload": grammar.UploadFile,
    "browser_select_text": grammar.SelectText,
    "browser_scroll": grammar.Scroll,
    "browser_drag": grammar.Drag,
    "browser_right_click": grammar.RightClick,
    "browser_navigate": grammar.Navigate,
    "browser_navigate_back": grammar.Back,
    "browser_navigate_forward": grammar.Forward,
    "browser_reload": grammar.Reload,
    "browser_tab_select": grammar.SwitchTab,
    "browser_tab_close": grammar.CloseTab,
    "browser_handle_dialog": grammar.AnswerDialog,
}


#: The grammar's actions no tool offers, and why: every other action has a tool above (tests/unit/test_mcp_tools.py).
WITHOUT_TOOL: dict[str, str] = {
    "ask_user": "the client is the agent: it asks its own user",
    "done": "the client is the agent: it ends its task itself",
    "read_download": ("a tool would read files off the user's disk for any client; a downloaded file is read only "
                      "inside an agent run (browser_run_task), by that run, of the run's own downloads"),
    **{kind: "a client acts by ref; the screenshot's coordinates belong to an agent run's vision mode"
       for kind in sorted(grammar.COORDINATE_ACTIONS)},
}


def _doc(model: type[BaseModel]) -> str:
    return " ".join((model.__doc__ or "").split())


async def run_action(params: grammar.ActionModel, call: ToolCall) -> list[Content] | Failed:
    """Dispatch one action; the result line and the settled snapshot (or what changed in it), or
    the whole fresh snapshot after a stale ref (the client's picture of the page was wrong) or a
    navigation (a new document: its refs are new). An action that failed is an error result."""
    result, line = await call.session.act(params, call.confirm)
    snapshot = result.snapshot or await call.session.snapshot()
    stale = result.error is not None and result.error.code == "stale_ref"
    content = [text(result_line(result, line) + "\n\n" + call.session.show(snapshot, changes_only=not (stale or result.navigated)))]
    return content if result.ok else Failed(content)


async def run_extract(params: grammar.Extract, call: ToolCall) -> list[Content] | Failed:
    """What the element (or the page's main content) says, fenced as page data."""
    result, line = await call.session.act(params, call.confirm)
    if not result.ok:
        return Failed([text(result_line(result, line))])
    source = result.url_after or (call.session.last.url if call.session.last else "")
    return [text(wrap_untrusted(result.text or "", source))]


async def run_tab_new(params: grammar.NewTab, call: ToolCall) -> list[Content] | Failed:
    """A new tab, loaded before it is shown: on `url` when given, else blank."""
    if params.url is None:
        return await run_action(params, call)
    snapshot = await call.session.open_tab(params.url, call.confirm)
    return [text(f"opened tab {snapshot.tab_id}, now current\n\n{call.session.show(snapshot)}")]


async def run_wait(params: grammar.Wait, call: ToolCall) -> list[Content] | Failed:
    """Wait a time, or until a verifier predicate holds (checked over fresh snapshots); a
    predicate that did not hold in time is an error result."""
    if params.until is None:
        return await run_action(params, call)
    try:
        predicate = parse_predicate(params.until)
    except PredicateError as exc:
        raise ToolError("bad_predicate", str(exc)) from None
    verdict = await call.session.verify([predicate], params.timeout_ms / 1000)
    (check,) = verdict.results
    said = "holds" if verdict.ok else f"did not hold within {params.timeout_ms} ms"
    body = f"{check.predicate} {said} ({check.detail}; {verdict.tries} snapshot(s))"
    content = [text(body + "\n\n" + call.session.show(verdict.snapshot))] if verdict.snapshot else [text(body)]
    return content if verdict.ok else Failed(content)


def action_tools() -> list[Tool]:
    """The action tools, each announced with its grammar model's schema (minus the fixed `type`)."""
    tools = [Tool(name, _doc(model), model, run_action, fixed=("type",)) for name, model in ACTION_TOOLS.items()]
    tools.append(Tool("browser_tab_new", _doc(grammar.NewTab), grammar.NewTab, run_tab_new, fixed=("type",)))
    tools.append(Tool("browser_extract", _doc(grammar.Extract), grammar.Extract, run_extract, fixed=("type",)))
    tools.append(Tool("browser_wait_for", _doc(grammar.Wait) + " `until` is one predicate, as for browser_verify.",
                      grammar.Wait, run_wait, fixed=("type",)))
    return tools
