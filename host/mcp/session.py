"""One MCP client's browser session: the tab it works in, the tabs it may touch, and every action
it asks for decided by the admission an agent run has (host.agent.admission: the URL, the tab,
the egress question, a destructive action's confirmation, the secrets the user granted it), with
sensitive values redacted from results."""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable

from waymark.host.agent.action_lines import action_line
from waymark.host.agent.admission import Admission, Refusal
from waymark.host.agent.confirm import Policy
from waymark.host.agent.human import Human
from waymark.host.agent.redaction import Redactor, SecretScope
from waymark.host.agent.verifier import (
    PAGE_TEXT,
    Expectation,
    Predicate,
    Verification,
    VerifyContext,
)
from waymark.host.control_client import HostCallError, HostNotConnected, Notification
from waymark.host.control_server import MCP_ASK, MCP_CONFIRM
from waymark.host.core.actions import ActionModel
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import ActionResult, ActRequest, SnapshotOptions
from waymark.host.core.snapshot import Snapshot
from waymark.host.mcp.errors import NoBrowser, Refused, ToolError
from waymark.host.mcp.link import HostLink
from waymark.host.mcp.results import page_view
from waymark.host.mcp_access import CONSENT_TIMEOUT_S

log = logging.getLogger(__name__)

#: Asks the user to allow a destructive action (its line, why it looks destructive); True when they did.
Confirm = Callable[[str, str], Awaitable[bool]]
#: The session's way to its host for a named client (resolved per call: an attached browser may
#: come and go, and the user allows each client by name).
GetLink = Callable[[str], Awaitable[HostLink]]

DEFAULT_MAX_CHARS = 20_000


class _AskingThrough(Human):
    """The user as the admission asks them for an MCP client: through the confirmation of the tool
    call at hand (the side panel, or the client's elicitation)."""

    def __init__(self) -> None:
        #: The confirmation of the tool call being decided (none between calls: nothing is asked then).
        self.through: Confirm | None = None

    async def ask(self, question: str) -> str | None:
        return None

    async def confirm(self, request: dict[str, Any]) -> bool:
        return self.through is not None and await self.through(str(request.get("action_line", "")), str(request.get("reason", "")))


