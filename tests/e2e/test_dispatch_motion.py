"""Pressing where the element is: an element a script or an animation is still moving is pressed
where it comes to rest, a page that has answered trusted input gets the pointer's move together
with the press (and still sees the move first), and a page that freezes under that move is
pressed once at most."""

from __future__ import annotations

import pytest

from tests.e2e.dispatch_helpers import act, open_page, ref


async def _warm(sw, page, site_url):
    """Open the page and click once, so the page has answered trusted input."""
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/motion.html")
    warm = await act(sw, tab, {"type": "click", "ref": ref(snap, "Warm up")}, snapshot=None)
    assert warm.ok and warm.path == "cdp", warm.error
    return tab, snap


@pytest.mark.parametrize(
    ("mover", "target"),
    [("slideByFrames", "Moving target"), ("slideByInterval", "Moving target"), ("growAbove", "Pushed target")],
    ids=["frame callbacks", "a short interval", "a css transition above it"],
)
async def test_an_element_still_moving_is_clicked_where_it_comes_to_rest(sw, page, site_url, mover, target):
    tab, snap = await _warm(sw, page, site_url)
    await page.evaluate(f"() => window.{mover}()")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, target)}, snapshot=None)
    assert result.ok, result.error
    assert await page.text_content("#clicks") == "1"
    resting = await page.evaluate("() => window.resting")
    assert await page.text_content("#clicked-at") == str(resting), "the press waited until the element stopped moving"


async def test_a_long_animation_elsewhere_does_not_hold_the_click_back(sw, page, site_url):
    tab, snap = await _warm(sw, page, site_url)
    await page.evaluate("() => window.startProgress()")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Moving target")}, snapshot=None)
    assert result.ok, result.error
    assert await page.text_content("#clicked-at") == "0"
    assert await page.evaluate("() => getComputedStyle(document.getElementById('progress')).width") != "600px", "the bar was still filling"


async def test_a_page_that_answered_input_still_sees_the_pointer_arrive_before_the_press(sw, page, site_url):
    tab, snap = await _warm(sw, page, site_url)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Logged target")}, snapshot=None)
    assert result.ok and result.path == "cdp", result.error
    assert await page.text_content("#events") == "pointerover mouseover pointermove mousemove pointerdown mousedown pointerup mouseup click"


async def test_a_page_frozen_by_the_pointer_arriving_fails_the_click_as_input_stalled_and_is_pressed_once_at_most(sw, page, site_url):
    tab, snap = await _warm(sw, page, site_url)
    await page.evaluate("() => window.freezeOnPointer(4500)")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Moving target")}, snapshot=None)
    assert not result.ok
    assert result.error.code == "input_stalled", result.error
    assert "not sent again" in result.error.message
    await page.wait_for_function("() => performance.now() > 0")  # answers once the page is free again
    landed = await page.text_content("#clicks")
    assert landed in ("0", "1"), "the press waiting in the page was not repeated"
    # Until the page changes, input is synthetic: the next click is not left waiting behind it.
    again = await act(sw, tab, {"type": "click", "ref": ref(snap, "Moving target")}, snapshot=None)
    assert again.ok and again.path == "synthetic", again.error
    assert await page.text_content("#clicks") == str(int(landed) + 1)
