"""JavaScript dialogs (alert, confirm, prompt, beforeunload) in real Chromium with the real
extension and host: one owner answers each, the same way in a browser `host/launch.py` started
and in a user's own Chrome, and none leaves the page blocked."""

from __future__ import annotations

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, open_page, ref, snapshot, tab_id_of


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


async def test_a_leave_page_prompt_in_a_launched_browser_is_answered_and_the_navigation_completes(sw, page, site_url):
    # Without a listener of its own, Playwright dismissed the "Leave site?" prompt: the page stayed.
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/buttons.html?guard")
    tab = await tab_id_of(sw, page)
    snap = await snapshot(sw, tab)
    assert (await act(sw, tab, {"type": "click", "ref": ref(snap, "Count")}, snapshot=None)).ok  # the page now has a user's interaction
    result = await act(sw, tab, {"type": "navigate", "url": f"{site_url}/dispatch/target.html"}, snapshot=None)
    assert result.ok, result.error
    assert [d["type"] for d in result.dialogs] == ["beforeunload"]
    assert result.url_after.endswith("/dispatch/target.html")
    assert page.url.endswith("/dispatch/target.html")


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
        tab, snap = await open_page(sw, page, f"{site_url}/dialogs/gift_card.html")
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
