"""An attached MCP client's `act` is decided on the host, whatever process sends it: a same-user
program allowed on the control socket that skips `waymark mcp` and sends a destructive click
itself is asked about it in the side panel, as the official client's session is, and a click the
user declines never reaches the page. The authority is the page's own state (the shop's status
line) and the panel's own question."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from tests.e2e.mcp_helpers import (
    McpClient,
    SidePanel,
    admitted,
    allowed_connection,
    ref_of,
    text_of,
)
from waymark.host.control_client import HostCallError

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

CLIENT = "raw-act-tool"


@pytest.fixture(autouse=True)
def asks_first(saved_settings: Any) -> None:
    """The user's saved policy: destructive actions ask first (the product's default)."""
    saved_settings({"confirm_policy": "ask"})


async def _shop_tab(connection: Any, site_url: str) -> tuple[int, int, str]:
    """The client's own tab on a shop page of its own, the ref of its Place order button, and its URL."""
    url = f"{site_url}/sidepanel/shop.html?case={uuid.uuid4().hex}"
    opened = await connection.call("browser.request", {"method": "tabs.open", "params": {"url": url}}, timeout=30)
    tab = opened["data"]["tab_id"]
    snap = await connection.call("snapshot", {"tab_id": tab}, timeout=30)
    return tab, ref_of(snap["text"], "Place order", "button"), url


async def _status(browser: Any, url: str) -> str:
    """The shop's status line in the client's tab, read by the page itself."""
    page = next(p for p in browser.context.pages if p.url == url)
    return await page.locator("#status").inner_text()


async def _question(panel: SidePanel, clicking: Any) -> Any:
    """The panel's question about the client's click (the click's own answer, had it come first, says why not)."""
    question = panel.page.get_by_role("alertdialog", name=f"Confirm for {CLIENT}")
    shown = asyncio.ensure_future(question.wait_for(timeout=30_000))
    await asyncio.wait([shown, clicking], return_when=asyncio.FIRST_COMPLETED)
    if clicking.done():
        shown.cancel()
        answer = clicking.exception() or clicking.result()
        raise AssertionError(f"the click was answered without a question: {answer!r}")
    await shown
    return question


async def _raw_order_answered(browser: Any, site_url: str, button: str) -> tuple[Any, str]:
    """A raw client's own click on Place order, the user answering the panel's question with
    `button`: the act's result (or the error it raised) and the shop page's status line after."""
    connection = await allowed_connection(browser, CLIENT)
    panel = await SidePanel.open(browser)
    try:
        tab, order, url = await _shop_tab(connection, site_url)
        clicking = asyncio.ensure_future(connection.call("act", {"tab_id": tab, "action": {"type": "click", "ref": order}}, timeout=60))
        await (await _question(panel, clicking)).get_by_role("button", name=button).click(timeout=30_000)
        try:
            answer: Any = await clicking
        except HostCallError as exc:
            answer = exc
        return answer, await _status(browser, url)
    finally:
        await panel.close()
        connection.close()


async def test_a_raw_clients_destructive_click_is_asked_in_the_side_panel_and_a_decline_never_reaches_the_page(browser, site_url):
    answer, status = await _raw_order_answered(browser, site_url, "Decline")
    assert isinstance(answer, HostCallError) and answer.code == "declined", answer
    assert status == ""


async def test_a_raw_clients_destructive_click_the_user_approves_is_sent_once(browser, site_url):
    answer, status = await _raw_order_answered(browser, site_url, "Allow once")
    assert not isinstance(answer, HostCallError) and answer["ok"] is True, answer
    assert status in ("Order placed", "Your cart is empty")


async def test_the_official_clients_click_the_user_approved_in_its_session_is_not_asked_again_on_the_host(browser, site_url):
    name = "raw-act-session"
    panel = await SidePanel.open(browser)
    try:
        async with McpClient("--confirm", "ask", name=name) as client:
            await admitted(client, panel)
            page = await client.text("browser_tab_new", {"url": f"{site_url}/sidepanel/shop.html"})
            calling = asyncio.ensure_future(client.call("browser_click", {"ref": ref_of(page, "Place order", "button")}))
            questions = panel.page.get_by_role("alertdialog", name=f"Confirm for {name}")
            await questions.get_by_role("button", name="Allow once").click(timeout=30_000)
            result = await asyncio.wait_for(calling, 60)
            assert not result.is_error, text_of(result)
            assert await questions.count() == 0  # one question, answered; the host asked none of its own
    finally:
        await panel.close()
