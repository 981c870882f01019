"""Tools that read the page without acting: the snapshot, the numbered screenshot, the tab
list, and verification of the verifier's predicates."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

from waymark.host.agent.verifier import PredicateError, parse_predicates
from waymark.host.core.browser_api import SnapshotOptions
from waymark.host.core.predicates import PREDICATE_NAMES
from waymark.host.mcp.errors import ToolError
from waymark.host.mcp.registry import Content, Failed, Tool, ToolCall, text


def fields_of(model: type[BaseModel], **descriptions: str) -> dict[str, Any]:
    """Fields of an existing model (type, default, bounds), each with a description for the client."""
    return {name: (model.model_fields[name].annotation, FieldInfo.merge_field_infos(model.model_fields[name], description=doc))
            for name, doc in descriptions.items()}


SnapshotParams = create_model(
    "SnapshotParams", __config__=ConfigDict(extra="forbid"),
    **fields_of(SnapshotOptions, max_chars="characters of snapshot text at most; the rest is paged",
                offset="where to continue: the next_offset a previous snapshot gave"),
)


class NoParams(BaseModel):
    """No arguments."""

    model_config = ConfigDict(extra="forbid")


class VerifyParams(BaseModel):
    """Predicates to check over fresh snapshots."""

    model_config = ConfigDict(extra="forbid")

    predicates: list[dict[str, Any]] = Field(
        min_length=1,
        description="objects of one key each: " + ", ".join(sorted(PREDICATE_NAMES)) + '; e.g. {"url_contains": "/cart"}, '
        '{"exists": {"role": "button", "name": "Pay"}}, {"value_equals": {"target": {"name": "Email"}, "value": "a@b.c"}}',
    )
    timeout_s: float | None = Field(default=None, ge=0, le=60, description="keep re-checking until all hold, at most this long "
                                    "(default: 3 s for URL and title checks, else 5 tries with backoff)")


def _open_a_page_first(exc: ToolError) -> ToolError:
    """A page the browser keeps from extensions (a blank tab, chrome://), with what to do instead."""
    if exc.code != "restricted_page":
        return exc
    return ToolError(exc.code, f"{exc.message}; open a web page first with browser_navigate (or browser_tab_new with a url)")


async def run_snapshot(params: Any, call: ToolCall) -> list[Content]:
    """The current tab's compact snapshot."""
    try:
        snapshot = await call.session.snapshot(max_chars=params.max_chars, offset=params.offset)
    except ToolError as exc:
        raise _open_a_page_first(exc) from None
    shown = call.session.show(snapshot, changes_only=False)
    if params.offset:
        call.session.shown = None  # a later page alone is no picture of the whole page to diff against
    return [text(shown)]


async def run_screenshot(params: NoParams, call: ToolCall) -> list[Content]:
    """The visible part of the tab with each ref's number drawn at its element, and the snapshot."""
    try:
        snap = await call.session.snapshot(screenshot=True)
    except ToolError as exc:
        raise _open_a_page_first(exc) from None
    if not snap.screenshot_b64:
        raise ToolError("no_screenshot", "the browser could not capture this tab (a restricted page, or the tab is not visible)")
    return [types.ImageContent(type="image", data=snap.screenshot_b64, mime_type="image/jpeg"), text(call.session.show(snap, changes_only=False))]


async def run_tab_list(params: NoParams, call: ToolCall) -> list[Content]:
    """The tabs the client may act in."""
    tabs = await call.session.tabs()
    if not tabs:
        return [text("no tabs: open one with browser_tab_new")]
    lines = [f"{'*' if t['current'] else ' '} tab {t['tab_id']}: {t.get('title', '')!r} {t.get('url', '')}" for t in tabs]
    return [text("\n".join(lines) + "\n(* current)")]


async def run_verify(params: VerifyParams, call: ToolCall) -> list[Content] | Failed:
    """Check predicates over fresh snapshots (`.eventually`): which hold, which fail and why; an
    error result when any fails, as a failed assertion is."""
    try:
        predicates = parse_predicates(params.predicates)
    except PredicateError as exc:
        raise ToolError("bad_predicate", str(exc)) from None
    verdict = await call.session.verify(predicates, params.timeout_s)
    head = "PASS: every predicate holds" if verdict.ok else f"FAIL: {len(verdict.failed())} of {len(verdict.results)} predicate(s) fail"
    lines = [f"{head} ({verdict.tries} snapshot(s))"]
    for result in verdict.results:
        lines.append(f"{'✓' if result.ok else '✗'} {json.dumps(result.predicate, ensure_ascii=False)}: {result.detail}")
    content = [text("\n".join(lines))]
    return content if verdict.ok else Failed(content)


def page_tools() -> list[Tool]:
    """Snapshot, screenshot, tab list and verify."""
    return [
        Tool("browser_snapshot", "The current tab as compact text: one line per element, `[ref] role \"name\" state` "
             "(links without the role word); act on elements by ref.", SnapshotParams, run_snapshot),
        Tool("browser_screenshot", "A screenshot of the current tab with each element's ref number drawn on it.", NoParams, run_screenshot),
        Tool("browser_tab_list", "The tabs this client may act in; the current one is marked.", NoParams, run_tab_list),
        Tool("browser_verify", "Check predicates over the live page, re-checking until they hold or time runs out; "
             "says which fail and why.", VerifyParams, run_verify),
    ]
