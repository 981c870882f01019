"""The sites judge: a task's success predicates on the final browser state, read apart from the
extension the agent worked through.

The snapshot lists elements, not every paragraph: a confirmation in plain text ("Welcome aboard,
Ada!") was never found in it. `text_present` reads the text the browser laid out in every frame
of the tab (shadow roots, closed ones included, and cross-origin frames), through the Chrome
DevTools Protocol that Playwright drives the eval's Chromium with. Predicates about elements
(exists, value_equals, ...) still read the extension's snapshot, which names them, but with its
occlusion filter off: the agent is shown only what it can act on, while the judge asks what the
page holds, and the cart link still says "Cart (1)" behind the upsell drawer a shop opens after
every add.

A task may also name app state the page keeps in Web Storage (`Task.state`): what a shop's cart
holds, not only how many items its link counts. The judge reads it from the page itself.

A task's result may open in a new tab: the judge checks the task's own tab and every tab opened
while the task ran, and passes the task when one of them meets all its predicates.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from waymark.eval.tasks import Task

log = logging.getLogger(__name__)


class JudgeError(RuntimeError):
    """The final state cannot be read (the tab is gone, the extension does not see it)."""


def _laid_out_text(capture: dict[str, Any]) -> list[str]:
    """The texts of a DOMSnapshot capture that the browser laid out (rendered text nodes: not
    display:none, not script or style), every document of the capture."""
    strings = capture.get("strings") or []
    texts = []
    for document in capture.get("documents") or []:
        for index in (document.get("layout") or {}).get("text") or []:
            if isinstance(index, int) and 0 <= index < len(strings) and strings[index].strip():
                texts.append(strings[index])
    return texts


async def page_text(page: Any) -> str:
    """The text every frame of `page` lays out, joined by newlines. The page's own session covers
    its same-process frames; each frame in another process (a cross-origin iframe under site
    isolation) is read through its own session."""
    sessions = [await page.context.new_cdp_session(page)]
    for frame in page.frames[1:]:
        try:
            sessions.append(await page.context.new_cdp_session(frame))
        except Exception:  # a frame in the page's own process has no session of its own
            continue
    texts: list[str] = []
    for session in sessions:
        try:
            texts += _laid_out_text(await session.send("DOMSnapshot.captureSnapshot", {"computedStyles": []}))
        except Exception as exc:  # a frame detached while it was read: its text is gone
            log.info("a frame's text could not be read: %s", exc)
        finally:
            try:
                await session.detach()
            except Exception:
                log.debug("the session had already closed")
    return "\n".join(texts)


async def tab_id_of(controller: Any, url: str) -> int:
    """The Chrome tab id of the page at `url` (the newest, when several show it)."""
    data = await controller.call("browser.request", {"method": "tabs.list"})
    tabs = data["data"]["tabs"]
    matching = [t for t in tabs if t["url"] == url] or [t for t in tabs if t["url"].split("#")[0] == url.split("#")[0]]
    if not matching:
        raise JudgeError(f"the extension does not see the tab at {url}")
    return int(matching[-1]["tab_id"])


async def _snapshot(controller: Any, tab_id: int) -> Any:
    from waymark.host.core.snapshot import Snapshot

    data = await controller.call("browser.request", {"method": "snapshot", "params": {"tab_id": tab_id, "occlusion": False}})
    return Snapshot.model_validate(data["data"])


async def _state_failures(task: Task, page: Any) -> list[str]:
    """The task's app-state checks that fail on `page`, described."""
    failures = []
    for check in task.state:
        raw = await page.evaluate("([area, key]) => (area === 'local' ? localStorage : sessionStorage).getItem(key)",
                                  [check.area, check.key])
        try:
            value = None if raw is None else json.loads(raw)
        except ValueError:
            value = raw
        if value != check.equals:
            failures.append(f"{check.area}Storage[{check.key!r}] is {raw}, expected {json.dumps(check.equals)}")
    return failures


async def _judge_tab(controller: Any, task: Task, page: Any, tab_id: int | None, start_url: str) -> tuple[bool, str, dict[str, Any]]:
    """All of the task's predicates on one tab, allowing a moment for a late navigation."""
    from waymark.host.agent.verifier import Expectation, VerifyContext, parse_predicates

    if tab_id is None:
        tab_id = await tab_id_of(controller, page.url)
    expectation = Expectation(parse_predicates(task.success), VerifyContext(url_before=start_url), page_text=lambda: page_text(page))
    first = await _snapshot(controller, tab_id)
    verdict = await expectation.eventually(first, lambda: _snapshot(controller, tab_id), timeout=3.0, max_tries=4)
    failed = [f"{list(r.predicate)[0]} failed: {r.detail}" for r in verdict.failed()] + await _state_failures(task, page)
    reason = "all predicates hold" if not failed else "; ".join(failed)
    final_url = verdict.snapshot.url if verdict.snapshot else page.url
    return not failed, reason, {"checks": [r.model_dump() for r in verdict.results], "final_url": final_url}


async def judge_site_task(controller: Any, task: Task, page: Any, tab_id: int, opened: list[Any],
                          start_url: str) -> tuple[bool, str, dict[str, Any]]:
    """Judge a fixture-site task on its own tab `page` (Chrome's `tab_id`: its URL may be an
    error page's by now) and the tabs `opened` while it ran (newest last): the first tab that
    meets every predicate passes it; else the task's own tab's verdict (the first remaining
    tab's, when the agent closed its own) is the reason."""
    tabs = [p for p in [page, *opened] if not p.is_closed()]
    if not tabs:
        raise JudgeError("every tab of the task was closed")
    verdicts = []
    for tab in tabs:
        passed, reason, details = await _judge_tab(controller, task, tab, tab_id if tab is page else None, start_url)
        details["tab"] = "the task's tab" if tab is page else "a tab opened during the task"
        if passed:
            return passed, reason, details
        verdicts.append((passed, reason, details))
    return verdicts[0]
