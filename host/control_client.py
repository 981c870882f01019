"""The terminal side of the control socket: launch Chromium with the real extension, wait for
the real host to connect back, then call host methods (`snapshot`, `agent.run`, ...)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Union

from pydantic import BaseModel, ValidationError

from waymark.host.channel import BadFrame, decode_message, serve_frames, stream_frames
from waymark.host.core.protocol import (
    Call,
    Cancel,
    ControlHello,
    ErrorReply,
    Notify,
    Reply,
    parse_outbound,
)
from waymark.host.framing import (
    MAX_INBOUND_BYTES,
    FrameDecodeError,
    FramingError,
    read_stream_frame,
    write_stream_frame,
)
from waymark.host.launch import LaunchedBrowser, launch_browser
from waymark.host.server import CONTROL_ENV

log = logging.getLogger(__name__)

Notification = Callable[[str, dict[str, Any]], None]
#: The host's last word on a call.
Answer = Union[Reply, ErrorReply]


class HostCallError(Exception):
    """A host method answered with a typed error."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data or {}


class HostNotConnected(RuntimeError):
    """The host did not connect back: the extension, the registration or the host is broken."""


class ControlConnection:
    """One control-socket connection to a host: calls by id, their replies and notifications.

    The controller reaches the host it launched through one; `waymark mcp` in attach mode
    reaches the host the user's own Chrome started through another.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host_hello: ControlHello) -> None:
        self.host_hello = host_hello
        #: Why the host closed the connection, when it said (the user pressed Stop in the side panel).
        self.close_reason: str | None = None
        self._writer = writer
        self._pending: dict[str, tuple[asyncio.Future[Answer], Notification | None]] = {}
        self._ids = itertools.count(1)
        self._reader_task = asyncio.get_running_loop().create_task(self._read_replies(reader))

    @classmethod
    async def handshake(cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> "ControlConnection":
        """Read the host's hello, then serve calls over the connection."""
        try:
            body = await asyncio.wait_for(read_stream_frame(reader), timeout)
        except asyncio.TimeoutError:
            raise HostNotConnected(f"the host sent no hello within {timeout:g} s") from None
        except FramingError as exc:
            raise HostNotConnected(f"the host's hello is not a frame: {exc}") from None
        if body is None:
            raise HostNotConnected("the host closed the control socket before its hello")
        try:
            hello = decode_message(body, ControlHello.model_validate)
        except (FrameDecodeError, ValidationError) as exc:
            raise HostNotConnected(f"the host's first message is not its hello: {exc}") from None
        return cls(reader, writer, hello)

    @property
    def closed(self) -> bool:
        """The host closed the connection (its browser went away)."""
        return self._reader_task.done()

    def close(self) -> None:
        """Stop reading and close the socket; calls still waiting fail with HostNotConnected."""
        self._reader_task.cancel()
        self._writer.close()

    async def _read_replies(self, reader: asyncio.StreamReader) -> None:
        try:
            ended = await serve_frames(stream_frames(reader), parse_outbound, self._on_message, self._on_bad)
            if ended is not None:
                log.warning("the control connection broke: %s", ended)
        finally:
            for future, _ in self._pending.values():
                if not future.done():
                    future.set_exception(HostNotConnected(self.close_reason or "the host closed the control socket"))

    def _on_message(self, message: BaseModel) -> None:
        if isinstance(message, ErrorReply) and not message.id:
            self.close_reason = message.message
            return
        entry = self._pending.get(getattr(message, "id", None) or "")
        if entry is None:
            return
        future, on_notify = entry
        if isinstance(message, Notify) and on_notify is not None:
            on_notify(message.name, message.data)
        elif isinstance(message, (Reply, ErrorReply)) and not future.done():
            future.set_result(message)

    @staticmethod
    def _on_bad(exc: BadFrame) -> None:
        # Nobody to answer: the host only ever sends valid messages, so this is worth a look in the log.
        log.warning("the host sent a bad frame (%s): %s", exc.code, exc)

    async def call(self, method: str, params: dict[str, Any] | None = None, on_notify: Notification | None = None,
                   timeout: float | None = None) -> dict[str, Any]:
        """Call a host method and return its data; raises HostCallError for a typed failure."""
        if self.closed:
            raise HostNotConnected(self.close_reason or "the host closed the control socket")
        call_id = f"c{next(self._ids)}"
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[call_id] = (future, on_notify)
        try:
            write_stream_frame(self._writer, Call(type="call", id=call_id, method=method, params=params or {}))
            await self._writer.drain()
            try:
                reply = await asyncio.wait_for(asyncio.shield(future), timeout)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                with contextlib.suppress(Exception):
                    write_stream_frame(self._writer, Cancel(type="cancel", id=call_id))
                raise
        finally:
            self._pending.pop(call_id, None)
        if isinstance(reply, ErrorReply):
            raise HostCallError(reply.code, reply.message)
        if not reply.ok:
            error = reply.error
            raise HostCallError(error.code if error else "error", error.message if error else "", reply.data)
        return reply.data or {}


