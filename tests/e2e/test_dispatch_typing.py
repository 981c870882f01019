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
from waymark.host.core.browser_api import ActionResult

KEYS_PAGE = "{}/dispatch/keys.html"
KEY_EVENTS = "() => window.events.map(e => [e.field, e.type, e.key, e.code, e.keyCode, e.inputType, e.data])"
CLEAR_EVENTS = "() => { window.events.length = 0; }"


async def _events_of_playwright_typing(page: Any, url: str, selector: str, text: str) -> list[list[Any]]:
    """The events Playwright's `keyboard.type` fires on the page: the outside authority."""
    await page.goto(url)
    await page.focus(selector)
    await page.evaluate(CLEAR_EVENTS)
    await page.keyboard.type(text)
    return await page.evaluate(KEY_EVENTS)


async def _events_of_our_typing(sw: Any, page: Any, url: str, field: str, action: dict[str, Any],
                                synthetic: bool = False) -> tuple[ActionResult, list[list[Any]]]:
    """The action on the field named `field`, through the host (`synthetic`: with the debugger
    held by another, as the fallback meets it), and the events the page saw."""
    tab, snap = await open_page(sw, page, url)
    await page.evaluate(CLEAR_EVENTS)
    if synthetic:
        await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {**action, "ref": ref(snap, field)}, snapshot=None)
    finally:
        if synthetic:
            await release_debugger(sw, tab)
    assert result.ok, result.error
    return result, await page.evaluate(KEY_EVENTS)


async def test_typing_fires_the_key_events_playwrights_keyboard_fires(sw, page, site_url):
    text = "Hi, Tex! 42 #a_b"
    expected = await _events_of_playwright_typing(page, KEYS_PAGE.format(site_url), "#line", text)
    _, events = await _events_of_our_typing(sw, page, KEYS_PAGE.format(site_url), "Line", {"type": "type", "text": text})
    assert events == expected
    assert await page.input_value("#line") == text
    assert [e[1] for e in expected].count("keydown") == len(text), "one keydown per character"


async def test_typing_a_line_break_in_a_textarea_presses_enter_as_playwright_does(sw, page, site_url):
    text = "one\ntwo"
    expected = await _events_of_playwright_typing(page, KEYS_PAGE.format(site_url), "#notes", text)
    _, events = await _events_of_our_typing(sw, page, KEYS_PAGE.format(site_url), "Notes", {"type": "type", "text": text})
    assert events == expected
    assert await page.input_value("#notes") == text


async def test_a_line_break_typed_into_a_one_line_field_is_a_space_and_submits_nothing(sw, page, site_url):
    url = KEYS_PAGE.format(site_url)
    _, events = await _events_of_our_typing(sw, page, url, "Line", {"type": "type", "text": "ab\ncd"})
    assert "Enter" not in [e[2] for e in events]
    assert page.url == url, "the form around the field was not submitted"
    assert await page.input_value("#line") == "ab cd", "what Chrome makes of the text inserted whole"


async def test_a_text_past_the_keyed_length_is_inserted_but_for_its_last_key(sw, page, site_url):
    text = "lorem ipsum " * 50 + "end."
    result, events = await _events_of_our_typing(sw, page, KEYS_PAGE.format(site_url), "Notes", {"type": "type", "text": text})
    assert await page.input_value("#notes") == text
    assert [e[2] for e in events if e[1] == "keyup"] == ["."], "a page reading the value on a key still sees it once"
    assert result.model_dump()["typed"] == {"keys": 1, "inserted": len(text) - 1}


async def test_fill_clears_the_field_with_a_backspace_and_leaves_only_the_new_value(sw, page, site_url):
    _, seen = await _events_of_our_typing(sw, page, KEYS_PAGE.format(site_url), "Prefilled", {"type": "fill", "text": "new"})
    assert await page.input_value("#prefilled") == "new"
    events = [e[1:3] + e[5:6] for e in seen]
    assert events[:4] == [["keydown", "Backspace", None], ["beforeinput", None, "deleteContentBackward"],
                          ["input", None, "deleteContentBackward"], ["keyup", "Backspace", None]]
    assert [e[1] for e in events[4:] if e[0] == "keydown"] == ["n", "e", "w"]


async def test_emoji_and_letters_no_key_types_still_arrive_inserted(sw, page, site_url):
    text = "Café 👋🏽 ok"
    _, events = await _events_of_our_typing(sw, page, KEYS_PAGE.format(site_url), "Line", {"type": "type", "text": text})
    assert await page.input_value("#line") == text
    keys = [e[2] for e in events if e[1] == "keydown"]
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
    text = "Tex, 42"
    expected = await _events_of_playwright_typing(page, KEYS_PAGE.format(site_url), "#line", text)
    result, events = await _events_of_our_typing(sw, page, KEYS_PAGE.format(site_url), "Line", {"type": "type", "text": text}, synthetic=True)
    assert result.path == "synthetic", result
    assert events == expected
    assert await page.input_value("#line") == text
