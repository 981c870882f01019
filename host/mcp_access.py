"""The host's authority over MCP clients attached through its control socket: the user allows
each connection in the side panel (for as long as it stays open), sees which clients are in
control, and cuts them all off with Stop. Consent belongs to the connection, not to the name a
client gives itself: any program can claim "Claude Desktop", so every new connection is asked
about, showing the process the kernel says is at the other end (host.peer).

`waymark mcp` asks with `mcp.connect {client}` as the first call on its connection; until the
user allows it, every other call on that connection is refused (`consent_required`). An allowed
client asks before a destructive action with `mcp.confirm {action_line, reason}`, and passes on
a question of an agent run it started with `mcp.ask {question}`: the user, who is at this
browser, answers in the side panel. Clients act in the tabs they opened and in the
tabs the user shares with them from the side panel (`mcp.share`; `mcp.shared` lists them).
What they did is kept as a short activity list the panel shows (`did`, recorded by the host). The side panel follows the state with the
streaming method `mcp.watch` and answers with `mcp.decide` and `mcp.stop` (host/rpc/mcp_access.py).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from waymark.host.agent.egress import Egress
from waymark.host.methods import MethodError
from waymark.host.peer import Peer

log = logging.getLogger(__name__)

#: How long a connecting client waits for the user's answer in the side panel.
CONSENT_TIMEOUT_S = 120.0
#: How many of the clients' latest actions the side panel lists.
ACTIVITY_ITEMS = 12
#: Approvals a connection keeps unspent (its act follows its question at once; older ones are dropped).
APPROVALS_KEPT = 4
#: Fields of an action shown in the activity list; typed text never is (it may be a filled-in secret).
_SHOWN_FIELDS = ("ref", "url", "key", "value", "direction", "tab_id", "ms")

Watcher = Callable[[dict[str, Any]], None]


class ConsentDenied(MethodError):
    """The user denied the client, or nobody answered in time; `code` says which."""


@dataclass
class ClientConnection:
    """One attached MCP server process: its client's name once it asked, and how to cut it off."""

    close: Callable[[], None]
    id: int = field(default_factory=lambda: next(_connection_ids))
    client: str = ""
    allowed: bool = False
    #: The process at the other end, from the socket's credentials (never from what it claims).
    peer: Peer = field(default_factory=Peer)
    #: Tabs this connection opened: its own to act in (host.mcp_scope).
    tabs: set[int] = field(default_factory=set)
    #: Runs this connection started: the only ones it may save as workflows (host.rpc.clients).
    runs: set[str] = field(default_factory=set)
    #: The questions (action line, reason) the user said yes to through this connection and that
    #: no act has spent yet: the act that follows them is not asked about a second time.
    approvals: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=APPROVALS_KEPT))
    #: The sites this connection's pages showed it and the user's answers to its egress questions,
    #: for as long as it stays open: what a run's egress record is to a run (host.agent.egress).
    egress: Egress = field(default_factory=lambda: Egress(""))

    def spend_approval(self, action_line: str, reason: str) -> bool:
        """Whether the user already said yes to this very question through this connection (spent once)."""
        try:
            self.approvals.remove((action_line, reason))
        except ValueError:
            return False
        return True


_connection_ids = itertools.count(1)