class McpSession:
    """The browser as one MCP client sees it. `attached`: the browser is the user's own, whose
    host lets the client act only in the tabs it opened or the user shared (host/mcp_scope.py);
    otherwise it is a browser the server launched for the client, every tab the client's."""

    def __init__(self, get_link: GetLink, policy: Policy, *, attached: bool = False) -> None:
        self._get_link = get_link
        self.policy = policy
        self.attached = attached
        self.tab_id: int | None = None
        #: The MCP client's name (from its initialize request): what the user allows.
        self.client = "an MCP client"
        self.redactor = Redactor.for_run()
        #: The last snapshot the client was shown: the refs it chooses from.
        self.last: Snapshot | None = None
        #: The URL before the last action, for `url_changed` checks.
        self.url_before = ""
        #: The page as the client last read it (whole, or as changes to what it held): what a diff is against.
        self.shown: Snapshot | None = None
        self._asking = _AskingThrough()
        #: What decides every action the client asks for before it is sent (host.agent.admission);
        #: a client has no task naming secrets, so only the user's grants to it count (secrets_for).
        self.admission = Admission(policy, self._asking, self.redactor, SecretScope(named=None, client=self.client), self._client_tabs)

    async def connected(self) -> None:
        """Raise NoBrowser unless a browser's host is reachable: said before anything else."""
        await self._get_link(self.client)

    async def call(self, method: str, params: dict[str, Any], timeout: float | None = None,
                   on_notify: Notification | None = None) -> dict[str, Any]:
        """A host method; a host or browser that went away is NoBrowser, a typed failure a ToolError."""
        link = await self._get_link(self.client)
        try:
            return await link.call(method, params, on_notify=on_notify, timeout=timeout)
        except HostNotConnected as exc:
            if link.close_reason:
                raise Refused("stopped", f"{link.close_reason}; the next call asks the user again") from None
            raise NoBrowser(f"the browser went away ({exc})") from None
        except HostCallError as exc:
            raise ToolError(exc.code, exc.message) from None

    async def confirm_in_panel(self, line: str, reason: str) -> bool:
        """Ask the user at the browser, in the side panel, to allow a destructive action."""
        data = await self.call(MCP_CONFIRM, {"action_line": line, "reason": reason}, timeout=CONSENT_TIMEOUT_S + 10)
        return data.get("allowed") is True

    async def ask_in_panel(self, question: str) -> str | None:
        """Ask the user at the browser, in the side panel, a question of an agent run; None when skipped."""
        data = await self.call(MCP_ASK, {"question": question}, timeout=CONSENT_TIMEOUT_S + 10)
        return data.get("answer") if isinstance(data.get("answer"), str) and data.get("answer") else None

    # ------------------------------------------------------------ tabs

    async def tabs(self) -> list[dict[str, Any]]:
        """The tabs this client may act in (all of them when the browser is its own; the host
        lists only the client's when it is the user's), current marked."""
        data = await self.call("browser.request", {"method": "tabs.list", "params": {}})
        tabs = data.get("data", {}).get("tabs", [])
        return [{**t, "current": t.get("tab_id") == self.tab_id} for t in tabs]

    async def open_tab(self, url: str, confirm: Confirm | None = None) -> Snapshot:
        """Open `url` in a new tab of the client's, wait until it has loaded, and continue there
        (the `new_tab` action settles on the old tab's terms and can snapshot a page still loading)."""
        admitted = await self._admit(lambda: self.admission.admit_open(url), confirm)
        data = await self.call("browser.request", {"method": "tabs.open", "params": {"url": admitted.action["url"], "gate": admitted.gate.model_dump()}},
                               timeout=50.0)
        self.tab_id = int(data["data"]["tab_id"])
        return await self.snapshot()

    # ------------------------------------------------------------ perception

    async def snapshot(self, *, max_chars: int = DEFAULT_MAX_CHARS, offset: int = 0, screenshot: bool = False) -> Snapshot:
        """A fresh snapshot of the current tab, redacted; it becomes the refs the client chooses from."""
        options = SnapshotOptions(tab_id=self.tab_id, max_chars=max_chars, offset=offset, screenshot=screenshot)
        snap = Snapshot.model_validate(await self.call("snapshot", options.model_dump(), timeout=60.0))
        return self._seen(snap)

    def show(self, snapshot: Snapshot, *, changes_only: bool = True) -> str:
        """The page as the client reads it now: only what changed since what it holds when that is
        shorter (and `changes_only`), else the whole snapshot; either way it then holds `snapshot`."""
        text = page_view(self.shown if changes_only else None, snapshot)
        self.shown = snapshot
        return text

    def _seen(self, snap: Snapshot) -> Snapshot:
        if snap.tab_id is not None:
            self.tab_id = snap.tab_id
        # An MCP session outlives many tool calls: secrets stored since it began are redacted too
        # (the store is read again only when it changed).
        self.last = self.redactor.learn_store().snapshot(snap.model_copy(update={"screenshot_b64": None}))
        self.admission.saw(self.last)
        return self.last.model_copy(update={"screenshot_b64": snap.screenshot_b64})

    async def page_text(self) -> str:
        """The readable text of every frame of the current tab (for text_present and extract)."""
        result = await self._dispatch(await self._admit(lambda: self.admission.admit(PAGE_TEXT), None), snapshot=False)
        return result.text or "" if result.ok else ""

    async def verify(self, predicates: list[Predicate], timeout_s: float | None) -> Verification:
        """The predicates over fresh snapshots, `.eventually` (backoff, bounded by `timeout_s`)."""
        expectation = Expectation(predicates, VerifyContext(url_before=self.url_before), page_text=self.page_text)
        first = await self.snapshot()
        return await expectation.eventually(first, self.snapshot, timeout=timeout_s, max_tries=20 if timeout_s else 5)

    # ------------------------------------------------------------ actions

    async def act(self, action: ActionModel, confirm: Confirm, *, max_chars: int = DEFAULT_MAX_CHARS) -> tuple[ActionResult, str]:
        """Carry out one grammar action as the admission decides it; returns the redacted result (with
        the settled snapshot, or the fresh one of a stale ref) and the action's human line."""
        # The generation of the refs the client read: a ref of the tab's earlier page is stale.
        generation = self.last.ref_generation if self.last is not None and self.last.tab_id == self.tab_id else None
        seen = await self._snapshot_with(getattr(action, "ref", None))
        secrets = SecretScope(named=None, client=self.client)
        record: dict[str, Any] = {}
        admitted = await self._admit(lambda: self.admission.admit(action, seen, secrets=secrets, record=record), confirm)
        line = action_line(admitted.chosen, seen)
        self.url_before = seen.url if seen else ""
        result = await self._dispatch(admitted, max_chars=max_chars, ref_generation=generation)
        if result.tab_id is not None:
            self.tab_id = result.tab_id
        self.admission.dispatched(result)
        try:
            # A link or redirect took the tab somewhere the user does not allow: show nothing of it.
            self.admission.arrived(result.url_after, line)
        except Refusal as refusal:
            raise Refused(refusal.code, f"{refusal.message}; go back with browser_navigate_back") from None
        seen_after = self._seen(result.snapshot) if result.snapshot is not None else None
        safe = ActionResult.model_validate(self.redactor.obj(result.model_dump(mode="json", exclude={"snapshot"})))
        safe.snapshot = seen_after
        return safe, self.redactor.text(line)

    async def _admit(self, decide: Callable[[], Awaitable[Admitted]], confirm: Confirm | None) -> Admitted:
        """The admission's decision, asking through this tool call's `confirm`; a refusal is the
        client's Refused with the admission's code."""
        self._asking.through = confirm
        try:
            return await decide()
        except Refusal as refusal:
            raise Refused(refusal.code, refusal.message) from None
        finally:
            self._asking.through = None

    async def _snapshot_with(self, ref: Any) -> Snapshot | None:
        """The snapshot a ref was chosen from: the last one shown, or a fresh one when it lacks the ref."""
        if not isinstance(ref, int) or (self.last is not None and self.last.find(ref) is not None and self.last.tab_id == self.tab_id):
            return self.last
        return await self.snapshot()

    async def _client_tabs(self) -> set[int]:
        """The tabs the host lets this client see (its own, and those the user shared; every tab of a
        browser launched for it): the only ones it may switch to or close. No local files for a client."""
        tabs = {t["tab_id"] for t in await self.tabs() if isinstance(t.get("tab_id"), int)}
        return tabs | ({self.tab_id} if self.tab_id is not None else set())

    async def _dispatch(self, admitted: Admitted, *, snapshot: bool = True, max_chars: int = DEFAULT_MAX_CHARS,
                        ref_generation: int | None = None) -> ActionResult:
        request = ActRequest(tab_id=self.tab_id, action=admitted.action, ref_generation=ref_generation,
                             snapshot=SnapshotOptions(max_chars=max_chars) if snapshot else None, dialogs="ask", gate=admitted.gate,
                             secret_origins=admitted.secret_origins)
        return ActionResult.model_validate(await self.call("act", request.model_dump(mode="json"), timeout=request.reply_deadline_s() + 5))
