"""Pages of the shapes perception once missed elements on, held to at least 95% recall and 95%
precision of visible interactive elements against an independent count in every frame
(tests/e2e/visible_count.py): a news front page with thirty cross-origin advertising frames, a
sticky masthead, a fixed anchor ad and stories loaded on scroll; a listicle whose cards a script
makes clickable around their own links, beside a fixed share bar and a sticky header."""

from __future__ import annotations

import pytest

from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.perception_helpers import snapshot
from tests.e2e.visible_count import Count, count

TARGET = 0.95


async def _measure(sw, page, url: str, scroll: int) -> tuple[dict, Count]:
    await page.goto(url, wait_until="networkidle")
    if scroll:
        await page.mouse.wheel(0, scroll)
        await page.wait_for_load_state("networkidle")
    snap = await snapshot(sw, page, max_chars=1_000_000)
    return snap, await count(sw, page, await tab_id_of(sw, page), snap)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("scroll", [0, 1400], ids=["top", "scrolled"])
async def test_a_news_front_page_with_thirty_cross_origin_ad_frames_reaches_95_percent_recall_and_precision(sw, page, site_url, other_origin, scroll):
    snap, counted = await _measure(sw, page, f"{site_url}/perception/news_front.html?ads={other_origin}", scroll)
    assert counted.total >= 140 and snap["stats"]["frames"] >= 30, (counted, snap["stats"])
    assert counted.recall >= TARGET, f"{counted}; missed: {counted.missed[:10]}"
    assert counted.precision >= TARGET, f"{counted}; extra: {counted.extras[:10]}"


@pytest.mark.timeout(240)
@pytest.mark.parametrize("scroll", [0, 1400], ids=["top", "scrolled"])
async def test_a_listicle_reaches_95_percent_recall_and_precision(sw, page, site_url, scroll):
    snap, counted = await _measure(sw, page, f"{site_url}/perception/listicle.html", scroll)
    assert counted.total >= 45, counted
    assert counted.recall >= TARGET, f"{counted}; missed: {counted.missed[:10]}"
    assert counted.precision >= TARGET, f"{counted}; extra: {counted.extras[:10]}"


@pytest.mark.timeout(240)
async def test_links_scrolled_under_a_sticky_masthead_stay_listed(sw, page, site_url, other_origin):
    """The news front page incident: stories scrolled under the sticky masthead, and the one
    under the fixed anchor ad, were dropped as occluded and the bar listed as a layer, though
    scrolling (as dispatch does before it clicks) brings them out from under it."""
    await page.goto(f"{site_url}/perception/news_front.html?ads={other_origin}", wait_until="networkidle")
    await page.evaluate("() => scrollTo(0, 1400)")
    await page.wait_for_load_state("networkidle")
    header = await page.locator(".masthead").bounding_box()
    under = await page.evaluate("""(bottom) => Array.from(document.querySelectorAll("main a"))
        .filter((a) => { const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < bottom; })
        .map((a) => a.textContent.trim()).filter(Boolean)""", header["y"] + header["height"])
    assert under, "the test needs a story link under the masthead"
    snap = await snapshot(sw, page, max_chars=1_000_000)
    assert set(under) <= {e["name"] for e in snap["elements"]}
    assert snap["stats"]["occluded"] == 0 and not any("occluding" in e["states"] for e in snap["elements"])


async def test_buttons_under_a_modal_backdrop_stay_occluded_beside_edge_bars(sw, page, site_url):
    """Where the bar rule must stay quiet: a backdrop over the whole viewport still hides."""
    await page.goto(f"{site_url}/perception/cookie.html")
    snap = await snapshot(sw, page)
    assert snap["stats"]["occluded"] == 3
