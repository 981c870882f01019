"""An MCP client's URLs are read as the browser reads them: a URL whose host Python's urlsplit
and the browser's WHATWG parser read apart is refused by name before the browser goes anywhere,
and the "attacker" (on 127.0.0.1, which the user's settings block) gets no request."""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.mcp_helpers import McpClient, text_of
from waymark.host.settings import FILE_NAME, Settings

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    config = tmp_path_factory.mktemp("mcp-gate-config")
    # The fixture pages stay reachable on their second origin, localhost.
    (config / FILE_NAME).write_text(Settings(block_domains=["127.0.0.1"]).model_dump_json())
    async with McpClient("--launch", env={"WAYMARK_CONFIG_DIR": str(config)}) as c:
        yield c


def attack(form: str, port: int, other_port: int) -> str:
    """A URL the browser reads as 127.0.0.1:port, carrying data."""
    return {
        "short-ipv4": f"http://127.1:{port}/?d=data",
        "trailing-dot": f"http://127.0.0.1.:{port}/?d=data",
        # urlsplit: host localhost; the browser: `\\` is `/`, the host is 127.0.0.1.
        "backslash": f"http://127.0.0.1:{port}\\@localhost:{other_port}/?d=data",
        "full-width-dots": f"http://127\uff0e0\uff0e0\uff0e1:{port}/?d=data",
    }[form]


@pytest.mark.parametrize("tool", ["browser_navigate", "browser_tab_new"])
@pytest.mark.parametrize("form", ["short-ipv4", "trailing-dot", "backslash", "full-width-dots"])
async def test_a_url_the_browser_reads_as_a_blocked_host_is_refused_and_never_sent(client, other_origin, attacker_site, tool, form):
    await client.text("browser_navigate", {"url": f"{other_origin}/agent/menu.html"})
    other_port = int(other_origin.rsplit(":", 1)[1])
    result = await client.call(tool, {"url": attack(form, attacker_site.port, other_port)})
    assert result.is_error
    assert text_of(result).startswith("url_refused: ") and "write the URL plainly" in text_of(result)
    assert attacker_site.log == []
