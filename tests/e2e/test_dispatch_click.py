"""Clicking what the model chose: trusted input, scroll into view, actionability, stale refs, settle."""

from tests.e2e.dispatch_helpers import act, open_page, ref


async def test_click_is_a_trusted_event_on_the_cdp_path(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Count")})
    assert result.ok, result.error
    assert result.path == "cdp"
    assert await page.text_content("#clicks") == "1"
    assert await page.text_content("#trusted") == "true"


async def test_a_button_below_the_fold_is_scrolled_into_view_and_clicked(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    far = snap.find(ref(snap, "Far below"))
    assert far is not None and not far.in_viewport
    result = await act(sw, tab, {"type": "click", "ref": far.ref})
    assert result.ok, result.error
    assert await page.text_content("#far-clicks") == "1"


async def test_double_click_fires_dblclick(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "double_click", "ref": ref(snap, "Double me")})
    assert result.ok, result.error
    assert await page.text_content("#dblclicks") == "1"


async def test_hover_moves_the_pointer_over_the_element(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "hover", "ref": ref(snap, "Hover target")})
    assert result.ok, result.error
    assert await page.text_content("#hovered") == "yes"


async def test_a_re_rendered_button_is_a_stale_ref_with_a_fresh_snapshot_and_is_not_clicked(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    old = ref(snap, "Save")
    await page.evaluate("() => window.rerenderSave()")
    result = await act(sw, tab, {"type": "click", "ref": old}, snapshot=None)
    assert not result.ok
    assert result.error.code == "stale_ref"
    assert result.snapshot is not None, "a stale ref always carries a fresh snapshot"
    assert ref(result.snapshot, "Save") != old
    assert await page.text_content("#clicks") == "0", "nothing was re-dispatched by name"


async def test_a_click_that_opens_a_modal_shows_the_modal_in_the_settled_snapshot(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    assert "Close settings" not in snap.text
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Open settings")})
    assert result.ok, result.error
    assert result.snapshot is not None
    assert ref(result.snapshot, "Close settings")


async def test_a_covered_button_fails_as_occluded_and_names_the_cover(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    await page.evaluate("() => window.cover()")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Count")})
    assert not result.ok
    assert result.error.code == "occluded"
    assert isinstance(result.error.data["occluder_ref"], int)
    assert "cover" in result.error.message
    assert await page.text_content("#clicks") == "0"


async def test_a_menu_drawn_over_the_target_as_the_pointer_arrives_takes_no_click(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    await page.evaluate("() => window.suggestOnPointer()")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Submit order")})
    assert not result.ok
    assert result.error.code == "occluded", result.error
    assert result.error.data["intercepted"] is True
    assert isinstance(result.error.data["occluder_ref"], int)
    assert "Suggestions" in result.error.message
    assert await page.text_content("#picked") == "0", "the menu that appeared took no click"
    assert await page.text_content("#submitted") == "0"


async def test_a_menu_drawn_over_a_field_as_the_pointer_arrives_takes_no_click_and_no_text(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    await page.evaluate("() => window.suggestOnPointer('coupon')")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Coupon code"), "text": "SPRING"})
    assert not result.ok
    assert result.error.code == "occluded", result.error
    assert result.error.data["intercepted"] is True
    assert await page.text_content("#picked") == "0", "the menu that appeared took no click"
    assert await page.input_value("#coupon") == ""


async def test_a_button_re_rendered_as_the_pointer_arrives_is_a_stale_ref_and_its_copy_is_not_clicked(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    await page.evaluate("() => window.rerenderOnPointer()")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Save")})
    assert not result.ok
    assert result.error.code == "stale_ref", result.error
    assert result.snapshot is not None, "a stale ref always carries a fresh snapshot"
    assert await page.text_content("#clicks") == "0"


async def test_a_disabled_button_fails_as_disabled(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Disabled")})
    assert not result.ok
    assert result.error.code == "disabled"


async def test_a_ref_the_tab_never_issued_is_not_found(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "click", "ref": 99999})
    assert not result.ok
    assert result.error.code == "not_found"


async def test_an_alert_is_answered_and_reported_instead_of_blocking_the_page(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    page.on("dialog", lambda dialog: None)  # leave the dialog to the extension, as in a user's own Chrome
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Show alert")})
    assert result.ok, result.error
    assert [(d["type"], d["message"]) for d in result.dialogs] == [("alert", "Saved!")]
    assert await page.text_content("#clicks") == "after-alert"


async def test_a_confirm_is_dismissed_when_the_policy_says_dismiss(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    page.on("dialog", lambda dialog: None)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Ask confirm")}, dialogs="dismiss")
    assert result.ok, result.error
    assert result.dialogs[0]["type"] == "confirm" and result.dialogs[0]["handled"] == "dismiss"
    assert await page.text_content("#confirmed") == "false"


async def test_the_synthetic_path_is_taken_when_the_debugger_cannot_attach(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    # Another client holds the tab's debugger (here: a second attach from outside dispatch).
    await sw.evaluate("(tabId) => chrome.debugger.attach({tabId}, '1.3')", tab)
    try:
        result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Count")})
    finally:
        await sw.evaluate("(tabId) => chrome.debugger.detach({tabId}).catch(() => {})", tab)
    assert result.ok, result.error
    assert result.path == "synthetic"
    assert await page.text_content("#clicks") == "1"
    assert await page.text_content("#trusted") == "false"


async def test_an_alert_on_the_synthetic_path_is_answered_in_the_page_instead_of_blocking_it(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    # Another client holds the tab's debugger: the page-world script answers the alert.
    await sw.evaluate("(tabId) => chrome.debugger.attach({tabId}, '1.3')", tab)
    try:
        result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Show alert")}, snapshot=None)
    finally:
        await sw.evaluate("(tabId) => chrome.debugger.detach({tabId}).catch(() => {})", tab)
    assert result.ok, result.error
    assert result.path == "synthetic"
    assert [(d["type"], d["message"], d["by"]) for d in result.dialogs] == [("alert", "Saved!", "page")]
    assert await page.text_content("#clicks") == "after-alert"
