"""Actions on widgets of the libraries real sites use, loaded from their npm packages' dist files
(tests/widgets), in real Chromium with the real extension and host: each is proven by the
library's own state (its instance's value, the original <select> it drives, the input it fills),
and the snapshot lists what Chrome's accessibility tree lists (`Accessibility.getFullAXTree`)."""

from __future__ import annotations

from tests.e2e.chrome_ax import compare
from tests.e2e.dispatch_helpers import act, open_page, ref


async def test_flatpickr_lists_its_calendar_days_with_the_names_chrome_gives_them(sw, page, widgets):
    tab, snap = await open_page(sw, page, f"{widgets}/pages/states_flatpickr.html")
    days = await page.evaluate("() => [...document.querySelectorAll('.flatpickr-day')].map((d) => d.getAttribute('aria-label'))")
    listed = [e.name for e in snap.elements if e.name in days]
    assert listed == days and len(days) == 42, snap.text  # every day of the six-week grid, in its order
    agreement = await compare(sw, page, tab, snap.model_dump())
    assert [p for p in agreement.pairs if p.ours_name in days and not p.name_agrees()] == []
    assert {p.chrome_name for p in agreement.pairs if p.ours_name in days} == set(days)


async def test_a_click_on_a_flatpickr_day_picks_that_date_as_the_library_says(sw, page, widgets):
    tab, snap = await open_page(sw, page, f"{widgets}/pages/states_flatpickr.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "January 20, 2026")})
    assert result.ok, result.error
    assert await page.input_value("#arrival") == "2026-01-20"
    assert await page.evaluate("() => window.arrival.selectedDates.map((d) => d.toDateString())") == ["Tue Jan 20 2026"]


async def test_select_on_a_choices_js_single_select_chooses_the_option_in_the_library_and_its_select(sw, page, widgets):
    tab, snap = await open_page(sw, page, f"{widgets}/pages/states_selects.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Colour", role="listbox"), "value": "Blue"})
    assert result.ok, result.error
    assert result.model_extra["selected"]["label"] == "Blue"
    assert await page.evaluate("() => [window.colour.getValue(true), document.getElementById('colour').value]") == ["Blue", "Blue"]
    after = result.snapshot
    assert after is not None and any(e.role == "option" and e.name == "Blue" and e.states.get("selected") for e in after.elements), after.text


async def test_select2s_search_box_shows_what_was_typed_into_it(sw, page, widgets):
    tab, snap = await open_page(sw, page, f"{widgets}/pages/states_selects.html")
    opened = await act(sw, tab, {"type": "click", "ref": ref(snap, "Alaska", role="combobox")})
    assert opened.ok, opened.error
    search = next(e for e in opened.snapshot.elements if e.role == "searchbox")
    typed = await act(sw, tab, {"type": "type", "ref": search.ref, "text": "Te"})
    assert typed.ok, typed.error
    assert await page.input_value(".select2-search__field") == "Te"
    box = next(e for e in typed.snapshot.elements if e.ref == search.ref)
    assert box.value == "Te", typed.snapshot.text
    assert [e.name for e in typed.snapshot.elements if e.role == "option" and e.name in ("Alabama", "Alaska", "Texas")] == ["Texas"]
