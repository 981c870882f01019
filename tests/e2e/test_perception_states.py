"""Values and states as the page holds them, checked against Chrome's own accessibility tree
(`Accessibility.getFullAXTree`) on widgets of the libraries real sites use, loaded from their npm
packages' dist files (tests/widgets), and on the shapes of the WAI-ARIA Authoring Practices
patterns: the snapshot's value, checked, expanded, selected, pressed, level and haspopup equal
Chrome's on every element both list. Where Chrome's tree (as the DevTools protocol gives it) has
no answer (aria-current, aria-sort, aria-valuetext), the page's own ARIA attributes are the
authority."""

from __future__ import annotations

from typing import Any

from tests.e2e.chrome_ax import ax_ancestors, ax_nodes, chrome_states, state_misses
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.perception_helpers import snapshot

#: Every web component of a page is defined (Shoelace loads its components as modules).
COMPONENTS_DEFINED = "() => [...document.querySelectorAll('*')].every((e) => !e.localName.includes('-') || customElements.get(e.localName))"


async def _states(sw: Any, page: Any, url: str) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The page's snapshot and Chrome's AX node of each of its elements, once its widgets are built."""
    await page.goto(url)
    await page.wait_for_function(COMPONENTS_DEFINED)
    snap = await snapshot(sw, page, max_chars=100_000)
    nodes, _ = await ax_nodes(sw, page, await tab_id_of(sw, page), snap)
    return snap, nodes


def _one(snap: dict[str, Any], role: str, name: str) -> dict[str, Any]:
    found = [e for e in snap["elements"] if e["role"] == role and e["name"] == name]
    assert len(found) == 1, f"expected one {role} {name!r} in:\n{snap['text']}"
    return found[0]


def _chrome(nodes: dict[int, dict[str, Any]], element: dict[str, Any]) -> dict[str, Any]:
    return chrome_states(nodes[element["ref"]])


async def test_nouislider_handles_say_their_values_as_chrome_does(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/states_nouislider.html")
    assert state_misses(snap, nodes) == []
    low, high = _one(snap, "slider", "Lowest price"), _one(snap, "slider", "Highest price")
    assert (low["value"], high["value"]) == ("25", "70") == (_chrome(nodes, low)["value"], _chrome(nodes, high)["value"])
    # The library's formatted words for the value, as its handle's aria-valuetext says them.
    assert (low["states"]["valuetext"], high["states"]["valuetext"]) == ("$25", "$70")
    assert '[%d] slider "Lowest price" value="25" valuetext="$25"' % low["ref"] in snap["text"]


async def test_jquery_ui_spinner_progressbar_and_selectmenu_say_their_values_as_chrome_does(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/states_jquery_ui.html")
    assert state_misses(snap, nodes) == []
    progress = _one(snap, "progressbar", "Upload")
    assert progress["value"] == "14" == _chrome(nodes, progress)["value"]
    menu = next(e for e in snap["elements"] if e["role"] == "combobox" and e.get("options") is None)
    assert menu["value"] == "Medium" == _chrome(nodes, menu)["value"]
    assert menu["states"]["haspopup"] == "menu"


async def test_select2_shows_its_chosen_value_on_its_combobox_as_chrome_does(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/states_selects.html")
    assert state_misses(snap, nodes) == []
    select2 = next(e for e in snap["elements"] if e["role"] == "combobox" and e.get("options") is None and e["name"] == "Alaska")
    assert select2["value"] == "Alaska" == _chrome(nodes, select2)["value"]
    assert select2["states"]["expanded"] is False


async def test_a_shoelace_mixed_checkbox_reads_mixed_and_never_checked(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/states_shoelace.html")
    assert state_misses(snap, nodes) == []
    mixed, checked = _one(snap, "checkbox", "Select all"), _one(snap, "checkbox", "Email me")
    assert mixed["states"]["checked"] == "mixed" == _chrome(nodes, mixed)["checked"]
    assert checked["states"]["checked"] is True


async def test_shoelace_tree_items_say_their_level_as_chrome_does(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/states_shoelace.html")
    folder, file = _one(snap, "treeitem", "Documents"), _one(snap, "treeitem", "Report.pdf")
    assert (folder["states"]["level"], file["states"]["level"]) == (1, 2)
    assert (_chrome(nodes, folder)["level"], _chrome(nodes, file)["level"]) == (1, 2)
    assert folder["states"]["expanded"] is True and file["states"]["selected"] is True


async def test_shoelace_range_and_progress_bar_say_their_values_as_chrome_does(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/states_shoelace.html")
    volume, upload = _one(snap, "slider", "Volume"), _one(snap, "progressbar", "Upload progress")
    assert (volume["value"], upload["value"]) == ("40", "60") == (_chrome(nodes, volume)["value"], _chrome(nodes, upload)["value"])


async def test_aria_pattern_widgets_say_their_values_and_states_as_chrome_does(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/apg_patterns.html")
    assert state_misses(snap, nodes) == []
    expected = {
        ("checkbox", "All toppings"): {"checked": "mixed"},
        ("button", "Bold"): {"pressed": True},
        ("button", "Actions"): {"haspopup": "menu", "expanded": False},
        ("slider", "Temperature"): {"value": "25"},
        ("spinbutton", "Day"): {"value": "11"},
        ("meter", "Battery"): {"value": "62"},
        ("combobox", "Favourite fruit"): {"value": "Choose a Fruit", "haspopup": "listbox"},
        ("treeitem", "project-1.docx"): {"level": 2, "selected": True},
        ("tab", "Security"): {"selected": True},
    }
    for (role, name), states in expected.items():
        chrome = _chrome(nodes, _one(snap, role, name))
        assert {k: chrome.get(k) for k in states} == states, (role, name, chrome)


async def test_repeated_row_buttons_say_the_row_they_are_in_as_chrome_names_its_first_cell(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/apg_patterns.html")
    edits = [e for e in snap["elements"] if e["name"] == "Edit"]
    rows = await ax_ancestors(page, nodes, [e["ref"] for e in edits], "row")
    assert [e["states"].get("row") for e in edits] == [r["children"][0]["name"]["value"] for r in rows] == ["Alice Martin", "Bob Stone"]
    assert '[%d] button "Edit" row="Bob Stone"' % edits[1]["ref"] in snap["text"]


async def test_feed_buttons_say_their_article_as_chrome_names_it(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/apg_patterns.html")
    saves = [e for e in snap["elements"] if e["name"] == "Save"]
    articles = await ax_ancestors(page, nodes, [e["ref"] for e in saves], "article")
    assert [e["states"].get("article") for e in saves] == [a["name"]["value"] for a in articles] == ["Rain expected", "New bridge opens"]


async def test_date_grid_days_are_gridcells_that_say_their_month_as_chrome_names_the_grid(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/apg_patterns.html")
    days = [e for e in snap["elements"] if e["name"] in ("1", "2")]
    assert [e["role"] for e in days] == ["gridcell", "gridcell"] == [nodes[e["ref"]]["role"]["value"] for e in days]
    grids = await ax_ancestors(page, nodes, [e["ref"] for e in days], "grid")
    assert [e["states"].get("grid") for e in days] == [g["name"]["value"] for g in grids] == ["February 2026"] * 2


async def test_current_step_and_sort_order_are_read_as_the_page_marks_them(sw, page, widgets):
    # Chrome's tree, as the DevTools protocol gives it, has no property for aria-current or
    # aria-sort: the page's own attributes are the authority here.
    snap, _ = await _states(sw, page, f"{widgets}/pages/apg_patterns.html")
    assert _one(snap, "link", "Address")["states"]["current"] == "step"
    assert "current" not in _one(snap, "link", "Cart")["states"]
    assert _one(snap, "button", "Name")["states"]["sort"] == "ascending"
    assert "sort" not in _one(snap, "button", "Email")["states"]  # aria-sort="none" says no order


async def test_an_admin_indexs_repeated_add_links_say_their_model_as_chrome_names_the_row_header(sw, page, widgets):
    snap, nodes = await _states(sw, page, f"{widgets}/pages/django_admin_shapes.html")
    adds = [e for e in snap["elements"] if e["name"] == "Add"]
    rows = await ax_ancestors(page, nodes, [e["ref"] for e in adds], "row")
    headers = [next(c for c in r["children"] if c["role"]["value"] == "rowheader")["name"]["value"] for r in rows]
    assert [e["states"].get("row") for e in adds] == headers == ["Groups", "Users"]


async def test_inline_formset_fields_are_unnamed_as_chrome_leaves_them_and_say_their_field(sw, page, widgets):
    # Chrome names no field from its column header: the snapshot gives none either, and the
    # form's own field name (Django's product_set-0-name) tells the rows apart.
    snap, nodes = await _states(sw, page, f"{widgets}/pages/django_admin_shapes.html")
    fields = [e for e in snap["elements"] if e["role"] in ("textbox", "spinbutton", "checkbox")]
    assert [e["name"] for e in fields] == [nodes[e["ref"]].get("name", {}).get("value", "") for e in fields] == [""] * 6
    assert [e["field"] for e in fields[:3]] == ["product_set-0-name", "product_set-0-price", "product_set-0-DELETE"]
