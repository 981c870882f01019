"""The host's side of the control socket: terminal tools (`waymark run`, the eval harness,
`waymark mcp`) call host methods exactly as the side panel does, over a local Unix socket.

The controller (host.control_client) listens on the path in $WAYMARK_CONTROL and launches the
browser with that variable set; Chrome passes its environment to the host it starts, and
the host connects back once the extension's handshake is done. A host the user's own Chrome
started has no controller: it listens on its own user-only control socket instead
(host.browsers), where `waymark mcp` attaches.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import Any, Awaitable, Callable, Coroutine, Protocol

from pydantic import BaseModel

from waymark.host.bridge import BrowserBridge
from waymark.host.browsers import register, unregister
from waymark.host.calls import CallRunner
from waymark.host.channel import (
    Send,
    bad_frame_reply,
    closing_reply,
    serve_frames,
    stream_frames,
)
from waymark.host.core import PROTOCOL_VERSION, __version__
from waymark.host.core.paths import control_socket_override, private_dir
from waymark.host.core.protocol import (
    Call,
    Cancel,
    ControlHello,
    ErrorInfo,
    ErrorReply,
    Notify,
    Outbound,
    Reply,
    parse_inbound,
)
from waymark.host.framing import MAX_INBOUND_BYTES, write_stream_frame
from waymark.host.mcp_access import ACCESS, ClientConnection, ConsentDenied
from waymark.host.mcp_scope import as_client, opened_tabs, refusal, visible_reply
from waymark.host.mcp_waiting import WaitingBadge
from waymark.host.peer import peer_of

log = logging.getLogger(__name__)

#: The first call of an attached MCP client: asks the user to allow it.
MCP_CONNECT = "mcp.connect"
#: An allowed client's question before a destructive action, answered by the user in the side panel.
MCP_CONFIRM = "mcp.confirm"
#: A question of an agent run an allowed client started, passed on to the user in the side panel.
MCP_ASK = "mcp.ask"
#: What an allowed MCP client may call: the browser and the agent, never the side panel's own
#: methods (it must not answer its own questions, share tabs, change settings or read secrets).
#: A workflow replay opens its own tab from its start URL, as agent.run with a start_url does.
CLIENT_METHODS = frozenset({"snapshot", "act", "browser.request", "agent.run", "agent.answer", "mcp.shared", "host.info",
                            "workflow.run", "workflow.save", "workflow.list"})


class ControlledHost(Protocol):
    """What a control connection needs of the host (host.server.HostServer): its browser bridge
    and the runner of its calls. Named here so this module does not import the server."""

    bridge: BrowserBridge
    calls: CallRunner


async def serve_control(path: str, server: ControlledHost, handshake_done: asyncio.Event) -> None:
    """Connect to the controller at `path` and serve its calls until either side closes."""
    await handshake_done.wait()
    try:
        reader, writer = await asyncio.open_unix_connection(path, limit=MAX_INBOUND_BYTES)
    except OSError as exc:
        log.warning("no controller at %s: %s", path, exc)
        return
    log.info("connected to controller at %s", path)
    await serve_connection(reader, writer, server)


async def listen_control(server: ControlledHost, handshake_done: asyncio.Event) -> None:
    """Serve this host's own control socket for `waymark mcp` to attach to, once the browser's
    handshake is done, until cancelled: each browser's host has its own, described beside it
    (host.browsers), so several browsers on one machine stay apart. The folder is user-only
    and the socket 0600: another user on the machine cannot connect."""
    await handshake_done.wait()
    override = control_socket_override()
    entry = None if override else register()
    path = override or entry.socket  # type: ignore[union-attr]
    private_dir(path.parent)
    bound = await _bind(path, server)
    badge = WaitingBadge(server.bridge)
    ACCESS.watchers.add(badge)
    try:
        await asyncio.Event().wait()
    finally:
        ACCESS.watchers.discard(badge)
        if bound is not None:
            bound[0].close()
        if entry is not None:
            unregister(entry)
        else:
            with contextlib.suppress(OSError):
                if bound is not None and path.stat().st_ino == bound[1]:
                    path.unlink()


async def _bind(path: Path, server: ControlledHost) -> tuple[asyncio.AbstractServer, int] | None:
    """Listen on `path` (replacing a socket left there), user-only; the listener and the inode it
    bound, or None when the path cannot be bound."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a socket left by a host that died
    try:
        listener = await asyncio.start_unix_server(
            lambda r, w: serve_connection(r, w, server, gated=True), path=str(path), limit=MAX_INBOUND_BYTES)
    except OSError as exc:
        log.warning("cannot listen on the control socket %s: %s", path, exc)
        return None
    os.chmod(path, 0o600)
    log.info("listening for MCP clients on %s", path)
    return listener, path.stat().st_ino


