"""The user's browser shows that an MCP client is waiting for an answer even while the side panel
is closed: the host tells the extension how many questions wait (`mcp.waiting`), and the
toolbar icon carries that number until the user answers in the panel (extension/sw/mcp_badge.js)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from waymark.host.bridge import BrowserBridge

log = logging.getLogger(__name__)


class WaitingBadge:
    """An `Access` watcher that mirrors the number of waiting questions to the browser's badge."""

    def __init__(self, bridge: "BrowserBridge") -> None:
        self._bridge = bridge
        self._shown = 0
        self._sending: set[asyncio.Task[None]] = set()

    def __call__(self, state: dict[str, Any]) -> None:
        pending = state.get("pending", [])
        if len(pending) == self._shown:
            return
        self._shown = len(pending)
        params = {"count": len(pending), "client": pending[0].get("client", "") if pending else ""}
        task = asyncio.get_running_loop().create_task(self._tell(params))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _tell(self, params: dict[str, Any]) -> None:
        try:
            await self._bridge.request("mcp.waiting", params, timeout=5.0)
        except Exception as exc:  # a badge is a hint: a browser that went away needs none
            log.info("could not show the MCP badge: %s", exc)
