"""Perception: refs are stable for an element's life, and a removed element's ref is stale forever."""

from __future__ import annotations

from tests.e2e.perception_helpers import by_name, ref_info, snapshot
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import find_elements

_CONTENT_REGISTRY_JS = """async (tabId) => {
  const [r] = await chrome.scripting.executeScript({target: {tabId}, func: () => globalThis.__waymark.registrySize()});
  return r.result;
}"""


async def test_an_element_keeps_its_ref_across_snapshots_and_a_rerender_of_its_neighbours(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    first = await snapshot(sw, page)
    await page.evaluate("() => { window.rerender(); window.addButton(); }")
    second = await snapshot(sw, page)
    assert by_name(second, "Kept button")["ref"] == by_name(first, "Kept button")["ref"]


async def test_a_rerendered_element_gets_a_new_ref(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    first = await snapshot(sw, page)
    await page.evaluate("() => window.rerender()")
    second = await snapshot(sw, page)
    old, new = by_name(first, "Replaced button")["ref"], by_name(second, "Replaced button")["ref"]
    assert new != old
    all_refs = [e["ref"] for e in first["elements"]]
    assert new > max(all_refs)


async def test_the_ref_of_a_removed_element_is_stale_and_never_rebound_to_a_look_alike(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    first = await snapshot(sw, page)
    old = by_name(first, "Replaced button")["ref"]
    await page.evaluate("() => window.rerender()")
    await snapshot(sw, page)
    [info] = await ref_info(sw, first["tab_id"], [old])
    assert info["live"] is False
    kept = by_name(first, "Kept button")["ref"]
    [alive] = await ref_info(sw, first["tab_id"], [kept])
    assert (alive["live"], alive["text"]) == (True, "Kept button")


async def test_an_element_that_appears_before_the_others_is_first_in_document_order_with_a_higher_ref(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    await snapshot(sw, page)
    await page.evaluate("() => { const b = document.createElement('button'); b.textContent = 'Came late'; document.body.prepend(b); }")
    snap = Snapshot.model_validate(await snapshot(sw, page))
    buttons = find_elements(snap, {"role": "button"})
    assert buttons[0].name == "Came late"
    assert buttons[0].ref > max(b.ref for b in buttons[1:])
    assert [b.order for b in buttons] == sorted(b.order for b in buttons)


async def test_a_page_that_rerenders_again_and_again_does_not_grow_either_ref_registry(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    first = await snapshot(sw, page)
    tab = first["tab_id"]
    for _ in range(20):
        await page.evaluate("() => window.rerender()")
        await snapshot(sw, page)
    content_size = await sw.evaluate(_CONTENT_REGISTRY_JS, tab)
    table_size = await sw.evaluate("(t) => globalThis.waymark.snapshot.refTableSize(t)", tab)
    live = len((await snapshot(sw, page))["elements"])
    assert content_size <= live + 5
    assert table_size <= live + 5


async def test_acting_on_a_ref_forgotten_after_a_rerender_is_a_stale_ref_with_a_fresh_snapshot(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    first = await snapshot(sw, page)
    old = by_name(first, "Replaced button")["ref"]
    await page.evaluate("() => window.rerender()")
    await snapshot(sw, page)
    result = await sw.evaluate("(p) => globalThis.waymark.call('act', p)", {"tab_id": first["tab_id"], "action": {"type": "click", "ref": old}})
    assert result["ok"] is False
    assert result["error"]["code"] == "stale_ref"
    assert by_name(result["snapshot"], "Replaced button")["ref"] != old


async def test_the_next_page_of_a_tab_numbers_its_refs_from_1_in_a_new_generation(sw, page, site_url):
    await page.goto(f"{site_url}/perception/rerender.html")
    first = await snapshot(sw, page)
    await page.goto(f"{site_url}/perception/rerender.html?again=1")
    second = await snapshot(sw, page)
    assert second["ref_generation"] == first["ref_generation"] + 1
    assert min(e["ref"] for e in second["elements"]) == 1
    assert by_name(second, "Kept button")["ref"] == by_name(first, "Kept button")["ref"]


async def test_refs_are_unique_across_frames(sw, page, site_url, other_origin):
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    refs = [e["ref"] for e in snap["elements"]]
    assert len(refs) == len(set(refs))
    assert len({e["frame"] for e in snap["elements"]}) == 6  # every frame that holds an element, the data: one included
    assert all(e["doc"] for e in snap["elements"])
