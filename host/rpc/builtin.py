"""Methods every host has, whatever else is configured."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

from pydantic import ValidationError

from waymark.host.core import PROTOCOL_VERSION, __version__
from waymark.host.core.gate import Gate
from waymark.host.core.validation import problems
from waymark.host.mcp_access import ACCESS
from waymark.host.methods import CallContext, MethodError, method, names
from waymark.host.rpc.act import admitted_client_open


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
    connection = ACCESS.connections.get(ctx.client_id) if ctx.client_id is not None else None
    if connection is not None and name == "tabs.open":
        # An attached client's new tab is judged as its new_tab act is, never on the gate it sent.
        if not isinstance(inner.get("url"), str):
            raise MethodError("bad_params", "tabs.open needs a URL")
        try:
            caller = Gate.model_validate(inner.get("gate") or {})
        except ValidationError as exc:
            raise MethodError("bad_params", f"not a gate: {problems(exc)}") from None
        admitted = await admitted_client_open(connection, inner["url"], caller)
        inner = {**inner, "url": admitted.action["url"], "gate": admitted.gate.model_dump()}
    return {"data": await ctx.browser.request(name, inner)}
