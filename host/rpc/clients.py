"""What a run started by an attached MCP client (a gated control connection) may set, and who
answers its questions.

Whoever reaches the user's control socket is a program of the same user, but not the user: it
may ask for a task, never choose what runs it (a script, a provider, a model, a base URL the API
key would be sent to), where uploads come from, or a policy wider than the one the user saved.
The user answers its runs' confirmations in the side panel; the client answers only its own
runs' questions (host.rpc.agent.agent_answer)."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.human import Human
from waymark.host.mcp_access import ACCESS, ConsentDenied
from waymark.host.methods import CallContext, MethodError

#: Run parameters only the user sets, in Settings or on the terminal that launched the browser.
USER_ONLY = ("script", "provider", "model", "planner", "executor", "provider_options", "upload_dir")
#: `workflow.save` parameters only the user sets: pre-approving destructive steps, overwriting a workflow.
USER_ONLY_SAVE = ("approve", "replace")


def refuse_user_only(params: dict[str, Any], ctx: CallContext, fields: tuple[str, ...] = USER_ONLY) -> None:
    """Raise `param_not_allowed` naming the first of `fields` an MCP client set (never its value);
    nothing for the side panel or the user's own terminal."""
    if ctx.client_id is None:
        return
    for name in fields:
        if params.get(name) not in (None, False, {}):
            raise MethodError("param_not_allowed", f"an MCP client may not set {name}: the user chooses it in Waymark's settings")


class PanelConfirms(Human):
    """The questions of a run an MCP client started: confirmations go to the user in the side
    panel, never to the client (it would approve its own actions); questions go to the client."""

    def __init__(self, client: Human, client_id: int) -> None:
        self.client = client
        self.client_id = client_id

    async def ask(self, question: str) -> str | None:
        return await self.client.ask(question)

    async def confirm(self, request: dict[str, Any]) -> bool:
        connection = ACCESS.connections.get(self.client_id)
        if connection is None:
            return False  # the client is gone: nobody to confirm for
        try:
            return await ACCESS.confirm(connection, str(request.get("action_line", ""))[:300], str(request.get("reason", ""))[:300])
        except ConsentDenied:
            return False


def note_run(ctx: CallContext, run_id: str) -> None:
    """Remember that the calling client started `run_id` (nothing for the user's own calls)."""
    connection = ACCESS.connections.get(ctx.client_id) if ctx.client_id is not None else None
    if connection is not None:
        connection.runs.add(run_id)


def refuse_others_run(ctx: CallContext, run_id: str) -> None:
    """Raise `no_such_run` unless the calling client started `run_id` itself: the user's runs
    (`latest`, a prefix, a folder path) are, to a client, no runs at all, and the error names none."""
    if ctx.client_id is None:
        return
    connection = ACCESS.connections.get(ctx.client_id)
    if connection is None or run_id not in connection.runs:
        raise MethodError("no_such_run", "this client started no run with that id")


def human_for(streamed: Human, ctx: CallContext) -> Human:
    """Who answers a run's questions: the caller, except a client's confirmations (PanelConfirms)."""
    return streamed if ctx.client_id is None else PanelConfirms(streamed, ctx.client_id)
