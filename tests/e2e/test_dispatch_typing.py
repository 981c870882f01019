"""Typing as a person's keyboard makes it: a key event per character through CDP, checked against
Playwright's own `keyboard.type` in the same Chromium and against widgets that listen for keys
(jQuery UI's autocomplete from its npm dist files, Django admin's permission filter from the
Django wheel)."""

from __future__ import annotations

from typing import Any

from tests.e2e.dispatch_helpers import (
    act,
    hold_debugger,
    open_page,
    ref,
    release_debugger,
    snapshot,
)

KEY_EVENTS = "() => window.events.map(e => [e.field, e.type, e.key, e.code, e.keyCode, e.inputType, e.data])"


async def _events_of_playwright_typing(page: Any, url: str, selector: str, text: str) -> list[list[Any]]:
    """The events Playwright's `keyboard.type` fires on the page: the outside authority."""
    await page.goto(url)
    await page.focus(selector)
    await page.evaluate("() => { window.events.length = 0; }")
    await page.keyboard.type(text)
    return await page.evaluate(KEY_EVENTS)


async def test_typing_fires_the_key_events_playwrights_keyboard_fires(sw, page, site_url):
    url = f"{site_url}/dispatch/keys.html"
    text = "Hi, Tex! 42 #a_b"
    expected = await _events_of_playwright_typing(page, url, "#line", text)
    tab, snap = await open_page(sw, page, url)
    await page.evaluate("() => { window.events.length = 0; }")
    result = await act(sw, tab, {"type": "type", "ref": ref(snap, "Line"), "text": text}, snapshot=None)
    assert result.ok, result.error
    assert await page.evaluate(KEY_EVENTS) == expected
    assert await page.input_value("#line") == text
    assert [e[1] for e in expected].count("keydown") == len(text), "one keydown per character"


async def test_typing_a_line_break_in_a_textarea_presses_enter_as_playwright_does(sw, page, site_url):
    url = f"{site_url}/dispatch/keys.html"
    text = "one\ntwo"
    expected = await _events_of_playwright_typing(page, url, "#notes", text)
    tab, snap = await open_page(sw, page, url)
    await page.evaluate("() => { window.events.length = 0; }")
    result = await act(sw, tab, {"type": "type", "ref": ref(snap, "Notes"), "text": text}, snapshot=None)
    assert result.ok, result.error
    assert await page.evaluate(KEY_EVENTS) == expected
    assert await page.input_value("#notes") == text


async def test_fill_clears_the_field_with_a_backspace_and_leaves_only_the_new_value(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/keys.html")
    await page.evaluate("() => { window.events.length = 0; }")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Prefilled"), "text": "new"}, snapshot=None)
    assert result.ok, result.error
    assert await page.input_value("#prefilled") == "new"
    events = [e[1:3] + e[5:6] for e in await page.evaluate(KEY_EVENTS)]
    assert events[:4] == [["keydown", "Backspace", None], ["beforeinput", None, "deleteContentBackward"],
                          ["input", None, "deleteContentBackward"], ["keyup", "Backspace", None]]
    assert [e[1] for e in events[4:] if e[0] == "keydown"] == ["n", "e", "w"]


async def test_emoji_and_letters_no_key_types_still_arrive_inserted(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/keys.html")
    await page.evaluate("() => { window.events.length = 0; }")
    text = "Café 👋🏽 ok"
    result = await act(sw, tab, {"type": "type", "ref": ref(snap, "Line"), "text": text}, snapshot=None)
    assert result.ok, result.error
    assert await page.input_value("#line") == text
    keys = [e[2] for e in await page.evaluate(KEY_EVENTS) if e[1] == "keydown"]
    assert keys == ["C", "a", "f", " ", " ", "o", "k"], "what the layout types goes by key, the rest is inserted"


async def test_jquery_ui_autocomplete_narrows_to_what_was_typed_and_arrow_down_enter_picks_texas(sw, page, widgets):
    tab, snap = await open_page(sw, page, f"{widgets}/pages/autocomplete.html")
    state = ref(snap, "State")
    assert (await act(sw, tab, {"type": "fill", "ref": state, "text": "Tex"}, snapshot=None)).ok
    shown = await page.locator("ul.ui-autocomplete li:visible").all_inner_texts()
    assert shown == ["Texas"], f"the list shows only what matches 'Tex': {shown}"
    assert (await act(sw, tab, {"type": "press", "key": "ArrowDown", "ref": state}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "press", "key": "Enter", "ref": state}, snapshot=None)).ok
    assert await page.input_value("#state") == "Texas"


async def test_djangos_permission_filter_which_filters_on_keyup_filters_what_was_typed(sw, page, django_admin):
    tab, snap = await open_page(sw, page, f"{django_admin}/pages/django_selectfilter.html")
    result = await act(sw, tab, {"type": "type", "ref": ref(snap, "filter down the list of available permissions"), "text": "book"}, snapshot=None)
    assert result.ok, result.error
    shown = await page.locator("#id_permissions_from option").all_inner_texts()
    assert shown == [f"Library | book | Can {verb} book" for verb in ("add", "change", "delete", "view")]
    choose_all = ref(await snapshot(sw, tab), "Choose all permissions")
    assert (await act(sw, tab, {"type": "click", "ref": choose_all}, snapshot=None)).ok
    assert len(await page.locator("#id_permissions_to option").all_inner_texts()) == 4, "Choose all moved only the book permissions"


async def test_without_the_debugger_typing_still_fires_each_key_as_playwrights_keyboard_does(sw, page, site_url):
    url = f"{site_url}/dispatch/keys.html"
    text = "Tex, 42"
    expected = await _events_of_playwright_typing(page, url, "#line", text)
    tab, snap = await open_page(sw, page, url)
    await page.evaluate("() => { window.events.length = 0; }")
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "type", "ref": ref(snap, "Line"), "text": text}, snapshot=None)
    finally:
        await release_debugger(sw, tab)
    assert result.ok and result.path == "synthetic", result
    assert await page.evaluate(KEY_EVENTS) == expected
    assert await page.input_value("#line") == text
