"""The MCP server's way to a host: one it launched with Chromium (`--launch`), or the host the
user's own Chrome started, reached through its user-only control socket (attach)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any, Protocol

from waymark.host.browsers import BrowserChoiceError, choose, running
from waymark.host.control_client import (
    ControlConnection,
    Controller,
    HostCallError,
    HostNotConnected,
    Notification,
)
from waymark.host.control_server import MCP_CONNECT
from waymark.host.framing import MAX_INBOUND_BYTES
from waymark.host.mcp.errors import NoBrowser, Refused, ToolError
from waymark.host.mcp_access import CONSENT_TIMEOUT_S

log = logging.getLogger(__name__)


class HostLink(Protocol):
    """What tools need of a host: its methods, called by name."""

    close_reason: str | None

    async def call(self, method: str, params: dict[str, Any] | None = None, on_notify: Notification | None = None,
                   timeout: float | None = None) -> dict[str, Any]: ...


class LaunchedLink:
    """Launches Chromium with the extension in the background as soon as the server starts (the
    client's handshake does not wait for it); tools wait for the browser on first use."""

    def __init__(self, *, headed: bool = False, user_data_dir: Path | None = None) -> None:
        self._controller = Controller(headless=not headed, profile_dir=user_data_dir)
        self._started: asyncio.Task[Controller] | None = None

    async def __aenter__(self) -> "LaunchedLink":
        self._started = asyncio.get_running_loop().create_task(self._controller.__aenter__())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._started is None:
            return
        if not self._started.done():
            self._started.cancel()
        with contextlib.suppress(BaseException):
            await self._started
        if not self._started.cancelled() and self._started.exception() is None:
            await self._controller.__aexit__(None, None, None)

    async def get(self, client: str) -> HostLink:
        """The launched browser's host, once it is up; NoBrowser when the launch failed. The
        browser is the client's own: no consent to ask."""
        assert self._started is not None, "use LaunchedLink as an async context manager"
        try:
            return await asyncio.shield(self._started)
        except HostNotConnected as exc:
            raise NoBrowser(f"the launched browser's host did not connect ({exc})") from None
        except Exception as exc:  # no Chromium, no display for --headed, ...
            raise NoBrowser(f"Chromium could not be launched ({type(exc).__name__}: {exc})") from None


class AttachedLink:
    """Connects to the host of the user's own Chrome through its control socket, on first use and
    again after that browser went away and came back: the socket given, else the only running
    browser's, or the one `browser` names (host.browsers)."""

    def __init__(self, socket_path: Path | None, browser: str | None = None, connect_timeout: float = 10.0) -> None:
        self._path = socket_path
        self._browser = browser
        self._timeout = connect_timeout
        self._connection: ControlConnection | None = None
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> "AttachedLink":
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._connection is not None:
            self._connection.close()

    async def get(self, client: str) -> HostLink:
        """The connected host, once the user allowed `client` in the side panel; NoBrowser when no
        browser's host is listening, Refused when the user denied the client."""
        async with self._lock:
            if self._connection is None or self._connection.closed:
                connection = await self._connect()
                try:
                    await connection.call(MCP_CONNECT, {"client": client}, timeout=CONSENT_TIMEOUT_S + 10)
                except HostCallError as exc:
                    connection.close()
                    raise Refused(exc.code, exc.message) from None
                self._connection = connection
            return self._connection

    def _socket(self) -> Path:
        """The socket to connect to; NoBrowser when no browser runs, a ToolError listing them when
        several do and none is named."""
        if self._path is not None:
            return self._path
        try:
            return choose(running(), self._browser).socket
        except BrowserChoiceError as exc:
            if exc.code == "no_browser":
                raise NoBrowser(exc.message) from None
            raise ToolError(exc.code, exc.message) from None

    async def _connect(self) -> ControlConnection:
        path = self._socket()
        try:
            reader, writer = await asyncio.open_unix_connection(str(path), limit=MAX_INBOUND_BYTES)
        except (FileNotFoundError, ConnectionRefusedError):
            raise NoBrowser(f"no browser is connected: nothing listens on {path}") from None
        except PermissionError:
            raise NoBrowser(f"the control socket {path} belongs to another user") from None
        try:
            connection = await ControlConnection.handshake(reader, writer, self._timeout)
        except HostNotConnected as exc:
            writer.close()
            raise NoBrowser(f"the browser's host did not answer on {path} ({exc})") from None
        log.info("attached to host %s", connection.host_hello.host_version)
        return connection


Link = LaunchedLink | AttachedLink
