"""The way back to a run from the side panel: the task card ends with the run's outcome, and the
summary's trace link opens the run's trace as a page (its HTML, written by the host), not JSON."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from tests.e2e.test_sidepanel import SHOP_STEPS, Panel, configure, scripted, tab_id_of
from tests.e2e.test_sidepanel_layout import shop_tab  # noqa: F401 - the fixture


async def test_a_finished_run_shows_its_outcome_on_the_task_card_and_opens_its_trace_page(browser: Any, sw: Any, shop_tab: Any):  # noqa: F811
    await configure(sw, chat=scripted(steps=SHOP_STEPS), confirm_policy="allow")
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 400, "height": 800})
    panel = await Panel(page).open(browser.extension_id, await tab_id_of(sw, shop_tab.url))
    await panel.connected()

    summary = await panel.run_to_done()
    badge = page.locator("#agent-timeline .entry-task .badge")
    await expect(badge).to_have_text("done")
    await expect(badge).to_have_class("badge ok")

    async with browser.context.expect_page() as opened:
        await summary.get_by_role("link", name="Open the run's trace").click()
    trace = await opened.value
    await trace.wait_for_load_state()
    assert trace.url.startswith("file://") and trace.url.endswith("/trace.html")
    await expect(trace.get_by_role("heading", level=1)).to_have_text(f"Waymark run {trace.url.split('/')[-2]}")
    await expect(trace.locator(".summary")).to_contain_text("2/2 steps verified")
    assert panel.errors == []
    await trace.close()
    await page.close()
