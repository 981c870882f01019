"""`waymark mcp` attached to a browser started separately: the host of that browser serves a
user-only control socket, and the MCP client, once the user allowed it in the side panel,
acts only in tabs it opened itself."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.conftest import _host_env, wait_connected
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.mcp_helpers import (
    McpClient,
    SidePanel,
    admitted,
    allowed_connection,
    control_socket,
    ref_of,
    text_of,
)
from waymark.host.control_client import ControlConnection, HostCallError

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(browser: Any) -> Any:
    await wait_connected(browser.service_worker)
    panel = await SidePanel.open(browser)
    async with McpClient(name="attach-tests") as c:
        await admitted(c, panel)
        await panel.close()
        yield c


async def test_the_hosts_control_socket_is_a_socket_only_its_user_can_reach(browser):
    await wait_connected(browser.service_worker)
    path = await control_socket()
    info = path.stat()
    assert stat.S_ISSOCK(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_uid == os.getuid()
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_an_attached_client_may_not_act_in_the_users_own_tabs(client, browser, site_url):
    users_tab = await browser.context.new_page()
    await users_tab.goto(f"{site_url}/agent/menu.html")
    tab = await tab_id_of(browser.service_worker, users_tab)
    result = await client.call("browser_tab_select", {"tab_id": tab})
    assert result.is_error
    # The admission's refusal, named as for every driver (tests/e2e/test_admission_drivers.py).
    assert text_of(result).startswith(f"tab_refused: tab {tab} is not one of this run's tabs")
    await users_tab.close()


async def test_the_host_itself_refuses_a_program_on_the_control_socket_a_tab_it_did_not_open(client, browser, site_url):
    users_tab = await browser.context.new_page()
    await users_tab.goto(f"{site_url}/agent/menu.html")
    tab = await tab_id_of(browser.service_worker, users_tab)
    connection = await allowed_connection(browser, "raw program")
    try:
        for method, params in [("snapshot", {"tab_id": tab}), ("act", {"tab_id": tab, "action": {"type": "scroll", "direction": "down"}}),
                               ("agent.run", {"task": "read it", "tab_id": tab})]:
            with pytest.raises(HostCallError) as refused:
                await connection.call(method, params, timeout=10)
            assert refused.value.code == "not_shared", method
            assert refused.value.message.startswith(f"tab {tab} was not opened by this client")
        with pytest.raises(HostCallError) as direct:
            await connection.call("browser.request", {"method": "snapshot", "params": {"tab_id": tab}}, timeout=10)
        assert direct.value.code == "not_for_clients"
    finally:
        connection.close()
        await users_tab.close()


async def test_the_host_lets_a_program_on_the_control_socket_act_in_the_tab_it_opened(client, browser, site_url):
    connection = await allowed_connection(browser, "raw program")
    try:
        opened = await connection.call("browser.request", {"method": "tabs.open", "params": {"url": f"{site_url}/agent/menu.html"}}, timeout=30)
        tab = opened["data"]["tab_id"]
        snapshot = await connection.call("snapshot", {"tab_id": tab}, timeout=30)
        assert ref_of(snapshot["text"], "Open panel")
        listed = await connection.call("browser.request", {"method": "tabs.list", "params": {}}, timeout=10)
        assert [t["tab_id"] for t in listed["data"]["tabs"]] == [tab], "the tab list holds only this connection's tab"
        await connection.call("browser.request", {"method": "tabs.close", "params": {"tab_id": tab}}, timeout=10)
    finally:
        connection.close()


async def test_a_new_attached_client_works_in_no_tab_until_it_opens_one(client, browser):
    panel = await SidePanel.open(browser)
    async with McpClient(name="fresh-tests") as fresh:
        await admitted(fresh, panel)
        result = await fresh.call("browser_snapshot")
    await panel.close()
    assert result.is_error
    assert text_of(result).startswith("not_shared: the user's current tab was not opened by this client")


async def test_an_attached_client_acts_in_the_tab_it_opened(client, browser, site_url):
    opened = await client.text("browser_tab_new", {"url": f"{site_url}/agent/menu.html"})
    clicked = await client.text("browser_click", {"ref": ref_of(opened, "Open panel")})
    assert ": ok" in clicked
    verdict = await client.text("browser_verify", {"predicates": [{"text_present": "Opened the first panel"}]})
    assert verdict.startswith("PASS")
    pages = [p for p in browser.context.pages if p.url == f"{site_url}/agent/menu.html"]
    assert pages, "the tab is in the user's browser"


async def test_the_tab_list_of_an_attached_client_holds_only_its_own_tabs(client, browser, site_url):
    users_tab = await browser.context.new_page()
    await users_tab.goto(f"{site_url}/agent/menu-b.html")
    listing = await client.text("browser_tab_list")
    assert "menu-b.html" not in listing
    await users_tab.close()


async def test_with_no_browser_connected_every_tool_says_what_to_do(tmp_path: Path):
    async with McpClient(env={"WAYMARK_CONTROL_SOCKET": str(tmp_path / "control.sock")}) as lonely:
        result = await lonely.call("browser_snapshot")
    assert result.is_error
    message = text_of(result)
    assert message.startswith("no_browser: no browser is connected")
    assert "Open Chrome with the Waymark extension" in message and "waymark doctor" in message


async def test_a_program_on_the_control_socket_can_call_nothing_before_the_user_allows_it(browser):
    await wait_connected(browser.service_worker)
    reader, writer = await asyncio.open_unix_connection(str(await control_socket()))
    connection = await ControlConnection.handshake(reader, writer, 10)
    try:
        with pytest.raises(HostCallError) as refused:
            await connection.call("snapshot", {}, timeout=10)
        assert refused.value.code == "consent_required"
    finally:
        connection.close()


async def test_with_two_browsers_running_a_client_is_told_which_and_attaches_to_the_one_it_names(
        client, browser, playwright_instance, tmp_path_factory, site_url, test_extension):
    from waymark.host.browsers import running
    from waymark.host.launch import launch_browser

    profile = tmp_path_factory.mktemp("second-browser")
    second = await launch_browser(playwright_instance, profile, host_env=_host_env(), extension=test_extension)
    try:
        await wait_connected(second.service_worker)
        for _ in range(100):  # its host listens once the extension's handshake is done
            if len(running()) == 2:
                break
            await asyncio.sleep(0.1)
        async with McpClient(name="attach-tests") as unsure:
            result = await unsure.call("browser_tab_list")
        assert result.is_error
        message = text_of(result)
        assert message.startswith("several_browsers: 2 browsers with Waymark are running: ")
        assert f"profile {profile} (host pid" in message and "--browser" in message
        panel = await SidePanel.open(second)
        async with McpClient("--browser", profile.name, name="second-browser-tests") as chosen:
            await admitted(chosen, panel)
            await chosen.text("browser_tab_new", {"url": f"{site_url}/agent/menu-b.html"})
        assert any(p.url == f"{site_url}/agent/menu-b.html" for p in second.context.pages), "the tab is in the browser named"
        await panel.close()
    finally:
        await second.close()
