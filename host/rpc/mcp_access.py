"""Host methods of the side panel's MCP section: follow the clients (`mcp.watch`), answer a
client's request (`mcp.decide`), share a tab (`mcp.share`) and cut every client off
(`mcp.stop`); and the one an MCP client reads, the tabs shared with it (`mcp.shared`)."""

from __future__ import annotations

import asyncio
from typing import Any

from waymark.host.mcp_access import ACCESS
from waymark.host.methods import CallContext, MethodError, method


@method("mcp.watch")
async def mcp_watch(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Stream the MCP state (`clients` notifications: pending requests, clients in control) until
    the caller cancels; the current state comes first."""

    def watcher(state: dict[str, Any]) -> None:
        ctx.notify("clients", state)

    ACCESS.watchers.add(watcher)
    try:
        watcher(ACCESS.state())
        await asyncio.Event().wait()
    finally:
        ACCESS.watchers.discard(watcher)
    return {}


@method("mcp.decide")
async def mcp_decide(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Allow (true) or deny (false) the client of a pending request, or answer a question of its
    agent run (`answer`: words, empty to skip)."""
    allow = params["answer"][:2000] if isinstance(params.get("answer"), str) else params.get("allow")
    if not isinstance(allow, (bool, str)):
        raise MethodError("bad_params", "give allow (true or false) or answer (text)")
    if not ACCESS.decide(str(params.get("request_id", "")), allow):
        raise MethodError("no_such_request", "no MCP client is waiting for that answer")
    return {"decided": True}


@method("mcp.stop")
async def mcp_stop(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Disconnect every MCP client now; each must be allowed again to come back."""
    return {"stopped": ACCESS.stop()}


@method("mcp.share")
async def mcp_share(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Share a tab of the user's with the MCP clients (`shared` true) or take it back."""
    tab_id, shared = params.get("tab_id"), params.get("shared")
    if not isinstance(tab_id, int) or not isinstance(shared, bool):
        raise MethodError("bad_params", "give tab_id (a number) and shared (true or false)")
    ACCESS.share(tab_id, shared)
    return {"shared": sorted(ACCESS.shared)}


@method("mcp.shared")
async def mcp_shared(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The tabs the user shares with MCP clients."""
    return {"tabs": sorted(ACCESS.shared)}
