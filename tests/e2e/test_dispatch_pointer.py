"""drag, right_click and the pointer at screenshot coordinates, in real Chromium: trusted input,
HTML5 drag and drop, sliders, context menus, and points of the screenshot mapped to the element
drawn there on scrolled pages, inside cross-origin iframes and at device-pixel-ratio 2."""

from typing import Any

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import (
    act,
    open_page,
    ref,
    snapshot,
    tab_id_of,
)
from waymark.host.core.snapshot import Snapshot


def pixel(snap: Snapshot, element_ref: int) -> dict[str, float]:
    """The centre of an element as a point of the snapshot's screenshot (its pixels)."""
    element = snap.find(element_ref)
    assert element is not None and snap.screenshot_scale, "the snapshot must carry a screenshot"
    x, y, w, h = element.bbox
    return {"x": (x + w / 2) * snap.screenshot_scale, "y": (y + h / 2) * snap.screenshot_scale}


async def test_drag_onto_a_ref_reorders_a_mouse_driven_sortable_list(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    apple = ref(snap, "Apple")
    result = await act(sw, tab, {"type": "drag", "ref": ref(snap, "Cherry"), "to_ref": apple})
    assert result.ok, result.error
    assert result.path == "cdp"
    assert result.model_extra["drag"] == "mouse"
    assert await page.text_content("#order") == "Cherry,Apple,Banana"
    assert result.drop is not None and result.drop.ref == apple, "the result says where the drop landed"


async def test_drag_onto_a_drop_zone_carries_an_html5_drag_and_drop(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    column = ref(snap, "Done column")
    result = await act(sw, tab, {"type": "drag", "ref": ref(snap, "Write report"), "to_ref": column})
    assert result.ok, result.error
    assert result.model_extra["drag"] == "html5"
    assert await page.text_content("#dropped") == "card:Write report"
    assert await page.text_content("#drop-trusted") == "true"
    assert await page.text_content("#dragend") == "yes"
    assert result.drop is not None and column in result.drop.refs, "the result says where the drop landed"


async def test_drag_by_an_offset_moves_a_range_slider(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    result = await act(sw, tab, {"type": "drag", "ref": ref(snap, "Volume"), "dx": 90, "dy": 0})
    assert result.ok, result.error
    assert int(await page.text_content("#vol") or 0) > 70, "the thumb followed the pointer 90 px to the right"


async def test_drag_of_a_removed_element_is_a_stale_ref_and_moves_nothing(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    apple = ref(snap, "Apple")
    await page.evaluate("() => document.querySelector('#sortable li').remove()")
    result = await act(sw, tab, {"type": "drag", "ref": apple, "to_ref": ref(snap, "Cherry")}, snapshot=None)
    assert not result.ok
    assert result.error.code == "stale_ref"
    assert await page.text_content("#order") == "Apple,Banana,Cherry"


async def test_right_click_opens_the_page_s_own_context_menu_with_a_trusted_event(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    result = await act(sw, tab, {"type": "right_click", "ref": ref(snap, "report.pdf")})
    assert result.ok, result.error
    assert await page.text_content("#ctx") == "open"
    assert await page.text_content("#ctx-trusted") == "true"
    assert await page.text_content("#file-clicks") == "0", "a right click is not a click"
    assert "Rename" in (result.snapshot.text if result.snapshot else "")


async def test_click_at_a_screenshot_pixel_clicks_the_element_drawn_there_and_names_its_ref(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    shot = await snapshot(sw, tab, screenshot=True)
    target = ref(shot, "Right target")
    result = await act(sw, tab, {"type": "click_at", **pixel(shot, target)})
    assert result.ok, result.error
    assert await page.text_content("#last") == "Right target"
    assert await page.text_content("#trusted") == "true"
    assert result.hit is not None and result.hit.ref == target


async def test_click_at_on_a_scrolled_page_uses_the_screenshot_of_the_scrolled_viewport(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    await page.evaluate("() => document.getElementById('deep').scrollIntoView({block: 'center'})")
    assert await page.evaluate("() => window.scrollY") > 500
    shot = await snapshot(sw, tab, screenshot=True)
    result = await act(sw, tab, {"type": "click_at", **pixel(shot, ref(shot, "Deep target"))})
    assert result.ok, result.error
    assert await page.text_content("#last") == "Deep target"


async def test_click_at_inside_a_cross_origin_iframe_clicks_the_frame_s_button(sw, page, site_url, other_origin):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/frames.html?other={other_origin}")
    await page.wait_for_function("() => window.frames.length === 2 && Array.from(window.frames).every((f) => f)")
    for frame in page.frames[1:]:
        await frame.wait_for_load_state()
    tab = await tab_id_of(sw, page)
    shot = await snapshot(sw, tab, screenshot=True)
    button = ref(shot, "Press in cross frame")
    result = await act(sw, tab, {"type": "click_at", **pixel(shot, button)})
    assert result.ok, result.error
    cross = next(f for f in page.frames if "name=cross" in f.url)
    same = next(f for f in page.frames if "name=same" in f.url)
    assert await cross.text_content("#c") == "1"
    assert await cross.text_content("#t") == "true"
    assert await same.text_content("#c") == "0"
    assert result.hit is not None and result.hit.ref == button and result.hit.frame != 0


async def test_double_click_at_and_move_to_reach_the_element_under_the_point(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    shot = await snapshot(sw, tab, screenshot=True)
    double = await act(sw, tab, {"type": "double_click_at", **pixel(shot, ref(shot, "Twice target"))})
    moved = await act(sw, tab, {"type": "move_to", **pixel(shot, ref(shot, "Hover here"))})
    assert double.ok and moved.ok, (double.error, moved.error)
    assert await page.text_content("#dbl") == "1"
    assert await page.text_content("#hovered") == "yes"


async def test_drag_at_carries_a_card_between_two_screenshot_points(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    shot = await snapshot(sw, tab, screenshot=True)
    start, end = pixel(shot, ref(shot, "Write report")), pixel(shot, ref(shot, "Done column"))
    result = await act(sw, tab, {"type": "drag_at", "x": start["x"], "y": start["y"], "to_x": end["x"], "to_y": end["y"]})
    assert result.ok, result.error
    assert await page.text_content("#dropped") == "card:Write report"
    assert result.hit is not None and result.hit.ref == ref(shot, "Write report")


async def test_scroll_at_scrolls_the_box_under_the_point_not_the_page(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    shot = await snapshot(sw, tab, screenshot=True)
    result = await act(sw, tab, {"type": "scroll_at", **await centre_of(page, shot, "#box"), "direction": "down", "amount": 200})
    assert result.ok, result.error
    assert await page.evaluate("() => document.getElementById('box').scrollTop") == 200
    assert await page.evaluate("() => window.scrollY") == 0


async def centre_of(page_or_frame: Any, shot: Snapshot, selector: str, offset: tuple[float, float] = (0, 0)) -> dict[str, float]:
    """The screenshot point at the centre of an element with no ref (a scroll box is no control),
    in a frame whose viewport starts at `offset` (CSS pixels of the top document)."""
    box = await page_or_frame.evaluate("(s) => { const r = document.querySelector(s).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }", selector)
    scale = shot.screenshot_scale or 1
    return {"x": (box[0] + offset[0]) * scale, "y": (box[1] + offset[1]) * scale}




async def test_scroll_at_turns_a_trusted_wheel_that_scrolls_the_innermost_scroller_under_the_point(sw, page, site_url):
    tab, shot = await open_page(sw, page, f"{site_url}/dispatch/wheel.html", screenshot=True)
    result = await act(sw, tab, {"type": "scroll_at", **await centre_of(page, shot, "#inner"), "direction": "down", "amount": 120})
    assert result.ok, result.error
    assert result.path == "cdp"
    assert await page.evaluate("() => document.getElementById('inner').scrollTop") == 120
    assert await page.evaluate("() => document.getElementById('outer').scrollTop") == 0
    assert await page.evaluate("() => window.scrollY") == 0, "the page's own scroll stays put"
    assert result.model_extra["scroll"]["scrolled"] == [0, 120]
    assert "Inner list" in result.model_extra["scroll"]["target"]


async def test_scroll_at_is_seen_by_the_page_s_wheel_listeners_as_a_trusted_wheel(sw, page, site_url):
    tab, shot = await open_page(sw, page, f"{site_url}/dispatch/wheel.html", screenshot=True)
    result = await act(sw, tab, {"type": "scroll_at", **await centre_of(page, shot, "#inner"), "direction": "down", "amount": 120})
    assert result.ok, result.error
    assert await page.text_content("#wheels") == "1"
    assert await page.text_content("#wheel-trusted") == "true"
    assert await page.text_content("#wheel-dy") == "120"
    assert await page.text_content("#wheel-on") == "inner"


async def test_scroll_at_up_on_a_scroller_at_its_top_scrolls_nothing_and_says_so(sw, page, site_url):
    tab, shot = await open_page(sw, page, f"{site_url}/dispatch/wheel.html", screenshot=True)
    result = await act(sw, tab, {"type": "scroll_at", **await centre_of(page, shot, "#inner"), "direction": "up", "amount": 120})
    assert result.ok, result.error
    assert result.model_extra["scroll"]["at_edge"] is True
    assert await page.evaluate("() => window.scrollY") == 0


async def test_scroll_at_inside_a_cross_origin_iframe_scrolls_the_frame_s_scroller(sw, page, site_url, other_origin):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/framed.html?src=wheel.html&other={other_origin}")
    await page.wait_for_function("() => window.frames.length === 1 && window.frames[0]")
    frame = next(f for f in page.frames if f.url.endswith("/dispatch/wheel.html"))
    await frame.wait_for_load_state()
    tab = await tab_id_of(sw, page)
    shot = await snapshot(sw, tab, screenshot=True)
    origin = await page.evaluate("() => { const f = document.getElementById('inner'); const r = f.getBoundingClientRect(); return [r.x + f.clientLeft, r.y + f.clientTop]; }")
    result = await act(sw, tab, {"type": "scroll_at", **await centre_of(frame, shot, "#inner", tuple(origin)), "direction": "down", "amount": 90})
    assert result.ok, result.error
    assert await frame.evaluate("() => document.getElementById('inner').scrollTop") == 90
    assert await frame.text_content("#wheel-trusted") == "true"
    assert await page.evaluate("() => window.scrollY") == 0


async def test_scroll_at_without_the_debugger_fails_as_debugger_unavailable_and_scrolls_nothing(sw, page, site_url):
    tab, shot = await open_page(sw, page, f"{site_url}/dispatch/wheel.html", screenshot=True)
    await sw.evaluate("(tabId) => chrome.debugger.attach({tabId}, '1.3')", tab)
    try:
        result = await act(sw, tab, {"type": "scroll_at", **await centre_of(page, shot, "#inner"), "direction": "down", "amount": 120})
    finally:
        await sw.evaluate("(tabId) => chrome.debugger.detach({tabId}).catch(() => {})", tab)
    assert not result.ok
    assert result.error.code == "debugger_unavailable"
    assert await page.evaluate("() => document.getElementById('inner').scrollTop") == 0


async def test_click_at_a_point_outside_the_viewport_fails_and_clicks_nothing(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
    shot = await snapshot(sw, tab, screenshot=True)
    width = float(shot.viewport["width"]) * (shot.screenshot_scale or 1)
    result = await act(sw, tab, {"type": "click_at", "x": width + 50, "y": 10})
    assert not result.ok
    assert result.error.code == "outside_viewport"
    assert await page.text_content("#last") == "none"


async def test_click_at_maps_screenshot_pixels_at_device_pixel_ratio_2(playwright_instance, tmp_path, site_url):
    from tests.conftest import _host_env
    from waymark.host.launch import launch_browser

    launched = await launch_browser(playwright_instance, tmp_path / "profile", host_env=_host_env(),
                                    extra_args=["--force-device-scale-factor=2"], extension=await _diagnostic(tmp_path))
    try:
        sw = launched.service_worker
        page = await launched.context.new_page()
        tab, _ = await open_page(sw, page, f"{site_url}/dispatch/pointer.html")
        shot = await snapshot(sw, tab, screenshot=True)
        assert shot.screenshot_scale == 2, "the premise: the screenshot has two pixels per CSS pixel"
        target = ref(shot, "Right target")
        result = await act(sw, tab, {"type": "click_at", **pixel(shot, target)})
        assert result.ok, result.error
        assert await page.text_content("#last") == "Right target"
        assert result.hit is not None and result.hit.ref == target
    finally:
        await launched.close()


async def _diagnostic(tmp_path: Any) -> Any:
    from waymark.eval.sw_handle import diagnostic_extension

    return diagnostic_extension(tmp_path / "extension")


async def test_drag_between_two_refs_inside_a_cross_origin_iframe_carries_an_html5_drop(sw, page, site_url, other_origin):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/framed.html?src=pointer.html&other={other_origin}")
    await page.wait_for_function("() => window.frames.length === 1 && window.frames[0]")
    frame = next(f for f in page.frames if f.url.endswith("/dispatch/pointer.html"))
    await frame.wait_for_load_state()
    tab = await tab_id_of(sw, page)
    snap = await snapshot(sw, tab)
    column = ref(snap, "Done column")
    result = await act(sw, tab, {"type": "drag", "ref": ref(snap, "Write report"), "to_ref": column})
    assert result.ok, result.error
    assert result.model_extra["drag"] == "html5"
    assert await frame.text_content("#dropped") == "card:Write report"
    assert await frame.text_content("#drop-trusted") == "true"
    assert result.drop is not None and column in result.drop.refs and result.drop.frame != 0


async def test_scroll_at_at_device_pixel_ratio_2_wheels_the_scroller_drawn_at_the_screenshot_point(dpr2_browser, site_url):
    sw = dpr2_browser.service_worker
    page = await dpr2_browser.context.new_page()
    try:
        tab, shot = await open_page(sw, page, f"{site_url}/dispatch/wheel.html", screenshot=True)
        assert shot.screenshot_scale == 2, "the premise: the screenshot has two pixels per CSS pixel"
        result = await act(sw, tab, {"type": "scroll_at", **await centre_of(page, shot, "#inner"), "direction": "down", "amount": 120})
        assert result.ok, result.error
        assert await page.evaluate("() => document.getElementById('inner').scrollTop") == 120
        assert await page.evaluate("() => window.scrollY") == 0
    finally:
        await page.close()
