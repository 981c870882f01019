"""Every view of the side panel, in light and dark, at the narrowest (320 px) and the usual
(400 px) side-panel width: nothing scrolls sideways, the header and tabs stay in view, and each
is saved as a screenshot under test-artifacts/ to be looked at.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from tests.conftest import ARTIFACTS
from tests.e2e.test_sidepanel import (
    ANSWER,
    SHOP_STEPS,
    Panel,
    configure,
    scripted,
    tab_id_of,
)
from tests.e2e.test_sidepanel_layout import shop_tab  # noqa: F401 - the fixture

WIDTHS = (320, 400)
SCHEMES = ("light", "dark")


async def shoot(panel: Panel, name: str) -> None:
    """Screenshot `name` in every scheme and width, checking that it fits each."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width in WIDTHS:
        await panel.page.set_viewport_size({"width": width, "height": 800})
        for scheme in SCHEMES:
            await panel.page.emulate_media(color_scheme=scheme)
            await panel.page.screenshot(path=str(ARTIFACTS / f"panel-{name}-{scheme}-{width}.png"))
            fits = await panel.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
            assert fits, f"the {name} view scrolls sideways at {width} px"
            await expect(panel.page.locator("#tab-settings")).to_be_in_viewport(ratio=1)


async def test_every_panel_view_fits_320_and_400_px_in_light_and_dark(browser: Any, sw: Any, shop_tab: Any):  # noqa: F811
    await configure(sw, chat={"provider": "", "model": "", "options": {}}, diagnostics=True, confirm_policy="allow")
    page = await browser.context.new_page()
    panel = await Panel(page).open(browser.extension_id, await tab_id_of(sw, shop_tab.url))
    await expect(page.locator("#first-run")).to_be_visible(timeout=20000)
    await expect(page.locator("#first-run-local")).not_to_contain_text("Looking for", timeout=10000)
    await shoot(panel, "first-run")

    await configure(sw, chat=scripted([ANSWER], SHOP_STEPS), diagnostics=True, confirm_policy="allow")
    await panel.reconnect()
    await expect(page.locator("#first-run")).to_be_hidden()
    await panel.ask("Is the green tea in stock?", use_page=True)
    await panel.ask("And how much is it?")
    await shoot(panel, "chat")
    await panel.run_to_done()
    await shoot(panel, "agent")
    await page.locator("#tab-settings").click()
    await expect(page.locator("#settings-save")).to_be_attached()
    await shoot(panel, "settings")
    await page.locator("#tab-diagnostics").click()
    await shoot(panel, "diagnostics")
    assert panel.errors == []
    await page.close()
