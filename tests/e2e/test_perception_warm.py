"""Perception: a warm snapshot reuses names read before (content/name_cache.js) and still shows
every change to what a name is read from."""

from __future__ import annotations

from tests.e2e.perception_helpers import by_name, names, snapshot

PAGE = "perception/warm_names.html"


async def test_a_changed_text_renames_its_button_in_the_next_snapshot(sw, page, site_url):
    await page.goto(f"{site_url}/{PAGE}")
    assert by_name(await snapshot(sw, page), "Items 1")
    await page.evaluate("() => { document.getElementById('count').textContent = 'Items 2'; }")
    after = names(await snapshot(sw, page))
    assert "Items 2" in after and "Items 1" not in after


async def test_a_class_on_an_ancestor_that_hides_part_of_a_name_shortens_it(sw, page, site_url):
    await page.goto(f"{site_url}/{PAGE}")
    assert by_name(await snapshot(sw, page), "Read the whole story")
    await page.evaluate("() => document.getElementById('main').classList.add('compact')")
    assert by_name(await snapshot(sw, page), "Read")["role"] == "link"


async def test_typing_into_a_control_inside_a_name_changes_the_name(sw, page, site_url):
    await page.goto(f"{site_url}/{PAGE}")
    assert by_name(await snapshot(sw, page), "Quantity 1")
    await page.fill("#qty-input", "3")
    assert by_name(await snapshot(sw, page), "Quantity 3")["role"] == "button"


async def test_a_stylesheet_added_later_changes_the_names_it_styles(sw, page, site_url):
    await page.goto(f"{site_url}/{PAGE}")
    assert by_name(await snapshot(sw, page), "Search")
    await page.evaluate("() => document.head.insertAdjacentHTML('beforeend', '<style>.icon::before { content: \"Go \"; }</style>')")
    assert by_name(await snapshot(sw, page), "Go Search")["role"] == "link"


async def test_a_change_inside_a_closed_shadow_root_renames_its_button(sw, page, site_url):
    await page.goto(f"{site_url}/{PAGE}")
    assert by_name(await snapshot(sw, page), "Play")
    await page.evaluate("() => window.setShadowLabel('Pause')")
    after = names(await snapshot(sw, page))
    assert "Pause" in after and "Play" not in after


async def test_a_resized_viewport_reads_names_again(sw, page, site_url):
    await page.goto(f"{site_url}/{PAGE}")
    await page.evaluate("() => document.head.insertAdjacentHTML('beforeend', '<style>@media (max-width: 700px) { #count { text-transform: uppercase; } }</style>')")
    assert by_name(await snapshot(sw, page), "Items 1")
    await page.set_viewport_size({"width": 600, "height": 800})
    assert by_name(await snapshot(sw, page), "ITEMS 1")["role"] == "button"
