"""A page that never finishes loading (its long poll stays open) is acted on once its content is
usable, not when its network is idle. Chrome's own readyState and the page's poll say when."""

from __future__ import annotations

from typing import Any

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, ref, snapshot

#: The page's long poll answers after this long, as a real one does (then it polls again): a run
#: that waits for the page's load acts only after it.
POLL_S = 15


async def _open_as_a_run_does(browser: Any, url: str) -> tuple[int, Any]:
    """Open `url` in a new tab through the host's `tabs.open`, as a run opens its start page: the
    tab's id and its Playwright page."""
    sw = browser.service_worker
    await wait_connected(sw)
    async with browser.context.expect_page() as opening:
        opened = await sw.evaluate("(url) => globalThis.waymark.call('browser.request', {method: 'tabs.open', params: {url}})", url)
    page = await opening.value
    await page.wait_for_url(url, wait_until="commit")
    return opened["data"]["tab_id"], page


async def test_the_first_action_lands_while_the_pages_long_poll_is_still_open(browser, sw, site_url):
    tab, page = await _open_as_a_run_does(browser, f"{site_url}/dispatch/never_loading.html?hold={POLL_S}")
    try:
        result = await act(sw, tab, {"type": "click", "ref": ref(await snapshot(sw, tab), "Send a message")}, snapshot=None)
        assert result.ok, result.error
        assert await page.evaluate("() => window.sentWhile") == {"readyState": "interactive", "pollsAnswered": 0}
    finally:
        await page.close()


#: Long enough for an action to land before it, short of the 3 s an action's settle is bounded by:
#: a run that waits for the page's load (or the bound) acts only after the poll has answered.
SHORT_POLL_S = 2


async def test_the_action_after_a_navigation_to_a_page_that_keeps_loading_lands_while_its_poll_is_open(browser, sw, site_url):
    # A navigation during a run settled only at the page's load or the 3 s bound: a person acts
    # on the page as soon as it shows, as a run does on its start page.
    tab, page = await _open_as_a_run_does(browser, f"{site_url}/dispatch/buttons.html")
    try:
        went = await act(sw, tab, {"type": "navigate", "url": f"{site_url}/dispatch/never_loading.html?hold={SHORT_POLL_S}"})
        assert went.ok, went.error
        assert went.navigated
        result = await act(sw, tab, {"type": "click", "ref": ref(went.snapshot, "Send a message")}, snapshot=None)
        assert result.ok, result.error
        assert await page.evaluate("() => window.sentWhile") == {"readyState": "interactive", "pollsAnswered": 0}
    finally:
        await page.close()


async def test_a_page_whose_visible_frame_is_still_loading_is_waited_for_after_a_navigation(browser, sw, site_url):
    # What a person can see still loading is waited for, as before: only a load held by what
    # nobody sees (a hidden frame) is not.
    tab, page = await _open_as_a_run_does(browser, f"{site_url}/dispatch/buttons.html")
    try:
        went = await act(sw, tab, {"type": "navigate", "url": f"{site_url}/dispatch/never_loading.html?hold=1&shown=1"})
        assert went.ok, went.error
        assert await page.evaluate("() => window.polls.answered") == 1
    finally:
        await page.close()
