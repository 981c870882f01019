"""Perception: the numbered-overlay screenshot."""

from __future__ import annotations

import base64
import io

from PIL import Image

from tests.e2e.perception_helpers import by_name, snapshot

LABEL_RGB = (0xFF, 0x00, 0xC8)


def _label_pixels(image: Image.Image) -> list[tuple[int, int]]:
    """Pixels close to the label fill (JPEG shifts colours a little)."""
    rgb = image.convert("RGB")
    w, h = rgb.size
    px = rgb.load()
    return [(x, y) for y in range(0, h, 2) for x in range(0, w, 2)
            if sum(abs(a - b) for a, b in zip(px[x, y], LABEL_RGB)) < 90]


async def test_the_overlay_label_is_drawn_inside_its_elements_box(sw, page, site_url):
    await page.goto(f"{site_url}/perception/label.html")
    snap = await snapshot(sw, page, screenshot=True)
    assert snap["stats"]["screenshot_labelled"] is True
    image = Image.open(io.BytesIO(base64.b64decode(snap["screenshot_b64"])))
    assert image.format == "JPEG"
    scale = image.width / snap["viewport"]["width"]
    x, y, w, h = (v * scale for v in by_name(snap, "Big target")["bbox"])
    pixels = _label_pixels(image)
    assert len(pixels) > 20
    # The filled label (not the outline) sits in the box's top-left corner, inside the box.
    inner = [(px, py) for px, py in pixels if x + 3 * scale < px < x + w - 3 * scale and y + 3 * scale < py < y + h - 3 * scale]
    assert inner, "no label pixels inside the element's box"
    assert all(px < x + w / 2 and py < y + h / 2 for px, py in inner)


async def test_a_snapshot_without_screenshot_has_none(sw, page, site_url):
    await page.goto(f"{site_url}/perception/label.html")
    snap = await snapshot(sw, page)
    assert snap["screenshot_b64"] is None


async def test_screenshots_asked_for_faster_than_chromes_capture_quota_all_arrive(sw, page, site_url):
    await page.goto(f"{site_url}/perception/label.html")
    await snapshot(sw, page)
    shots = await sw.evaluate("""async () => {
      const all = await Promise.all([1, 2, 3, 4].map(() => globalThis.waymark.call('snapshot', {screenshot: true})));
      return all.map((s) => Boolean(s.screenshot_b64));
    }""")
    assert shots == [True, True, True, True]
