"""An MCP client for the tests: the official SDK's ClientSession over stdio, talking to a real
`waymark mcp` process. The SDK's task groups must be entered and left in one task, so the
client lives in a task of its own and tests call through it."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
WAYMARK = ROOT / ".venv" / "bin" / "waymark"
#: What the server process needs of the test's environment (stdio_client passes only a safe few).
PASSED_ENV = ("WAYMARK_STATE_DIR", "WAYMARK_CONFIG_DIR", "WAYMARK_RUNS_DIR", "WAYMARK_CHROMIUM", "WAYMARK_CONTROL_SOCKET", "DISPLAY")


async def control_socket(timeout: float = 15.0) -> Path:
    """The session browser's control socket (the oldest running browser's), once its host listens."""
    from waymark.host.browsers import registry_dir, running

    deadline = asyncio.get_running_loop().time() + timeout
    while not (browsers := running()):
        assert asyncio.get_running_loop().time() < deadline, f"no host listens in {registry_dir()}"
        await asyncio.sleep(0.1)
    return browsers[0].socket


async def raw_connection() -> Any:
    """A raw control connection to the session browser's host (no `waymark mcp` between)."""
    from waymark.host.control_client import ControlConnection

    reader, writer = await asyncio.open_unix_connection(str(await control_socket()))
    return await ControlConnection.handshake(reader, writer, 10)


async def allowed_connection(browser: Any, name: str) -> Any:
    """A raw control connection admitted under `name`, the user allowing it in a side panel
    (every connection is asked about, whatever its name)."""
    connection = await raw_connection()
    connecting = asyncio.ensure_future(connection.call("mcp.connect", {"client": name}, timeout=30))
    panel = await SidePanel.open(browser)
    try:
        await panel.answer(name, allow=True)
        await connecting
    finally:
        await panel.close()
    return connection


class McpClient:
    """One `waymark mcp ARGS` process and an initialised ClientSession to it."""

    def __init__(self, *args: str, name: str = "waymark-tests", elicit: Any = None, env: dict[str, str] | None = None) -> None:
        self.args = list(args)
        self.env = dict(env or {})
        self.name = name
        self.elicit = elicit
        self.session: ClientSession | None = None
        #: What the server said it can do at initialisation.
        self.capabilities: types.ServerCapabilities | None = None
        #: The methods of the notifications the server sent (progress aside), in order.
        self.notified: list[str] = []
        self.stderr_path: Path | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "McpClient":
        if "--launch" not in self.args and "WAYMARK_CONTROL_SOCKET" not in self.env:
            await control_socket()  # attach mode: to the session browser's host
        self._task = asyncio.get_running_loop().create_task(self._main())
        ready = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait({ready, self._task}, return_when=asyncio.FIRST_COMPLETED, timeout=60)
        if self._task.done():
            self._task.result()  # raises what failed
        assert self.session is not None, "the MCP server did not initialise within 60 s"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stop.set()
        if self._task is not None:
            await asyncio.wait_for(self._task, 60)

    async def _main(self) -> None:
        env = {**{k: os.environ[k] for k in PASSED_ENV if k in os.environ}, **self.env}
        params = StdioServerParameters(command=str(WAYMARK), args=["mcp", *self.args], env=env, cwd=str(ROOT))
        self.stderr_path = Path(os.environ.get("WAYMARK_STATE_DIR", "/tmp")) / f"mcp-stderr-{id(self)}.txt"
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        with self.stderr_path.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, client_info=types.Implementation(name=self.name, version="1.0"),
                                         elicitation_callback=self.elicit, message_handler=self._message) as session:
                    self.capabilities = (await session.initialize()).capabilities
                    self.session = session
                    self._ready.set()
                    await self._stop.wait()

    async def _message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str) and method != "notifications/progress":
            self.notified.append(method)

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> types.CallToolResult:
        """Call a tool and return its result (errors included)."""
        assert self.session is not None
        return await self.session.call_tool(tool, arguments or {}, **kwargs)

    async def text(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        """Call a tool that must succeed and return its text."""
        result = await self.call(tool, arguments)
        body = text_of(result)
        assert not result.is_error, body
        return body


def text_of(result: types.CallToolResult) -> str:
    """All text blocks of a tool result, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def ref_of(snapshot_text: str, name: str, role: str | None = None) -> int:
    """The ref of the first element line with this accessible name (and role), in a whole
    snapshot or among the lines a change added (`+ [ref] ...`). A link's line has no role word."""
    role_part = "" if role == "link" else re.escape(role) + " " if role else r"(?:\S+ )?"
    match = re.search(rf'^(?:\+ )?\[(\d+)\] {role_part}"{re.escape(name)}"', snapshot_text, re.MULTILINE)
    assert match, f"no element {role or ''} {name!r} in:\n{snapshot_text}"
    return int(match.group(1))


class SidePanel:
    """The extension's side panel, opened as a tab of the test browser: where the user allows,
    denies and stops MCP clients."""

    def __init__(self, page: Any) -> None:
        self.page = page

    @classmethod
    async def open(cls, browser: Any, tab_id: int | None = None) -> "SidePanel":
        """The panel page; about the tab `tab_id` (pinned) when given."""
        page = await browser.context.new_page()
        query = f"?tab={tab_id}" if tab_id is not None else ""
        await page.goto(f"chrome-extension://{browser.extension_id}/sidepanel/sidepanel.html{query}")
        return cls(page)

    def request(self, client: str) -> Any:
        """The panel's request to allow `client`."""
        return self.page.get_by_role("alertdialog", name=f"MCP client {client}")

    async def answer(self, client: str, allow: bool) -> None:
        """Wait for the request of `client`, then allow or deny it."""
        await self.request(client).get_by_role("button", name="Allow for this session" if allow else "Deny").click(timeout=30_000)

    def in_control(self) -> Any:
        """The line that says which clients are in control, with its Stop button."""
        return self.page.locator(".mcp-active")

    async def close(self) -> None:
        await self.page.close()


async def admitted(client: McpClient, panel: SidePanel) -> None:
    """The first call of an attached client, allowed by the user in the side panel."""
    first = asyncio.ensure_future(client.call("browser_tab_list"))
    await panel.answer(client.name, allow=True)
    result = await asyncio.wait_for(first, 30)
    assert not result.is_error, text_of(result)
