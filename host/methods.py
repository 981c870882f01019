"""The registry of host methods the extension may `call` (chat, agent runs, settings, ...).

A method is an async function `(params, ctx) -> dict`. It may stream progress with
`ctx.notify(name, data)` and reach the browser through `ctx.browser`. Raise MethodError for a
typed failure; cancellation arrives as asyncio.CancelledError.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable

if TYPE_CHECKING:
    from waymark.host.bridge import BrowserBridge


class MethodError(Exception):
    """A typed failure of a host method, sent back as the reply's error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class CallContext:
    """What a method may use while it runs."""

    call_id: str
    browser: "BrowserBridge"
    notify: Callable[[str, dict[str, Any]], None]
    #: The connection of the attached MCP client that called (host.mcp_access), None when the
    #: side panel or the terminal that launched this browser did: a client may set less.
    client_id: int | None = None


Method = Callable[[dict[str, Any], CallContext], Awaitable[dict[str, Any]]]

_METHODS: dict[str, Method] = {}


def method(name: str) -> Callable[[Method], Method]:
    """Register an async function as the host method `name`."""

    def register(fn: Method) -> Method:
        if name in _METHODS:
            raise ValueError(f"host method {name!r} registered twice")
        _METHODS[name] = fn
        return fn

    return register


def lookup(name: str) -> Method | None:
    """The method registered under `name` (host.rpc.load_all registers the built-in ones)."""
    return _METHODS.get(name)


def names() -> list[str]:
    """Every registered method name, sorted."""
    return sorted(_METHODS)
