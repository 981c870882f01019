"""Consent for attached MCP clients: the side panel asks the user to allow each client by name,
confirms their destructive actions, shares tabs with them, shows which clients are in control,
and Stop cuts them off at once."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import expect

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.mcp_helpers import (
    McpClient,
    SidePanel,
    admitted,
    control_socket,
    raw_connection,
    ref_of,
    text_of,
)
from waymark.host.control_client import ControlConnection, HostCallError

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: The agent asks the user first, then does what the answer says.
ASK_FIRST = {"steps": [
    {"intent": "Ask which panel to open", "action": {"type": "ask_user", "question": "Which panel should I open?"}, "verify": []},
    {"intent": "Open the panel", "action": {"type": "click", "target": {"name": "Open panel"}}, "verify": [{"text_present": "Opened the first panel"}]},
]}


@pytest_asyncio.fixture(loop_scope="session")
async def panel(browser: Any) -> Any:
    await wait_connected(browser.service_worker)
    opened = await SidePanel.open(browser)
    yield opened
    await opened.close()


async def test_a_new_client_waits_until_the_user_allows_it_by_name_in_the_side_panel(panel):
    async with McpClient(name="Claude Desktop") as client:
        first = asyncio.ensure_future(client.call("browser_tab_list"))
        await expect(panel.request("Claude Desktop")).to_contain_text("Claude Desktop wants to control this browser through MCP")
        assert not first.done(), "nothing runs before the user answers"
        await panel.answer("Claude Desktop", allow=True)
        result = await asyncio.wait_for(first, 30)
        assert not result.is_error, text_of(result)
        await expect(panel.in_control()).to_contain_text("Claude Desktop is in control through MCP")


async def badge_of(service_worker: Any, text: str) -> str:
    """The toolbar badge, once it shows `text` (a bounded wait: the host tells the worker)."""
    for _ in range(100):
        shown = await service_worker.evaluate("() => chrome.action.getBadgeText({})")
        if shown == text:
            break
        await asyncio.sleep(0.1)
    return shown


async def test_with_the_side_panel_closed_the_toolbar_icon_shows_a_client_waits_and_the_panel_asks_when_opened(browser):
    await wait_connected(browser.service_worker)
    async with McpClient(name="Night owl") as client:
        first = asyncio.ensure_future(client.call("browser_tab_list"))
        assert await badge_of(browser.service_worker, "1") == "1"
        title = await browser.service_worker.evaluate("() => chrome.action.getTitle({})")
        assert title == "Night owl is waiting for your answer: open Waymark to allow or deny"
        panel = await SidePanel.open(browser)
        try:
            await panel.answer("Night owl", allow=True)
            result = await asyncio.wait_for(first, 30)
            assert not result.is_error, text_of(result)
            assert await badge_of(browser.service_worker, "") == ""
            assert await browser.service_worker.evaluate("() => chrome.action.getTitle({})") == "Open Waymark"
        finally:
            await panel.close()


async def test_a_client_the_user_denies_can_do_nothing(panel):
    async with McpClient(name="Nosy client") as client:
        first = asyncio.ensure_future(client.call("browser_snapshot"))
        await panel.answer("Nosy client", allow=False)
        result = await asyncio.wait_for(first, 30)
    assert result.is_error
    assert text_of(result) == "consent_denied: the user did not allow this client in the side panel"


async def test_stop_in_the_side_panel_cuts_off_a_call_in_flight(panel, site_url):
    async with McpClient(name="Busy client") as client:
        await admitted(client, panel)
        await client.text("browser_tab_new", {"url": f"{site_url}/agent/menu.html"})
        waiting = asyncio.ensure_future(client.call("browser_wait_for", {"ms": 20000}))
        await asyncio.sleep(0.5)
        await panel.in_control().get_by_role("button", name="Stop").click()
        result = await asyncio.wait_for(waiting, 10)
        assert result.is_error
        assert text_of(result).startswith("stopped: the user stopped MCP clients in the side panel")
        await expect(panel.in_control()).to_have_count(0)


async def test_after_stop_a_client_must_be_allowed_again(panel):
    async with McpClient(name="Returning client") as client:
        await admitted(client, panel)
        await panel.in_control().get_by_role("button", name="Stop").click()
        await expect(panel.in_control()).to_have_count(0)
        again = asyncio.ensure_future(client.call("browser_tab_list"))
        await panel.answer("Returning client", allow=False)
        result = await asyncio.wait_for(again, 30)
    assert text_of(result).startswith("consent_denied")


async def test_a_destructive_action_of_an_attached_client_is_confirmed_in_the_side_panel(panel, site_url):
    async with McpClient("--confirm", "ask", name="Shopping client") as client:
        await admitted(client, panel)
        page = await client.text("browser_tab_new", {"url": f"{site_url}/dispatch/form.html"})
        clicking = asyncio.ensure_future(client.call("browser_click", {"ref": ref_of(page, "Place order")}))
        question = panel.page.get_by_role("alertdialog", name="Confirm for Shopping client")
        await expect(question).to_contain_text('Shopping client wants to: click [')
        await expect(question).to_contain_text('button "Place order" looks destructive (place order)')
        await question.get_by_role("button", name="Decline").click()
        result = await asyncio.wait_for(clicking, 30)
        assert result.is_error and text_of(result).startswith("declined: the user declined click")
        assert (await client.text("browser_verify", {"predicates": [{"url_contains": "form.html"}]})).startswith("PASS")


async def test_a_tab_the_user_shares_from_the_side_panel_is_the_clients_until_taken_back(browser, site_url):
    await wait_connected(browser.service_worker)
    users_page = await browser.context.new_page()
    await users_page.goto(f"{site_url}/agent/menu.html")
    tab = await tab_id_of(browser.service_worker, users_page)
    pinned = await SidePanel.open(browser, tab_id=tab)
    try:
        async with McpClient(name="Sharing client") as client:
            await admitted(client, pinned)
            assert f"tab {tab}:" not in await client.text("browser_tab_list")
            await pinned.in_control().get_by_role("button", name="Share this tab").click()
            await expect(pinned.in_control().get_by_role("button", name="Stop sharing this tab")).to_be_visible()
            assert f"tab {tab}:" in await client.text("browser_tab_list")
            assert ref_of(await client.text("browser_tab_select", {"tab_id": tab}), "Open panel")
            await pinned.in_control().get_by_role("button", name="Stop sharing this tab").click()
            await expect(pinned.in_control().get_by_role("button", name="Share this tab")).to_be_visible()
            taken_back = await client.call("browser_snapshot")
            assert taken_back.is_error and text_of(taken_back).startswith(f"not_shared: tab {tab} was not opened by this client")
    finally:
        await pinned.close()
        await users_page.close()


async def test_an_allowed_client_may_not_answer_its_own_questions(panel, browser):
    reader, writer = await asyncio.open_unix_connection(str(await control_socket()))
    connection = await ControlConnection.handshake(reader, writer, 10)
    try:
        connecting = asyncio.ensure_future(connection.call("mcp.connect", {"client": "Raw program"}, timeout=30))
        await panel.answer("Raw program", allow=True)
        await connecting
        with pytest.raises(HostCallError) as refused:
            await connection.call("mcp.decide", {"request_id": "m1", "allow": True}, timeout=10)
        assert refused.value.code == "not_for_clients"
    finally:
        connection.close()


async def test_the_side_panel_lists_what_an_attached_client_did_without_the_text_it_typed(panel, site_url):
    async with McpClient(name="Busy bee") as client:
        await admitted(client, panel)
        page = await client.text("browser_tab_new", {"url": f"{site_url}/dispatch/form.html"})
        name_ref = ref_of(page, "Full name")
        await client.text("browser_fill", {"ref": name_ref, "text": "typed words stay private"})
        await client.call("browser_click", {"ref": 9999})
        log = panel.page.get_by_role("list", name="What MCP clients did")
        filled = log.locator('[data-kind="step"][data-verdict="passed"]', has_text=f"fill ref={name_ref}")
        await expect(filled.locator(".intent")).to_have_text("Busy bee")
        missed = log.locator('[data-kind="step"][data-verdict="failed"]', has_text="click ref=9999")
        await expect(missed.locator(".reason")).to_have_text("not_found")
        await expect(log).not_to_contain_text("typed words stay private")


async def test_a_question_of_an_attached_clients_task_is_asked_in_the_side_panel_when_the_client_cannot_ask(
        panel, tmp_path, site_url, saved_settings):
    script = tmp_path / "ask.json"
    script.write_text(json.dumps(ASK_FIRST))
    # The user's own model choice: an attached client may not choose what runs its task.
    saved_settings({"planner": {"provider": "scripted", "options": {"script": str(script)}},
                    "executor": {"provider": "scripted", "options": {"script": str(script)}}})
    async with McpClient(name="Curious client") as client:  # no elicitation
        await admitted(client, panel)
        running = asyncio.ensure_future(client.call("browser_run_task", {"task": "Open a panel", "start_url": f"{site_url}/agent/menu.html"}))
        question = panel.page.get_by_role("alertdialog", name="Question for Curious client")
        await expect(question).to_contain_text("Curious client's task asks: Which panel should I open?")
        await question.get_by_role("textbox", name="Your answer").fill("the first one")
        await question.get_by_role("button", name="Answer").click()
        result = await asyncio.wait_for(running, 60)
    summary = text_of(result)
    assert not result.is_error, summary
    assert "2/2 steps verified" in summary


async def test_the_side_panel_names_the_process_behind_a_connection_not_only_the_name_it_claims(panel):
    connection = await raw_connection()
    try:
        connecting = asyncio.ensure_future(connection.call("mcp.connect", {"client": "Claude Desktop"}, timeout=30))
        # The kernel's word for who connected: this test's own process.
        exe = os.path.realpath(f"/proc/{os.getpid()}/exe")
        await expect(panel.request("Claude Desktop")).to_contain_text(f"It is process {os.getpid()} ({exe}), started by {os.getppid()}")
        await panel.answer("Claude Desktop", allow=False)
        with pytest.raises(HostCallError) as denied:
            await connecting
        assert denied.value.code == "consent_denied"
    finally:
        connection.close()
