"""Typing, choosing and submitting: controlled inputs, selects, checkboxes, radios, Enter and submit."""

from tests.e2e.dispatch_helpers import (
    act,
    hold_debugger,
    open_page,
    ref,
    release_debugger,
)


async def test_fill_reaches_a_react_style_controlled_input(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/controlled.html")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "City"), "text": "Lisbon"})
    assert result.ok, result.error
    assert result.path == "cdp"
    assert await page.text_content("#state") == "Lisbon"
    assert await page.input_value("#city") == "Lisbon"


async def test_fill_reaches_a_controlled_input_on_the_synthetic_path(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/controlled.html")
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "City"), "text": "Porto"})
    finally:
        await release_debugger(sw, tab)
    assert result.ok, result.error
    assert result.path == "synthetic"
    assert await page.text_content("#state") == "Porto"


async def test_a_direct_value_write_does_not_reach_the_controlled_input(page, site_url):
    # The fixture really behaves like React: page code writing .value is ignored.
    await page.goto(f"{site_url}/dispatch/controlled.html")
    await page.evaluate("() => { const i = document.getElementById('city'); i.value = 'Faro'; i.dispatchEvent(new Event('input', {bubbles: true})); }")
    assert await page.text_content("#state") == ""


async def test_fill_replaces_and_type_appends(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    name = ref(snap, "Full name")
    assert (await act(sw, tab, {"type": "fill", "ref": name, "text": "Ada"}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "type", "ref": name, "text": " Lovelace"}, snapshot=None)).ok
    assert await page.input_value("#name") == "Ada Lovelace"
    assert (await act(sw, tab, {"type": "fill", "ref": name, "text": ""}, snapshot=None)).ok
    assert await page.input_value("#name") == ""


async def test_type_appends_to_an_email_field(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    await page.fill("#email", "ada@")
    result = await act(sw, tab, {"type": "type", "ref": ref(snap, "Email"), "text": "example.org"}, snapshot=None)
    assert result.ok, result.error
    assert await page.input_value("#email") == "ada@example.org"


async def test_typing_into_a_readonly_field_fails_as_readonly(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Note"), "text": "changed"})
    assert not result.ok
    assert result.error.code == "readonly"
    assert await page.input_value("#note") == "fixed"


async def test_typing_into_a_button_fails_as_not_editable(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Place order"), "text": "x"})
    assert not result.ok
    assert result.error.code == "not_editable"


async def test_select_chooses_an_option_by_label_and_fires_change(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size"), "value": "Large"})
    assert result.ok, result.error
    assert await page.input_value("#size") == "l"
    assert await page.text_content("#size-changes") == "1"


async def test_select_chooses_an_option_by_value(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size"), "value": "m"})
    assert result.ok, result.error
    assert await page.input_value("#size") == "m"


async def test_select_of_a_missing_option_fails_with_the_options(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size"), "value": "Huge"})
    assert not result.ok
    assert result.error.code == "no_such_option"
    assert result.error.data["options"] == ["Small", "Medium", "Large"]


async def test_check_and_uncheck_a_checkbox(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    gift = ref(snap, "Gift wrap")
    assert (await act(sw, tab, {"type": "check", "ref": gift}, snapshot=None)).ok
    assert await page.is_checked("#gift")
    again = await act(sw, tab, {"type": "check", "ref": gift}, snapshot=None)
    assert again.ok and await page.is_checked("#gift"), "checking a checked box leaves it checked"
    assert (await act(sw, tab, {"type": "uncheck", "ref": gift}, snapshot=None)).ok
    assert not await page.is_checked("#gift")


async def test_check_on_a_page_that_re_renders_the_box_lands_and_says_it_was_replaced(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/rerender.html")
    result = await act(sw, tab, {"type": "check", "ref": ref(snap, "Email me a daily digest", role="checkbox")})
    assert result.ok, result.error
    assert result.replaced, "the toggled box was replaced by the page's re-render"
    assert await page.is_checked("#digest")
    box = next(e for e in result.snapshot.elements if e.name == "Email me a daily digest")
    assert box.states.get("checked") is True, "the fresh snapshot reads the new box"


async def test_check_selects_a_radio_button(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "check", "ref": ref(snap, "Express", role="radio")})
    assert result.ok, result.error
    assert await page.is_checked("input[value=express]")
    assert not await page.is_checked("input[value=standard]")


async def test_enter_in_a_field_submits_the_form(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    name = ref(snap, "Full name")
    assert (await act(sw, tab, {"type": "fill", "ref": name, "text": "Ada"}, snapshot=None)).ok
    result = await act(sw, tab, {"type": "press", "ref": name, "key": "Enter"})
    assert result.ok, result.error
    assert result.navigated
    assert "/dispatch/done.html?name=Ada" in result.url_after
    assert result.snapshot is not None and result.snapshot.title == "Dispatch: order placed"


async def test_clicking_submit_navigates_and_the_snapshot_is_of_the_new_page(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Place order")})
    assert result.ok, result.error
    assert result.navigated
    assert result.url_before.endswith("/dispatch/form.html")
    assert "/dispatch/done.html?" in result.url_after
    assert result.snapshot is not None and "Order placed" in result.snapshot.text


async def test_control_a_then_typing_replaces_the_text(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    name = ref(snap, "Full name")
    await page.fill("#name", "old text")
    assert (await act(sw, tab, {"type": "press", "ref": name, "key": "Control+A"}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "press", "key": "Backspace"}, snapshot=None)).ok
    assert await page.input_value("#name") == ""


async def test_check_a_custom_checkbox_whose_input_is_invisible_clicks_its_label(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "check", "ref": ref(snap, "Send me news", role="checkbox")})
    assert result.ok, result.error
    assert await page.is_checked("#news")


async def test_shift_tab_moves_focus_backwards(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    await page.focus("#email")
    result = await act(sw, tab, {"type": "press", "key": "Shift+Tab"}, snapshot=None)
    assert result.ok, result.error
    assert await page.evaluate("() => document.activeElement.id") == "name"


async def test_type_appends_to_a_contenteditable_editor(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/controlled.html")
    result = await act(sw, tab, {"type": "type", "ref": ref(snap, "Comment"), "text": " world"}, snapshot=None)
    assert result.ok, result.error
    assert await page.text_content("#editor") == "Hello world"


async def test_fill_replaces_a_contenteditable_editor_on_the_synthetic_path(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/controlled.html")
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Comment"), "text": "Bye"}, snapshot=None)
    finally:
        await release_debugger(sw, tab)
    assert result.ok, result.error
    assert result.path == "synthetic"
    assert await page.text_content("#editor") == "Bye"


async def test_fill_sets_a_date_field(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Delivery date"), "text": "2026-12-24"}, snapshot=None)
    assert result.ok, result.error
    assert await page.input_value("#date") == "2026-12-24"


async def test_fill_with_a_malformed_date_fails_as_invalid_value(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/form.html")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Delivery date"), "text": "24/12/2026"}, snapshot=None)
    assert not result.ok
    assert result.error.code == "invalid_value"
    assert "2026-12-24" in result.error.message
