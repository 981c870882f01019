"""The user's rules hold for MCP clients as for agent mode: the side panel's blocked domains
and its policy for destructive actions."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.mcp_helpers import McpClient, ref_of, text_of
from waymark.host.settings import FILE_NAME, Settings

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    config = tmp_path_factory.mktemp("mcp-policy-config")
    # `localhost` is the fixture server's second origin: the first, 127.0.0.1, stays allowed.
    (config / FILE_NAME).write_text(Settings(block_domains=["localhost"], confirm_policy="block").model_dump_json())
    async with McpClient("--launch", env={"WAYMARK_CONFIG_DIR": str(config)}) as c:
        yield c


async def test_navigating_to_a_blocked_domain_is_refused_before_the_browser_goes_there(client, other_origin):
    result = await client.call("browser_navigate", {"url": f"{other_origin}/agent/menu.html"})
    assert result.is_error
    assert text_of(result) == "url_refused: that URL is not allowed (localhost is on the block list); stay on allowed sites"


async def test_a_link_to_a_blocked_domain_shows_nothing_of_the_page_it_led_to(client, site_url, other_origin):
    page = await client.text("browser_navigate", {"url": f"{site_url}/mcp/links.html?to={other_origin}/agent/menu.html"})
    result = await client.call("browser_click", {"ref": ref_of(page, "Elsewhere")})
    assert result.is_error
    assert text_of(result).startswith("url_refused: click") and "Open panel" not in text_of(result)


async def test_destructive_actions_are_blocked_when_the_settings_say_block(client, site_url):
    page = await client.text("browser_navigate", {"url": f"{site_url}/dispatch/form.html"})
    result = await client.call("browser_click", {"ref": ref_of(page, "Place order")})
    assert result.is_error
    assert text_of(result).startswith('destructive_blocked: click [') and "looks destructive (place order)" in text_of(result)
