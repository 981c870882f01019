"""Acting inside same-origin and cross-origin iframes and closed shadow roots, with trusted input."""

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, ref, snapshot, tab_id_of


async def _open_with_two_frames(sw, page, url):
    """Open `url` and wait until both of its iframes have loaded; returns the tab id."""
    await wait_connected(sw)
    await page.goto(url)
    await page.wait_for_function("() => window.frames.length === 2 && Array.from(window.frames).every((f) => f)")
    for frame in page.frames[1:]:
        await frame.wait_for_load_state()
    return await tab_id_of(sw, page)


async def open_frames(sw, page, site_url, other_origin):
    tab = await _open_with_two_frames(sw, page, f"{site_url}/dispatch/frames.html?other={other_origin}")
    return tab, await snapshot(sw, tab)


def child(page, name):
    return next(f for f in page.frames if f"name={name}" in f.url)


async def test_click_inside_a_same_origin_iframe_is_trusted(sw, page, site_url, other_origin):
    tab, snap = await open_frames(sw, page, site_url, other_origin)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Press in same frame")})
    assert result.ok, result.error
    assert result.path == "cdp"
    frame = child(page, "same")
    assert await frame.text_content("#c") == "1"
    assert await frame.text_content("#t") == "true"


async def test_click_inside_a_cross_origin_iframe_is_trusted(sw, page, site_url, other_origin):
    tab, snap = await open_frames(sw, page, site_url, other_origin)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Press in cross frame")})
    assert result.ok, result.error
    frame = child(page, "cross")
    assert await frame.text_content("#c") == "1"
    assert await frame.text_content("#t") == "true"
    assert await child(page, "same").text_content("#c") == "0"


async def test_fill_inside_a_cross_origin_iframe(sw, page, site_url, other_origin):
    tab, snap = await open_frames(sw, page, site_url, other_origin)
    fields = [e for e in snap.elements if "Frame field" in e.name]
    cross = max(fields, key=lambda e: e.bbox[1])  # the cross-origin frame is the lower one
    result = await act(sw, tab, {"type": "fill", "ref": cross.ref, "text": "hello"})
    assert result.ok, result.error
    assert await child(page, "cross").input_value("#f") == "hello"
    assert await child(page, "same").input_value("#f") == ""


async def test_click_inside_a_closed_shadow_root_is_trusted(sw, page, site_url):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/shadow.html")
    tab = await tab_id_of(sw, page)
    snap = await snapshot(sw, tab)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Add one")})
    assert result.ok, result.error
    assert await page.text_content("#c") == "1"
    assert await page.text_content("#t") == "true"


async def test_a_click_in_a_frame_covered_by_a_banner_of_the_page_fails_as_occluded(sw, page, site_url, other_origin):
    tab, snap = await open_frames(sw, page, site_url, other_origin)
    target = ref(snap, "Press in cross frame")
    await page.evaluate("() => window.showBanner()")
    result = await act(sw, tab, {"type": "click", "ref": target})
    assert not result.ok
    assert result.error.code == "occluded"
    assert "banner" in result.error.message
    assert isinstance(result.error.data["occluder_ref"], int)
    assert await child(page, "cross").text_content("#c") == "0"


async def _let_the_pointer_through(page) -> None:
    """As the pointer arrives in the same-origin frame, the frame lets it through to the page
    around it (the iframe element takes no pointer events): a press that follows is delivered to
    the page, never to the frame. The page counts the presses it gets."""
    await child(page, "same").evaluate(
        "() => addEventListener('mousemove', (e) => { if (e.isTrusted) frameElement.style.pointerEvents = 'none'; })"
    )
    await page.evaluate("() => { window.pressesHere = 0; addEventListener('mousedown', () => { window.pressesHere++; }); }")


async def test_a_click_whose_press_never_arrives_in_the_frame_fails_as_press_lost(sw, page, site_url, other_origin):
    tab, snap = await open_frames(sw, page, site_url, other_origin)
    await _let_the_pointer_through(page)
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Press in same frame")})
    assert not result.ok
    assert result.error.code == "press_lost", result.error
    assert result.error.data == {"arrived": False}
    assert await child(page, "same").text_content("#c") == "0"
    assert await page.evaluate("() => window.pressesHere") == 1, "the press went to the page around the frame"


async def test_a_fill_whose_focusing_press_never_arrives_types_nothing(sw, page, site_url, other_origin):
    tab, snap = await open_frames(sw, page, site_url, other_origin)
    fields = [e for e in snap.elements if "Frame field" in e.name]
    field = min(fields, key=lambda e: e.bbox[1]).ref  # the same-origin frame is the upper one
    await _let_the_pointer_through(page)
    result = await act(sw, tab, {"type": "fill", "ref": field, "text": "lost"})
    assert not result.ok
    assert result.error.code == "press_lost", result.error
    assert await child(page, "same").input_value("#f") == ""


async def _open_checkout(sw, page, site_url, other_origin):
    return await _open_with_two_frames(sw, page, f"{site_url}/dispatch/frame_text.html?other={other_origin}")


async def test_the_text_of_a_page_includes_its_cross_origin_frames_in_order_labelled_by_origin(sw, page, site_url, other_origin):
    tab = await _open_checkout(sw, page, site_url, other_origin)
    result = await act(sw, tab, {"type": "extract"})
    assert result.ok, result
    text = result.text
    assert "Order total: 42.00" in text and "Card payment" in text
    assert text.index("Thank you for shopping") < text.index("Card payment")  # the top document first, then its frames
    assert f"[frame {other_origin}]" in text


async def test_the_text_of_a_page_skips_frames_that_have_no_size(sw, page, site_url, other_origin):
    tab = await _open_checkout(sw, page, site_url, other_origin)
    result = await act(sw, tab, {"type": "extract"})
    assert "tracker pixel text" not in result.text


async def test_extract_on_a_ref_reads_only_that_element_even_inside_a_cross_origin_frame(sw, page, site_url, other_origin):
    tab = await _open_checkout(sw, page, site_url, other_origin)
    snap = await snapshot(sw, tab)
    result = await act(sw, tab, {"type": "extract", "ref": ref(snap, "Coupon", "textbox")})
    assert result.text == "SPRING25"
