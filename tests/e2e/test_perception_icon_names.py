"""Names with CSS generated content's alternative text (`content: X / "alt"`), as Chrome reads them,
on Font Awesome 7's own stylesheet (npm @fortawesome/fontawesome-free 7, tests/widgets), whose icons
draw their glyph with an empty alternative text."""

from __future__ import annotations

from tests.e2e.chrome_ax import compare
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.perception_helpers import snapshot


async def test_a_font_awesome_icon_link_is_named_by_its_text_as_chrome_names_it(sw, page, widgets):
    await page.goto(f"{widgets}/pages/icon_names.html")
    snap = await snapshot(sw, page)
    agreement = await compare(sw, page, await tab_id_of(sw, page), snap)
    assert sorted(" ".join(p.chrome_name.split()) for p in agreement.pairs) == ["Basket", "Login or register", "Search"]
    assert agreement.name_misses() == []
    assert '"Login or register"' in snap["text"] and '" / "' not in snap["text"]