class Controller:
    """Owns one browser and the control connection to its host. Use as an async context manager."""

    def __init__(
        self,
        *,
        headless: bool = True,
        viewport: tuple[int, int] = (1280, 800),
        profile_dir: Path | None = None,
        host_env: dict[str, str] | None = None,
        connect_timeout: float = 30.0,
        extension: Path | None = None,
    ) -> None:
        self._headless = headless
        self._extension = extension
        self._viewport = viewport
        self._profile_dir = profile_dir
        self._host_env = dict(host_env or {})
        self._connect_timeout = connect_timeout
        self._tmp: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._connected: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
        self._connection: ControlConnection | None = None
        self._playwright_cm: Any = None
        self.playwright: Any = None
        self.browser: LaunchedBrowser | None = None
        self.host_hello: ControlHello | None = None

    @property
    def close_reason(self) -> str | None:
        """Why the host closed the control connection, when it said."""
        return self._connection.close_reason if self._connection else None

    async def __aenter__(self) -> "Controller":
        from playwright.async_api import async_playwright

        # Unix socket paths are limited to ~100 bytes: keep the folder short.
        self._tmp = tempfile.mkdtemp(prefix="wm-")
        socket_path = os.path.join(self._tmp, "control.sock")
        self._server = await asyncio.start_unix_server(self._on_connect, path=socket_path, limit=MAX_INBOUND_BYTES)
        profile = self._profile_dir or Path(self._tmp) / "profile"
        self._playwright_cm = async_playwright()
        self.playwright = await self._playwright_cm.__aenter__()
        try:
            self.browser = await launch_browser(
                self.playwright, profile, headless=self._headless, viewport=self._viewport,
                host_env={CONTROL_ENV: socket_path, **self._host_env}, extension=self._extension,
            )
            await self._await_host()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._connection:
            self._connection.close()
        if self.browser:
            with contextlib.suppress(Exception):
                await self.browser.close()
        if self._playwright_cm:
            with contextlib.suppress(Exception):
                await self._playwright_cm.__aexit__(None, None, None)
        if self._server:
            self._server.close()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._connected.put((reader, writer))

    async def _await_host(self) -> None:
        try:
            reader, writer = await asyncio.wait_for(self._connected.get(), self._connect_timeout)
        except asyncio.TimeoutError:
            raise HostNotConnected(
                f"the host did not connect within {self._connect_timeout:g} s; run `waymark doctor` and see the host log"
            ) from None
        self._connection = await ControlConnection.handshake(reader, writer, self._connect_timeout)
        self.host_hello = self._connection.host_hello

    async def call(self, method: str, params: dict[str, Any] | None = None, on_notify: Notification | None = None,
                   timeout: float | None = None) -> dict[str, Any]:
        """Call a host method and return its data; raises HostCallError for a typed failure."""
        if self._connection is None:
            raise HostNotConnected("not connected")
        return await self._connection.call(method, params, on_notify, timeout)
