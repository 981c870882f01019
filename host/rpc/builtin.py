"""Methods every host has, whatever else is configured."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

from waymark.host.core import PROTOCOL_VERSION, __version__
from waymark.host.methods import CallContext, MethodError, method, names


@method("host.info")
async def host_info(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Versions and the methods this host serves, for the side panel's status line."""
    return {
        "host_version": __version__,
        "protocol": PROTOCOL_VERSION,
        "python": sys.version.split()[0],
        "platform": platform.platform(terse=True),
        "methods": names(),
        "pid": os.getpid(),
    }


@method("host.echo")
async def host_echo(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Answer with the size of what arrived: the native-messaging benchmark's browser-to-host leg."""
    payload = params.get("payload", "")
    return {"received_chars": len(payload) if isinstance(payload, str) else 0}


@method("host.payload")
async def host_payload(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Answer with `bytes` characters of data: exercises host-to-browser chunking end to end."""
    size = params.get("bytes", 0)
    if not isinstance(size, int) or not 0 <= size <= 32 * 1024 * 1024:
        raise MethodError("bad_params", "bytes must be an integer from 0 to 33554432")
    return {"data": "w" * size}


@method("browser.request")
async def browser_request(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Relay one request to the extension and back: a diagnostic of the host-to-browser leg."""
    name = params.get("method")
    if not isinstance(name, str):
        raise MethodError("bad_params", "method must be a string")
    inner = params.get("params") or {}
    if not isinstance(inner, dict):
        raise MethodError("bad_params", "params must be an object")
    return {"data": await ctx.browser.request(name, inner)}
