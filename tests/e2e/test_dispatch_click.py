"""Clicking what the model chose: trusted input, scroll into view, actionability, stale refs, settle."""

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, ref, snapshot, tab_id_of


async def open_buttons(sw, page, site_url):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/buttons.html")
    tab = await tab_id_of(sw, page)
    return tab, await snapshot(sw, tab)


async def test_click_is_a_trusted_event_on_the_cdp_path(sw, page, site_url):
    tab, snap = await open_buttons(sw, page, site_url)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Count")})
    assert result.ok, result.error
    assert result.path == "cdp"
    assert await page.text_content("#clicks") == "1"
    assert await page.text_content("#trusted") == "true"


async def test_a_button_below_the_fold_is_scrolled_into_view_and_clicked(sw, page, site_url):
    tab, snap = await open_buttons(sw, page, site_url)
    far = snap.find(ref(snap, "Far below"))
    assert far is not None and not far.in_viewport
    result = await act(sw, tab, {"type": "click", "ref": far.ref})
    assert result.ok, result.error
    assert await page.text_content("#far-clicks") == "1"