async def serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, server: ControlledHost,
                           gated: bool = False) -> None:
    """Say hello on a control connection, then run its calls until it closes; calls it started
    are cancelled when it goes. A `gated` connection (an MCP client attached to the user's own
    browser) may call nothing until its `mcp.connect` is allowed by the user (host.mcp_access)."""

    def send(message: Outbound) -> None:
        if not writer.is_closing():
            write_stream_frame(writer, message)

    def refuse(call_id: str, code: str, message: str) -> None:
        send(Reply(id=call_id, ok=False, error=ErrorInfo(code=code, message=message)))

    send(ControlHello(host_version=__version__, protocol=PROTOCOL_VERSION, extension_version=server.bridge.extension_version))

    def cut_off() -> None:
        send(ErrorReply(code="stopped", message="the user stopped MCP clients in the side panel"))
        writer.close()

    client = ClientConnection(close=cut_off, peer=peer_of(writer.get_extra_info("socket"))) if gated else None
    if client is not None:
        ACCESS.opened(client)
    started: list[str] = []
    asking: set[asyncio.Task[None]] = set()

    def ask(answer: Callable[[ClientConnection, Call, Send], Coroutine[Any, Any, None]], connection: ClientConnection, call: Call) -> None:
        task = asyncio.get_running_loop().create_task(answer(connection, call, send))
        asking.add(task)
        task.add_done_callback(asking.discard)

    def handle(message: BaseModel) -> None:
        if isinstance(message, Cancel):
            server.calls.cancel(message.id)
        elif not isinstance(message, Call):
            send(ErrorReply(id=getattr(message, "id", None), code="unsupported", message="the control socket takes only call and cancel"))
        elif client is None:
            started.append(message.id)
            server.calls.start(message, send)
        elif message.method == MCP_CONNECT:
            ask(_admit, client, message)
        elif not client.allowed:
            refuse(message.id, "consent_required", f"call {MCP_CONNECT} first: the user allows MCP clients in the side panel")
        elif message.method in (MCP_CONFIRM, MCP_ASK):
            ask(_confirm if message.method == MCP_CONFIRM else _question, client, message)
        elif message.method not in CLIENT_METHODS:
            refuse(message.id, "not_for_clients", f"MCP clients may not call {message.method[:64]!r}")
        elif out := refusal(message.method, message.params, ACCESS.scope(client)):
            refuse(message.id, out.code, out.message)
        else:
            message = message.model_copy(update={"params": as_client(message.method, message.params, client.client)})
            started.append(message.id)
            server.calls.start(message, _scoped(send, client, message), client.id)

    try:
        ended = await serve_frames(stream_frames(reader), parse_inbound, handle, lambda exc: send(bad_frame_reply(exc)))
        if ended is not None:
            log.warning("closing a control connection: %s", ended)
            if (reply := closing_reply(ended)) is not None:
                send(reply)
    finally:
        for call_id in started:
            server.calls.cancel(call_id)
        for task in asking:
            task.cancel()
        if client is not None:
            ACCESS.closed(client)
        writer.close()
        log.info("control connection closed")


def _scoped(send: Send, client: ClientConnection, call: Call) -> Send:
    """`send` for a client's call: the tabs its replies and notifications show it opened become
    its own, a tab list shows only its tabs, and an `act` reply is noted in the panel's activity list."""
    acting = call.method == "act" and isinstance(call.params.get("action"), dict)

    def send_scoped(message: Outbound) -> None:
        if isinstance(message, (Reply, Notify)) and message.id == call.id and message.data is not None:
            data = message.data
            client.tabs |= opened_tabs(call.method, call.params, data)
            if isinstance(message, Reply):
                message = message.model_copy(update={"data": visible_reply(call.method, call.params, data, ACCESS.scope(client))})
                if acting:
                    error = data.get("error") or (message.error.model_dump() if message.error else {})
                    ms = float(data.get("settle_ms") or 0)
                    ACCESS.did(client.client, call.params["action"], bool(message.ok and data.get("ok")), error.get("code", ""), ms)
        elif isinstance(message, Reply) and acting:
            ACCESS.did(client.client, call.params["action"], False, message.error.code if message.error else "")
        send(message)

    return send_scoped


async def _admit(client: ClientConnection, call: Call, send: Send) -> None:
    """Answer an `mcp.connect` once the user allowed the client (or denied it)."""
    name = str(call.params.get("client") or "an unnamed MCP client")[:100]
    await _answer(call, send, lambda: ACCESS.admit(client, name), lambda _: {"client": name, "allowed": True})


async def _confirm(client: ClientConnection, call: Call, send: Send) -> None:
    """Answer an `mcp.confirm` with the user's yes or no from the side panel."""
    line, reason = (str(call.params.get(k, ""))[:300] for k in ("action_line", "reason"))
    await _answer(call, send, lambda: ACCESS.confirm(client, line, reason), lambda allowed: {"allowed": allowed})


async def _question(client: ClientConnection, call: Call, send: Send) -> None:
    """Answer an `mcp.ask` with the user's words from the side panel (None: skipped)."""
    question = str(call.params.get("question", ""))[:1000]
    await _answer(call, send, lambda: ACCESS.ask(client, question), lambda answer: {"answer": answer})


async def _answer(call: Call, send: Send, ask: Callable[[], Awaitable[Any]], data: Callable[[Any], dict[str, Any]]) -> None:
    try:
        answer = await ask()
    except ConsentDenied as exc:
        send(Reply(id=call.id, ok=False, error=ErrorInfo(code=exc.code, message=exc.message)))
        return
    send(Reply(id=call.id, ok=True, data=data(answer)))
