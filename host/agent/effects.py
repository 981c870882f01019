"""What an action did to its page, looked at before the same action is sent again.

A step whose check cannot read an action's outcome (the basket count is in a toast the check
did not name) used to retry the action: each retry and each replan added a scarf to the basket,
moved the slider one more notch, flipped the sort back. The agent now reads what the first send
did, from the browser's own answer (the tab went elsewhere, the page sent a request or a form:
content/activity.js) and from the page before and after it (an element's value or state moved,
text appeared), so that the run can say what changed instead of sending it again
(host.agent.guards: repeated_after_effect).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from waymark.host.agent.element_changes import element_changes
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot

#: Actions whose repeat repeats or undoes what the first one did (a fill with the same text, a
#: scroll, a hover, a read leave the page as the first one left it, or only move the view).
REPEATABLE_EFFECTS = frozenset({"click", "double_click", "right_click", "press", "type", "select", "check", "uncheck", "drag",
                                "click_at", "double_click_at", "drag_at"})
#: Most lines of new text named.
_NEW_TEXT = 2
#: Where the keyboard is, which every press and click moves: not something the page holds.
_FOCUS = re.compile(r"\s+focused=true\b")
#: The snapshot's header line: the window's size and where it is scrolled, the view, not the page.
_VIEW = re.compile(r"^viewport \d+x\d+ ")


@dataclass(frozen=True)
class Effect:
    """What one dispatched action changed, and the page it was sent on."""

    #: What changed, as the model and the planner are told (`the page sent a request; [4] ...`).
    said: str
    #: The page before the action (`page_state`): the same page again is evidence the action did not take,
    before: str
    #: unless its effect went beyond the page (a request sent, the same address loaded again): a
    #: form posted and redirected back shows the same page, and the order is on the server all the same.
    outside: bool = False


def page_state(snapshot: Snapshot) -> str:
    """A page's identity as a snapshot shows it: its URL, title and listing (not where it is scrolled, nor the focus)."""
    return hashlib.sha256(json.dumps([snapshot.url, snapshot.title, _lines(snapshot.text)]).encode()).hexdigest()[:16]


def effect_keys(action: Any, snapshot: Snapshot) -> tuple[str, str]:
    """Two identities of an action, either of which makes it the same action again: its fields
    with its element by ref on the same page (a ref stays with its element while the document
    does; an opened tree folder's name takes in the files it shows), and its fields with its
    element by role and name on any page of the step (a sort link followed leads to a page
    whose same header sorts the other way)."""
    fields = action.model_dump(mode="json") if isinstance(action, BaseModel) else dict(action)
    ref = fields.pop("ref", None)
    element = snapshot.find(ref) if isinstance(ref, int) else None
    by_ref = json.dumps([fields, ref, element.role if element is not None else None, snapshot.url], sort_keys=True, default=str)
    by_name = json.dumps([fields, [element.role, element.name] if element is not None else ref], sort_keys=True, default=str)
    return by_ref, by_name


def effect_of(action: Any, result: ActionResult | None, before: Snapshot, after: Snapshot) -> Effect | None:
    """What the action changed, read off the browser's answer and the page before and after it
    (both as prompts see them); None when it changed nothing or repeating it repeats nothing."""
    if action.type not in REPEATABLE_EFFECTS:
        return None
    said: list[str] = []
    # A form posted and answered by the same page again (post, redirect, get) is a new document at the same address.
    outside = result is not None and (result.sent or (result.navigated and after.url == before.url))
    if result is not None and result.new_tab is not None:
        said.append(f"it opened a new tab at {result.new_tab.url}")
    if after.url != before.url:
        said.append(f"the tab went from {before.url} to {after.url}")
    elif result is not None and result.navigated:
        said.append("the page loaded again")
    if result is not None and result.sent:
        said.append("the page sent a request or a form to its site (its effect may be on the server, where no snapshot shows it)")
    said += element_changes(before, after)
    if after.url == before.url:
        said += _text_changes(before.text, after.text)
    if not said:
        return None
    return Effect(said="; ".join(said), before=page_state(before), outside=outside)


def _text_changes(before: str, after: str) -> list[str]:
    """How the page's text changed: lines that appeared (a toast, a count that rose), lines that
    went away, or the same lines in another order (a table sorted)."""
    old_lines, new_lines = _lines(before), _lines(after)
    appeared = [line for line in new_lines if line not in set(old_lines)]
    gone = [line for line in old_lines if line not in set(new_lines)]
    if appeared:
        return [_quoted("text appeared", appeared)]
    if gone:
        return [_quoted("text went away", gone)]
    return ["the page's lines changed order"] if new_lines != old_lines else []


def _lines(text: str) -> list[str]:
    return [_FOCUS.sub("", line).strip() for line in text.splitlines() if line.strip() and not _VIEW.match(line.strip())]


def _quoted(what: str, lines: list[str]) -> str:
    more = f" (and {len(lines) - _NEW_TEXT} more lines)" if len(lines) > _NEW_TEXT else ""
    return f"{what}: " + "; ".join(f'"{line[:80]}"' for line in lines[:_NEW_TEXT]) + more
