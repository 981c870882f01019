"""Typed requests from the host to the extension: the one place that sends them (their models
are in host.core.browser_api).

`snapshot` and `act` are the spine of every agent step. Each takes a pydantic model and
returns one; the extension's handlers (extension/sw/) accept exactly these fields.
"""

from __future__ import annotations

from waymark.host.bridge import BrowserBridge
from waymark.host.core.browser_api import ActionResult, ActRequest, SnapshotOptions
from waymark.host.core.phases import timed
from waymark.host.core.snapshot import Snapshot


@timed("decode")
async def snapshot(bridge: BrowserBridge, options: SnapshotOptions | None = None, timeout: float = 30.0) -> Snapshot:
    """Ask the extension for a snapshot of a tab."""
    options = options or SnapshotOptions()
    data = await bridge.request("snapshot", options.model_dump(), timeout=timeout)
    return Snapshot.model_validate(data)


@timed("decode")
async def act(bridge: BrowserBridge, request: ActRequest, timeout: float = 60.0) -> ActionResult:
    """Ask the extension to carry out one action; failures come back as `ok: false` with a code."""
    data = await bridge.request("act", request.model_dump(mode="json"), timeout=timeout)
    return ActionResult.model_validate(data)


async def detach_debugger(bridge: BrowserBridge, timeout: float = 5.0) -> None:
    """Release the extension's debugger attachments (the "is debugging" state) at the end of a run."""
    await bridge.request("act.detach", {}, timeout=timeout)
