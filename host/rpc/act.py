"""The host method `act`: one typed action forwarded to the extension, its ActionResult back.

The agent loop calls `host.browser.act` directly; this method serves the controller, the
terminal commands and the end-to-end tests, which reach the browser through the host exactly
as the agent does.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from waymark.host.agent.admission import admit_forwarded
from waymark.host.agent.confirm import Policy, policy_gate
from waymark.host.browser import act as browser_act
from waymark.host.core.actions import BROWSER_ACTIONS, UPLOAD_ACTIONS, parse_action
from waymark.host.core.browser_api import ActRequest
from waymark.host.core.gate import Gate
from waymark.host.core.validation import problems
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.settings import load_settings


@method("act")
async def act(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Carry out one action (host.core.actions JSON) in the browser; failures are `ok: false` results."""
    try:
        request = ActRequest.model_validate(params)
    except ValidationError as exc:
        raise MethodError("bad_params", f"not an act request: {problems(exc)}") from None
    try:
        action = parse_action(request.action)
    except ValidationError as exc:
        raise MethodError("bad_action", f"not a valid action: {problems(exc)}") from None
    kind = action.type
    if kind not in BROWSER_ACTIONS:
        raise MethodError("bad_action", f"{kind!r} is handled by the agent loop, not the browser")
    settings = load_settings()
    # The caller's gate (its policy and its run's tabs) can only narrow the user's saved lists.
    saved = Policy(allow_domains=settings.allow_domains, block_domains=settings.block_domains)
    admitted = admit_forwarded(action, request.gate or Gate(), policy_gate(saved, [], settings.file_folders), request.secret_origins)
    upload_dir = settings.upload_dir if kind in UPLOAD_ACTIONS else None
    result = await browser_act(ctx.browser, admitted, request, upload_dir=upload_dir)
    return result.model_dump(mode="json")
