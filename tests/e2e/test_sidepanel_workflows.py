"""Workflows in the side panel, in real Chromium with the real extension and host: a finished run
offers "Save as workflow", the saved workflow is listed, and its Run button replays it in the
agent timeline with no model call."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from tests.conftest import ARTIFACTS
from tests.e2e import test_sidepanel as sidepanel_tests
from tests.e2e.test_sidepanel import Panel, configure

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.e2e]

#: The side panel tests' fixtures: the panel pinned to a fixture shop's tab.
shop = sidepanel_tests.shop
panel = sidepanel_tests.panel


async def _finished_run(panel: Panel, sw: Any) -> Any:
    await configure(sw, confirm_policy="allow")
    await panel.reconnect()
    return await panel.run_to_done()


async def test_a_finished_run_is_saved_as_a_workflow_and_listed(panel: Panel, sw: Any):
    summary = await _finished_run(panel, sw)
    await summary.get_by_label("Workflow name").fill("panel-buy-tea")
    await summary.get_by_role("button", name="Save as workflow").click()
    await expect(summary.locator(".saved")).to_have_text("Saved as workflow panel-buy-tea.")
    listed = panel.page.locator('#workflow-list li[data-name="panel-buy-tea"]')
    await expect(listed).to_contain_text("2 steps")
    await expect(listed).to_contain_text("Buy the green tea")


async def test_the_run_button_replays_a_saved_workflow_in_the_timeline_with_no_model_call(panel: Panel, sw: Any, browser: Any):
    summary = await _finished_run(panel, sw)
    await summary.get_by_label("Workflow name").fill("panel-replay")
    await summary.get_by_role("button", name="Save as workflow").click()
    await expect(summary.locator(".saved")).to_have_text("Saved as workflow panel-replay.")
    pages_before = len(browser.context.pages)
    await panel.page.locator('#workflow-list li[data-name="panel-replay"]').get_by_role("button", name="Run").click()
    replayed = panel.page.locator("#agent-summary .summary")
    await expect(replayed).to_contain_text("Replay: unchanged · 0 model calls", timeout=30000)
    await expect(replayed).to_have_attribute("data-outcome", "done")
    steps = panel.page.locator("#agent-timeline .entry-step")
    await expect(steps.locator(".badge")).to_have_text(["passed", "passed"])
    await expect(panel.page.locator("#agent-timeline .entry-task")).to_contain_text("Workflow: panel-replay")
    # The replay opened the workflow's start page in a tab of its own, where the order was placed again.
    assert len(browser.context.pages) == pages_before + 1
    await expect(browser.context.pages[-1].locator("#status")).to_have_text("Order placed")
    await browser.context.pages[-1].close()


async def test_saving_under_a_name_that_is_not_allowed_says_why(panel: Panel, sw: Any):
    summary = await _finished_run(panel, sw)
    await summary.get_by_label("Workflow name").fill("Not A Name!")
    await summary.get_by_role("button", name="Save as workflow").click()
    await expect(summary.locator(".saved")).to_contain_text("Not saved: 'Not A Name!' is not a workflow name")


async def test_a_saved_workflow_is_scheduled_paused_resumed_and_unscheduled_from_its_item(panel: Panel, sw: Any):
    from waymark.host.workflows import schedule

    summary = await _finished_run(panel, sw)
    await summary.get_by_label("Workflow name").fill("panel-scheduled")
    await summary.get_by_role("button", name="Save as workflow").click()
    item = panel.page.locator('#workflow-list li[data-name="panel-scheduled"]')
    await expect(item.locator(".schedule-when")).to_have_text("Not scheduled")

    await item.get_by_label("Schedule", exact=True).select_option(label="Every N hours")
    await item.get_by_label("How many").fill("2")
    await item.get_by_role("button", name="Schedule").click()
    # The place-order step is destructive: a scheduled run would have nobody to confirm it.
    await expect(item.locator(".schedule-status")).to_contain_text("is destructive")
    await item.get_by_label("Let scheduled runs do its destructive steps").check()
    await item.get_by_role("button", name="Schedule").click()
    await expect(item.locator(".schedule-when")).to_contain_text("Runs every 2h · next ")
    await expect(item.locator(".schedule-last")).to_have_text("Never ran yet.")
    assert schedule.get("panel-scheduled").approved == [2]
    ARTIFACTS.mkdir(exist_ok=True)
    await panel.page.screenshot(path=str(ARTIFACTS / "sidepanel-workflow-schedule.png"), full_page=True)

    await item.get_by_role("button", name="Pause").click()
    await expect(item.locator(".schedule-when")).to_have_text("Runs every 2h · paused")
    assert schedule.get("panel-scheduled").paused
    await item.get_by_role("button", name="Resume").click()
    await expect(item.locator(".schedule-when")).to_contain_text("· next ")
    await item.get_by_role("button", name="Remove schedule").click()
    await expect(item.locator(".schedule-when")).to_have_text("Not scheduled")
    assert "panel-scheduled" not in schedule.load_all()
