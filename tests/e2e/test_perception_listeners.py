"""Elements a page made clickable only with script listeners (addEventListener, onclick
properties) are in the snapshot; text that merely sits under a delegated root listener is not."""

from __future__ import annotations

import pytest

from tests.e2e.perception_helpers import names, snapshot


@pytest.fixture
async def snap(sw, page, site_url):
    await page.goto(f"{site_url}/perception/listeners.html")
    return await snapshot(sw, page)


@pytest.mark.parametrize("name", ["Open report", "Leaf action", "Property handler", "Shadow action", "Photo tile 12 photos"])
async def test_an_element_with_its_own_pointer_listener_is_clickable(snap, name):
    found = [e for e in snap["elements"] if e["name"] == name]
    assert [e["role"] for e in found] == ["clickable"], snap["text"]


@pytest.mark.parametrize("name", ["Plain text", "Keyboard only", "Section title Section body"])
async def test_text_under_a_delegated_or_non_pointer_listener_is_not_an_element(snap, name):
    assert name not in names(snap), snap["text"]


async def test_the_page_sees_addEventListener_unchanged(page, site_url):
    await page.goto(f"{site_url}/perception/listeners.html")
    assert await page.evaluate("() => EventTarget.prototype.addEventListener.toString()") == "function addEventListener() { [native code] }"


async def test_the_page_sees_no_global_of_waymarks(page, site_url):
    await page.goto(f"{site_url}/perception/listeners.html")
    assert await page.evaluate("() => Object.getOwnPropertyNames(globalThis).filter((n) => /waymark/i.test(n))") == []


async def test_a_listened_card_around_its_own_link_is_listed_once_as_the_link(snap):
    """The listicle incident: every item's card, made clickable by a script around the item's
    link, was listed beside the link (precision 77% on the listicle page)."""
    assert [e["role"] for e in snap["elements"] if "Card title" in e["name"] or "card's story" in e["name"]] == ["link"], snap["text"]
