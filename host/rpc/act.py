"""The host method `act`: one typed action forwarded to the extension, its ActionResult back.

The agent loop calls `host.browser.act` directly; this method serves the controller, the
terminal commands and the end-to-end tests, which reach the browser through the host exactly
as the agent does, and attached MCP clients, whose every act an admission of the host's own
decides (AskedInPanel), since the process at the other end of the socket may be any program the
user allowed.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from waymark.host.agent.admission import (
    Admission,
    Refusal,
    admit_forwarded,
    admit_from_client,
)
from waymark.host.agent.confirm import Policy, policy_gate
from waymark.host.agent.human import Human
from waymark.host.agent.redaction import Redactor, SecretScope
from waymark.host.browser import act as browser_act
from waymark.host.browser import snapshot
from waymark.host.core.actions import (
    BROWSER_ACTIONS,
    UPLOAD_ACTIONS,
    ActionModel,
    NewTab,
    parse_action,
)
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import ActRequest, SnapshotOptions
from waymark.host.core.gate import Gate
from waymark.host.core.validation import problems
from waymark.host.mcp_access import ACCESS, ClientConnection
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.settings import Settings, load_settings, saved_policy

#: The snapshot an attached client's action is judged on lists every element, not a model's budget.
JUDGED_CHARS = 1_000_000


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
    connection = ACCESS.connections.get(ctx.client_id) if ctx.client_id is not None else None
    if connection is not None:
        admitted = await _admitted_for_client(connection, action, request, ctx, settings)
    else:
        # The caller's gate (its policy and its run's tabs) can only narrow the user's saved lists.
        saved = Policy(allow_domains=settings.allow_domains, block_domains=settings.block_domains)
        admitted = admit_forwarded(action, request.gate or Gate(), policy_gate(saved, [], settings.file_folders), request.secret_origins)
    upload_dir = settings.upload_dir if kind in UPLOAD_ACTIONS else None
    result = await browser_act(ctx.browser, admitted, request, upload_dir=upload_dir)
    return result.model_dump(mode="json")


class AskedInPanel(Human):
    """The user behind an attached MCP client's act, asked in the side panel, unless they just said
    yes to this very question through the client's own session (`waymark mcp` asks before it acts)."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection

    async def ask(self, question: str) -> str | None:
        return None

    async def confirm(self, request: dict[str, Any]) -> bool:
        line, reason = str(request.get("action_line", "")), str(request.get("reason", ""))
        return self.connection.spend_approval(line, reason) or await ACCESS.confirm(self.connection, line, reason)


def client_admission(connection: ClientConnection, settings: Settings) -> Admission:
    """The admission of an attached MCP client's requests, whatever process sends them (the
    `waymark mcp` session, or one that skips it): the user's saved policy is the floor, a
    destructive action and a new site with data in its address are asked about in the side panel,
    the client's tabs and secret grants are its bounds, and the sites its pages showed (its
    connection's egress record) need no question."""

    async def tabs() -> set[int]:
        return ACCESS.scope(connection)

    admission = Admission(saved_policy(settings), AskedInPanel(connection), Redactor(),
                          SecretScope(named=None, client=connection.client or "an unnamed MCP client"), tabs)
    admission.egress = connection.egress
    return admission


async def _admitted_for_client(connection: ClientConnection, action: ActionModel, request: ActRequest, ctx: CallContext,
                               settings: Settings) -> Admitted:
    """An attached MCP client's act, decided by its connection's admission (client_admission)."""
    admission = client_admission(connection, settings)
    # Whether a click is destructive is read off the element it lands on, as the page holds it now;
    # the page an address is opened from says which sites it links to.
    judged = action.traits.confirm or action.traits.opens_url
    snap = await snapshot(ctx.browser, SnapshotOptions(tab_id=request.tab_id, max_chars=JUDGED_CHARS)) if judged else None
    try:
        return await admit_from_client(admission, action, snap, request.gate or Gate(), request.secret_origins)
    except Refusal as refusal:
        raise MethodError(str(refusal.code), refusal.message) from None


async def admitted_client_open(connection: ClientConnection, url: str, caller: Gate) -> Admitted:
    """A new tab an attached MCP client opens at `url` (`browser.request tabs.open`), decided as its
    new_tab act is: on the user's saved lists and the client's egress record, never on the gate
    the client wrote (which can only narrow them)."""
    try:
        return await admit_from_client(client_admission(connection, load_settings()), NewTab(url=url), None, caller, None)
    except Refusal as refusal:
        raise MethodError(str(refusal.code), refusal.message) from None