class Access:
    """Grants, pending requests and connected clients of one host process."""

    def __init__(self) -> None:
        self.connections: dict[int, ClientConnection] = {}
        #: Questions waiting for the user: request id -> what the panel shows, and the answer to come
        #: (yes or no; words for a question of an agent run).
        self.pending: dict[str, tuple[dict[str, str], asyncio.Future[bool | str]]] = {}
        self.watchers: set[Watcher] = set()
        #: Tabs of the user's that MCP clients may act in too.
        self.shared: set[int] = set()
        #: The clients' latest actions, newest last, shaped as agent mode's `step` events.
        self.activity: deque[dict[str, Any]] = deque(maxlen=ACTIVITY_ITEMS)
        self._request_ids = itertools.count(1)
        self._steps = itertools.count(1)

    def scope(self, connection: ClientConnection) -> set[int]:
        """The tabs a connection may act in: those it opened and those the user shares."""
        return connection.tabs | self.shared

    def state(self) -> dict[str, Any]:
        """What the side panel shows: requests waiting for an answer, and the clients in control."""
        return {
            "pending": [{"request_id": rid, **question} for rid, (question, _) in self.pending.items()],
            "active": sorted({c.client for c in self.connections.values() if c.allowed}),
            "shared": sorted(self.shared),
            "activity": list(self.activity),
        }

    def _changed(self) -> None:
        state = self.state()
        for watcher in list(self.watchers):
            try:
                watcher(state)
            except Exception:  # a watcher that went away must not stop the others
                log.exception("an MCP state watcher failed")

    def opened(self, connection: ClientConnection) -> None:
        self.connections[connection.id] = connection

    def closed(self, connection: ClientConnection) -> None:
        if self.connections.pop(connection.id, None) is not None and connection.allowed:
            self._changed()

    async def admit(self, connection: ClientConnection, client: str, timeout: float = CONSENT_TIMEOUT_S) -> None:
        """Let the connection act once the user allowed it in the side panel, which shows the name
        it claims and the process it is. Each connection is asked about: an earlier allowance of
        the same name is no allowance of this one."""
        connection.client = client
        question = {"kind": "connect", "client": client, "peer": connection.peer.describe()}
        if await self._ask(question, timeout) is not True:
            raise ConsentDenied("consent_denied", "the user did not allow this client in the side panel")
        connection.allowed = True
        log.info("MCP client %r is in control", client)
        self._changed()

    async def confirm(self, connection: ClientConnection, action_line: str, reason: str, timeout: float = CONSENT_TIMEOUT_S) -> bool:
        """The user's yes or no, in the side panel, to a destructive action of an allowed client."""
        answer = await self._ask({"kind": "confirm", "client": connection.client, "action_line": action_line, "reason": reason}, timeout)
        if answer is True:
            connection.approvals.append((action_line, reason))
        return answer is True

    async def ask(self, connection: ClientConnection, question: str, timeout: float = CONSENT_TIMEOUT_S) -> str | None:
        """The user's answer, in the side panel, to a question of an agent run a client started;
        None when they skipped it."""
        answer = await self._ask({"kind": "ask", "client": connection.client, "question": question}, timeout)
        return answer if isinstance(answer, str) and answer else None

    async def _ask(self, question: dict[str, str], timeout: float) -> bool | str:
        request_id = f"m{next(self._request_ids)}"
        future: asyncio.Future[bool | str] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = (question, future)
        self._changed()
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise ConsentDenied("consent_timeout", f"nobody answered in the side panel within {timeout:g} s: "
                                "open the Waymark side panel to answer") from None
        finally:
            self.pending.pop(request_id, None)
            self._changed()

    def decide(self, request_id: str, allow: bool | str) -> bool:
        """The user's answer to a pending request (yes or no, or the words answering a question);
        False when nothing waits under that id."""
        entry = self.pending.get(request_id)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(allow)
        return True

    def did(self, client: str, action: dict[str, Any], ok: bool, error: str = "", ms: float = 0.0) -> None:
        """Note an action a client carried out (or tried) as a step of the side panel's timeline,
        the same entry as an agent's step: number, who, the action, verdict, time."""
        shown = " ".join(f"{k}={action[k]}" for k in _SHOWN_FIELDS if action.get(k) not in (None, ""))
        line = f"{action.get('type', '?')} {shown}".strip()
        self.activity.append({"step": next(self._steps), "intent": client, "action_line": line[:200],
                              "verdict": "passed" if ok else "failed", "reason": error[:80], "timing": {"settle": ms}, "at": time.time()})
        self._changed()

    def share(self, tab_id: int, shared: bool) -> None:
        """Share one of the user's tabs with the MCP clients, or take it back."""
        if shared:
            self.shared.add(tab_id)
        else:
            self.shared.discard(tab_id)
        self._changed()

    def stop(self) -> int:
        """Cut every MCP client off at once (their running calls are cancelled) and forget the
        shared tabs: a client must be allowed again. Returns how many connections were closed."""
        self.shared.clear()
        for _, future in self.pending.values():
            if not future.done():
                future.set_result(False)
        victims = list(self.connections.values())
        for connection in victims:
            connection.close()
        log.info("stopped %d MCP client connection(s)", len(victims))
        self._changed()
        return len(victims)


#: The host process's one authority: a host lives as long as its browser's native port.
ACCESS = Access()
