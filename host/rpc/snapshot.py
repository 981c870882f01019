"""The host method `snapshot`: SnapshotOptions forwarded to the extension, the Snapshot JSON back.

The agent loop calls `host.browser.snapshot` directly; this method serves the controller
(`waymark snapshot`, benchmarks, tests), which reach the browser through the host exactly as
the agent does.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from waymark.host.browser import snapshot as browser_snapshot
from waymark.host.core.browser_api import SnapshotOptions
from waymark.host.core.validation import problems
from waymark.host.mcp_access import ACCESS
from waymark.host.methods import CallContext, MethodError, method


@method("snapshot")
async def snapshot(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """A typed snapshot of a tab (the active one when `tab_id` is absent), validated on the way back."""
    try:
        options = SnapshotOptions.model_validate(params)
    except ValidationError as exc:
        raise MethodError("bad_params", f"not snapshot options: {problems(exc)}") from None
    # A page with many frames or a screenshot takes longer than a plain request.
    result = await browser_snapshot(ctx.browser, options, timeout=60.0)
    connection = ACCESS.connections.get(ctx.client_id) if ctx.client_id is not None else None
    if connection is not None:
        # A page an attached client was shown: the sites it links to are the client's to open.
        connection.egress.saw(result)
    return result.model_dump(mode="json")
