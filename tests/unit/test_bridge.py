"""The host's handle on the browser once the native port has closed."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from waymark.host.bridge import BrowserBridge, BrowserDisconnected


def test_a_request_made_after_the_port_closed_fails_at_once_without_writing_to_the_channel():
    sent: list[BaseModel] = []
    bridge = BrowserBridge(sent.append)
    bridge.disconnect()

    async def detach() -> None:
        # The agent's clean-up detaches the debugger after a cancel; Chrome kills the host 2 s
        # after closing the port, so this must not wait for an answer that cannot come.
        await bridge.request("act.detach", {}, timeout=60)

    with pytest.raises(BrowserDisconnected):
        asyncio.run(asyncio.wait_for(detach(), 5))
    assert sent == []


def test_a_request_outstanding_when_the_port_closes_fails_with_browser_disconnected():
    sent: list[BaseModel] = []
    bridge = BrowserBridge(sent.append)

    async def scenario() -> None:
        pending = asyncio.ensure_future(bridge.request("snapshot", {}))
        while not sent:
            await asyncio.sleep(0)
        bridge.disconnect()
        await pending

    with pytest.raises(BrowserDisconnected):
        asyncio.run(scenario())
    assert [getattr(m, "method", None) for m in sent] == ["snapshot"]
