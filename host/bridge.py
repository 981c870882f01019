"""The host's handle on the browser: typed requests to the extension and their replies."""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any, Callable

from waymark.host.channel import Send
from waymark.host.core.protocol import BrowserRequest, Result

log = logging.getLogger(__name__)

#: Default seconds to wait for the extension to answer a request.
DEFAULT_TIMEOUT_S = 30.0


class BrowserError(Exception):
    """The extension answered a request with a typed failure (stale_ref, occluded, ...)."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data or {}


class BrowserDisconnected(BrowserError):
    """The native port closed while a request was outstanding."""

    def __init__(self) -> None:
        super().__init__("browser_disconnected", "the extension's native port closed")


class BrowserBridge:
    """Sends `request` messages to the extension and resolves them with its `result` replies."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._pending: dict[str, asyncio.Future[Result]] = {}
        self._ids = itertools.count(1)
        self._listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._closed = False
        self.extension_version: str | None = None
        self.capabilities: list[str] = []

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
        """Ask the extension to do `method`; return its data or raise BrowserError."""
        if self._closed:
            # Chrome may still hold our stdout open after closing stdin, so a write would succeed and
            # the request would wait out its timeout, while Chrome kills the host 2 s after closing.
            raise BrowserDisconnected()
        request_id = f"h{next(self._ids)}"
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            try:
                self._send(BrowserRequest(id=request_id, method=method, params=params or {}))
            except OSError:
                # The port closed under us (stdout is a broken pipe): the same failure as a closed port.
                raise BrowserDisconnected() from None
            try:
                result = await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:
                raise BrowserError("timeout", f"the extension did not answer {method!r} within {timeout:g} s") from None
        finally:
            self._pending.pop(request_id, None)
        if not result.ok:
            error = result.error
            raise BrowserError(error.code if error else "unknown", error.message if error else "request failed", result.data)
        return result.data or {}

    def resolve(self, result: Result) -> None:
        """Hand a `result` from the extension to the request waiting for it."""
        future = self._pending.get(result.id)
        if future is None:
            log.warning("result for unknown request id %s", result.id)
            return
        if not future.done():
            future.set_result(result)

    def on_event(self, listener: Callable[[str, dict[str, Any]], None]) -> Callable[[], None]:
        """Listen to unsolicited browser events; returns a function that stops listening."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def emit(self, name: str, data: dict[str, Any]) -> None:
        """Deliver a browser event to every listener."""
        for listener in list(self._listeners):
            try:
                listener(name, data)
            except Exception:  # a listener's bug must not take the channel down
                log.exception("browser event listener failed on %s", name)

    @property
    def disconnected(self) -> bool:
        """Whether the port is gone (the browser or its service worker stopped)."""
        return self._closed

    def disconnect(self) -> None:
        """Fail every outstanding request and every later one: the port is gone."""
        self._closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(BrowserDisconnected())
