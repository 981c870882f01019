"""JavaScript dialogs (alert, confirm, prompt, beforeunload) in real Chromium with the real
extension and host: one owner answers each, the same way in a browser `host/launch.py` started
and in a user's own Chrome, and none leaves the page blocked."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Callable

from tests.agent_calls import RecordingModel, start_run, tool_call, trace_events
from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, open_page, ref, snapshot, tab_id_of
from waymark.host.agent.prompts import UNTRUSTED_TAG


async def test_a_launched_browser_leaves_a_confirm_to_the_extension_so_it_gets_the_same_answer_every_time(sw, page, site_url):
    # Playwright dismissed dialogs itself when no listener was registered, racing the extension's
    # answer: the same confirm was answered Cancel in 5 of 12 runs. No listener here: the page is
    # as `waymark run`, the eval and `mcp --launch` leave it.
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    answers = []
    for _ in range(10):
        result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Ask confirm")}, dialogs="accept", snapshot=None)
        assert result.ok, result.error
        answers.append(await page.text_content("#confirmed"))
        await page.evaluate("document.getElementById('confirmed').textContent = 'none'")
    assert answers == ["true"] * 10


async def test_a_launched_browser_leaves_a_held_confirm_to_the_executors_answer_every_time(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dialogs/categories.html")
    statuses = []
    for _ in range(10):
        opened = await act(sw, tab, {"type": "click", "ref": ref(snap, "Archive")}, dialogs="ask", snapshot=None)
        assert opened.ok, opened.error
        answered = await act(sw, tab, {"type": "answer_dialog", "accept": True}, dialogs="ask", snapshot=None)
        assert answered.ok, answered.error
        statuses.append(await page.text_content("#status"))
        await page.evaluate("document.getElementById('status').textContent = ''")
    assert statuses == ["Archived"] * 10


async def test_an_alert_while_the_page_loads_without_the_debugger_never_blocks_it_and_the_next_snapshot_shows_its_message(sw, page, site_url):
    # In a user's own Chrome the debugger attaches at the first action: an alert before it
    # blocked the page, and the run's first snapshot failed as frame_unreachable.
    await wait_connected(sw)
    await page.goto(f"{site_url}/dialogs/gift_card.html")
    tab = await tab_id_of(sw, page)
    assert tab not in await sw.evaluate("() => globalThis.waymark.debuggerTabs()")
    snap = await snapshot(sw, tab)
    assert 'dialog alert "Your gift card expires on 2027-03-01" (closed)' in snap.text
    assert await page.text_content("#loaded") == "Card loaded"  # the page's script went on past the alert


async def test_an_alert_long_after_the_last_action_when_the_debugger_has_detached_never_blocks_the_page(sw, page, site_url):
    await sw.evaluate("() => globalThis.waymark.setIdleDetachMs(300)")
    try:
        tab, snap = await open_page(sw, page, f"{site_url}/dialogs/reminder.html")
        assert (await act(sw, tab, {"type": "click", "ref": ref(snap, "Remind me later")}, snapshot=None)).ok
        await page.wait_for_function("() => window.remindLater")
        while tab in await sw.evaluate("() => globalThis.waymark.debuggerTabs()"):
            await page.wait_for_timeout(100)
        await page.evaluate("() => setTimeout(window.remindLater, 0)")
        await page.wait_for_function("() => document.getElementById('reminded').textContent === 'shown'")
        snap = await snapshot(sw, tab)
    finally:
        await sw.evaluate("() => globalThis.waymark.setIdleDetachMs(30000)")
    assert 'dialog alert "Reminder: spend your balance" (closed)' in snap.text


async def test_a_prompt_held_for_the_executor_is_answered_with_a_value_the_page_then_shows(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dialogs/categories.html")
    chrome_saw: list[Any] = []
    page.on("dialog", lambda dialog: chrome_saw.append(dialog))  # Chrome's own report of the dialog, through Playwright's connection; it answers nothing
    opened = await act(sw, tab, {"type": "click", "ref": ref(snap, "Rename")}, dialogs="ask", snapshot={})
    assert opened.ok, opened.error
    assert opened.snapshot is not None and opened.snapshot.dialog is not None
    assert (opened.snapshot.dialog.type, opened.snapshot.dialog.default_prompt) == ("prompt", "Shoes")
    assert [(d.type, d.message, d.default_value) for d in chrome_saw] == [("prompt", opened.snapshot.dialog.message, "Shoes")]
    assert 'dialog prompt "New name for the category:" default "Shoes" (open: the page waits for answer_dialog)' in opened.snapshot.text
    answered = await act(sw, tab, {"type": "answer_dialog", "accept": True, "text": "Boots"}, dialogs="ask", snapshot={})
    assert answered.ok, answered.error
    assert [(d["type"], d["handled"], d["text"]) for d in answered.dialogs] == [("prompt", "accept", "Boots")]
    assert await page.text_content("#name") == "Boots"
    assert answered.snapshot is not None and answered.snapshot.dialog is None
    assert 'dialog prompt "New name for the category:" default "Shoes" (answered "Boots")' in answered.snapshot.text


async def test_a_confirm_answered_cancel_by_the_executor_leaves_the_pages_data_intact(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dialogs/categories.html")
    opened = await act(sw, tab, {"type": "click", "ref": ref(snap, "Delete")}, dialogs="ask", snapshot={})
    assert opened.snapshot is not None and opened.snapshot.dialog is not None and opened.snapshot.dialog.type == "confirm"
    refused = await act(sw, tab, {"type": "click", "ref": ref(snap, "Archive")}, dialogs="ask", snapshot=None)
    assert refused.error is not None and refused.error.code == "dialog_open"
    answered = await act(sw, tab, {"type": "answer_dialog", "accept": False}, dialogs="ask", snapshot=None)
    assert answered.ok, answered.error
    assert await page.text_content("#products") == "12"
    assert await page.text_content("#status") == "Category deleted, products kept"


async def test_answer_dialog_with_no_dialog_open_fails_with_a_reason(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dialogs/categories.html")
    result = await act(sw, tab, {"type": "answer_dialog", "accept": True}, dialogs="ask", snapshot=None)
    assert result.error is not None and result.error.code == "no_dialog"


# ------------------------------------------------------------------ the agent


def _plan(*intents: str) -> dict[str, Any]:
    return {"content": json.dumps({"steps": [{"intent": i, "verify": [], "required": True} for i in intents]})}


async def test_an_alert_while_the_start_page_loads_reaches_the_models_prompt_and_the_trace(sw, site_url):
    # The gift card's expiry date is said only in an alert on load: it never reached the model.
    def model(system: str, user: str) -> dict[str, Any]:
        if "planner" in system:
            return _plan("Read the gift card's expiry date")
        said = 'dialog alert "Your gift card expires on 2027-03-01" (closed)' in user
        return tool_call("done", {"result": "It expires on 2027-03-01" if said else "not shown", "success": said})

    recorder = RecordingModel(model)
    try:
        run = await start_run(sw, {"task": "When does my gift card expire?", "start_url": f"{site_url}/dialogs/gift_card.html",
                                   **recorder.provider_options()})
        summary = await run.summary()
    finally:
        recorder.close()
    executor_prompts = [RecordingModel.text(json.loads(b)["messages"][-1]) for b in recorder.bodies if b"planner" not in b[:4000]]
    assert any('dialog alert "Your gift card expires on 2027-03-01" (closed)' in p.split(f"<{UNTRUSTED_TAG}", 1)[-1] for p in executor_prompts)
    seen = [d for e in trace_events(summary["trace_dir"], "step") for d in e.get("dialogs_seen", [])]
    assert [(d["type"], d["message"], d["by"]) for d in seen] == [("alert", "Your gift card expires on 2027-03-01", "page")]
    assert summary["result"] == "It expires on 2027-03-01"


def _category_model(intent: str, button: str, answer: dict[str, Any]) -> Callable[[str, str], dict[str, Any]]:
    """Clicks `button` while no dialog is open, gives `answer` to the one that is, then is done."""
    def model(system: str, user: str) -> dict[str, Any]:
        if "planner" in system:
            return _plan(intent)
        page = user.split(f"<{UNTRUSTED_TAG}", 1)[-1]
        if "(open: the page waits for answer_dialog)" in page:
            return tool_call("answer_dialog", answer)
        if re.search(r"dialog (confirm|prompt) .*\((answered|stayed)", page):
            return tool_call("done", {"result": "answered", "success": True})
        ref = int(re.search(r'\[(\d+)\] button "' + button + '"', user).group(1))
        return tool_call("click", {"ref": ref})
    return model


async def _category_run(sw: Any, browser: Any, site_url: str, task: str, model: Callable[[str, str], dict[str, Any]],
                        approvals: tuple[bool, ...] = ()) -> tuple[dict[str, Any], Any, list[dict[str, Any]]]:
    """A run on the categories page, the user answering its confirmations with `approvals` in
    turn: its summary, the page it worked in and the confirmations it asked for."""
    recorder = RecordingModel(model)
    asked: list[dict[str, Any]] = []
    try:
        run = await start_run(sw, {"task": task, "start_url": f"{site_url}/dialogs/categories.html", **recorder.provider_options()})
        for approve in approvals:
            for _ in range(1200):  # a minute for each question
                if len(asked) < len(await run.events("confirm")):
                    break
                await asyncio.sleep(0.05)
            else:
                steps = [(e.get("action_line"), e.get("verdict"), e.get("reason")) for e in await run.events("step")]
                raise AssertionError(f"asked {[r['action_line'] for r in asked]}, then no more; the run's steps: {steps}")
            asked.append((await run.events("confirm"))[len(asked)])
            await run.answer(asked[-1], approve)
        summary = await run.summary()
    finally:
        recorder.close()
    worked_in = [p for p in browser.context.pages if p.url.endswith("/dialogs/categories.html")][-1]
    return summary, worked_in, asked


def _answered(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for e in trace_events(summary["trace_dir"], "step") for d in e.get("dialogs", []) if d["handled"] != "pending"]


async def test_a_rename_task_answers_the_pages_prompt_with_the_new_name(sw, browser, site_url):
    summary, page, _ = await _category_run(sw, browser, site_url, "Rename the Shoes category to Boots",
                                        _category_model("Rename the category to Boots", "Rename", {"accept": True, "text": "Boots"}))
    assert [(d["type"], d["handled"], d.get("text")) for d in _answered(summary)] == [("prompt", "accept", "Boots")]
    assert await page.text_content("#name") == "Boots"


async def test_delete_the_category_but_keep_its_products_is_answered_cancel_and_the_products_stay(sw, browser, site_url):
    summary, page, asked = await _category_run(sw, browser, site_url, "Delete the Shoes category but keep its products",
                                               _category_model("Delete the category, keeping its products", "Delete", {"accept": False}),
                                               approvals=(True,))
    assert [r["action_line"] for r in asked] == ['click [2] button "Delete"']  # the click asks; Cancel never does
    assert [(d["type"], d["handled"]) for d in _answered(summary)] == [("confirm", "dismiss")]
    assert await page.text_content("#products") == "12"


async def test_an_approved_delete_click_approves_the_confirm_it_opened_so_the_user_is_asked_once(sw, browser, site_url):
    # The user said yes to "Delete"; its confirm() is the same deletion: asking again made the user answer twice.
    summary, page, asked = await _category_run(sw, browser, site_url, "Delete the Shoes category and its products",
                                               _category_model("Delete the category", "Delete", {"accept": True}), approvals=(True,))
    assert [r["action_line"] for r in asked] == ['click [2] button "Delete"']
    assert [(d["type"], d["handled"]) for d in _answered(summary)] == [("confirm", "accept")]
    assert await page.text_content("#products") == "0"


def _delete_then_tidy_model() -> Callable[[str, str], dict[str, Any]]:
    """Clicks Delete, answers its confirm OK, clicks Tidy up, answers its confirm OK, then is done."""
    answered = []

    def model(system: str, user: str) -> dict[str, Any]:
        if "planner" in system:
            return _plan("Delete the Shoes category", "Tidy up the empty categories")
        if "(open: the page waits for answer_dialog)" in user.split(f"<{UNTRUSTED_TAG}", 1)[-1]:
            answered.append(True)
            return tool_call("answer_dialog", {"accept": True})
        if len(answered) == 2:
            return tool_call("done", {"result": "tidied", "success": True})
        button = "Tidy up" if answered else "Delete"
        return tool_call("click", {"ref": int(re.search(r'\[(\d+)\] button "' + button + '"', user).group(1))})
    return model


async def test_a_later_destructive_confirm_the_approved_click_did_not_open_asks_the_user_again(sw, browser, site_url):
    summary, page, asked = await _category_run(sw, browser, site_url, "Delete the Shoes category and tidy up the empty ones",
                                               _delete_then_tidy_model(), approvals=(True, False))
    assert [r["action_line"] for r in asked] == ['click [2] button "Delete"', "answer_dialog accept=true"]
    assert "Delete the 3 empty categories?" in asked[1]["reason"]
    assert summary["outcome"] == "declined"
    assert (await page.text_content("#products"), await page.text_content("#empty")) == ("0", "3")


async def test_a_confirm_in_a_cross_origin_frame_is_held_and_answered_like_the_pages_own(sw, page, site_url, other_origin):
    url = f"{site_url}/dialogs/framed.html?src={other_origin}/dialogs/categories.html"
    await wait_connected(sw)
    await page.goto(url)
    frame = page.frame_locator("#frame")
    await frame.locator("#delete").wait_for()
    tab = await tab_id_of(sw, page)
    snap = await snapshot(sw, tab)
    opened = await act(sw, tab, {"type": "click", "ref": ref(snap, "Delete")}, dialogs="ask", snapshot={})
    assert opened.ok, opened.error
    assert opened.snapshot is not None and opened.snapshot.dialog is not None and opened.snapshot.dialog.type == "confirm"
    answered = await act(sw, tab, {"type": "answer_dialog", "accept": False}, dialogs="ask", snapshot=None)
    assert answered.ok, answered.error
    assert await frame.locator("#status").text_content() == "Category deleted, products kept"


async def test_a_confirm_while_a_page_the_agent_opened_loads_is_answered_cancel_in_the_page_and_shown(sw, page, site_url):
    # The debugger takes a document's dialogs over at its first action, never by a race with its
    # first scripts: a question asked while the page loads is answered Cancel every time.
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    for _ in range(3):
        result = await act(sw, tab, {"type": "navigate", "url": f"{site_url}/dialogs/confirm_on_load.html"}, dialogs="ask", snapshot={})
        assert result.ok, result.error
        assert [(d["type"], d["handled"], d["by"]) for d in result.dialogs] == [("confirm", "dismiss", "page")]
        assert result.snapshot is not None and 'dialog confirm "Accept all cookies?" (answered Cancel)' in result.snapshot.text
        assert await page.text_content("#answer") == "cookies refused"
