"""One MCP client's browser session: the tab it works in, the tabs it may touch, and the
agent's rules applied to every action it asks for (domain lists, destructive-action
confirmation, secrets filled in only at dispatch, sensitive values redacted from results)."""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable

from waymark.host.agent.action_lines import action_line
from waymark.host.agent.confirm import (
    Policy,
    destructive_reason,
    domain_refusal,
    policy_gate,
)
from waymark.host.agent.redaction import (
    Redactor,
    SecretRefused,
    SecretScope,
    protect_typed_text,
    resolve_action,
)
from waymark.host.agent.verifier import (
    PAGE_TEXT,
    Expectation,
    Predicate,
    Verification,
    VerifyContext,
)
from waymark.host.control_client import HostCallError, HostNotConnected, Notification
from waymark.host.control_server import MCP_ASK, MCP_CONFIRM
from waymark.host.core.actions import (
    ActionModel,
    CloseTab,
    SwitchTab,
    absolute_url,
    action_json,
)
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

    async def open_tab(self, url: str) -> Snapshot:
        """Open `url` in a new tab of the client's, wait until it has loaded, and continue there
        (the `new_tab` action settles on the old tab's terms and can snapshot a page still loading)."""
        url = self._allowed_url(url)
        gate = policy_gate(self.policy, self._known_tabs()).model_dump()
        data = await self.call("browser.request", {"method": "tabs.open", "params": {"url": url, "gate": gate}}, timeout=50.0)
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
        # An MCP session outlives many tool calls: secrets stored since it began are redacted too.
        self.last = self.redactor.learn_store().snapshot(snap.model_copy(update={"screenshot_b64": None}))
        return self.last.model_copy(update={"screenshot_b64": snap.screenshot_b64})

    async def page_text(self) -> str:
        """The readable text of every frame of the current tab (for text_present and extract)."""
        result = await self._dispatch(PAGE_TEXT, snapshot=False)
        return result.text or "" if result.ok else ""

    async def verify(self, predicates: list[Predicate], timeout_s: float | None) -> Verification:
        """The predicates over fresh snapshots, `.eventually` (backoff, bounded by `timeout_s`)."""
        expectation = Expectation(predicates, VerifyContext(url_before=self.url_before), page_text=self.page_text)
        first = await self.snapshot()
        return await expectation.eventually(first, self.snapshot, timeout=timeout_s, max_tries=20 if timeout_s else 5)

    # ------------------------------------------------------------ actions

    async def act(self, action: ActionModel, confirm: Confirm, *, max_chars: int = DEFAULT_MAX_CHARS) -> tuple[ActionResult, str]:
        """Carry out one grammar action under the user's policy; returns the redacted result (with
        the settled snapshot, or the fresh one of a stale ref) and the action's human line."""
        url = getattr(action, "url", None) if action.traits.opens_url else None
        if url:
            action = action.model_copy(update={"url": self._allowed_url(url)})
        # The generation of the refs the client read: a ref of the tab's earlier page is stale.
        generation = self.last.ref_generation if self.last is not None and self.last.tab_id == self.tab_id else None
        seen = await self._snapshot_with(getattr(action, "ref", None))
        line = action_line(action, seen)
        reason = destructive_reason(action, seen)
        if reason:
            await self._gate(line, reason, confirm)
        try:
            # A client has no task naming secrets: only what the user granted it, and where.
            resolved = resolve_action(action, self.redactor, SecretScope(named=None, client=self.client))
        except SecretRefused as exc:
            raise ToolError(exc.code, exc.message) from None
        protect_typed_text(action, seen, self.redactor)
        self.url_before = seen.url if seen else ""
        result = await self._dispatch(resolved.action, max_chars=max_chars, ref_generation=generation, secret_origins=resolved.secret_origins)
        if result.tab_id is not None:
            self.tab_id = result.tab_id
        refusal = domain_refusal(result.url_after, self.policy) if result.url_after else None
        if refusal:
            # A link or redirect took the tab somewhere the user does not allow: show nothing of it.
            raise Refused("blocked_domain", f"{line} led to {result.url_after}, which is not allowed ({refusal}); "
                          "go back with browser_navigate_back")
        seen_after = self._seen(result.snapshot) if result.snapshot is not None else None
        safe = ActionResult.model_validate(self.redactor.obj(result.model_dump(mode="json", exclude={"snapshot"})))
        safe.snapshot = seen_after
        return safe, self.redactor.text(line)

    def _allowed_url(self, url: str) -> str:
        """The URL resolved against the current page as a link would be; Refused when the domain
        lists forbid it (checked before the browser goes there)."""
        url = absolute_url(url, self.last.url if self.last else "")
        refusal = domain_refusal(url, self.policy)
        if refusal:
            raise Refused("blocked_domain", f"{url} may not be visited: {refusal}")
        return url

    async def _snapshot_with(self, ref: Any) -> Snapshot | None:
        """The snapshot a ref was chosen from: the last one shown, or a fresh one when it lacks the ref."""
        if not isinstance(ref, int) or (self.last is not None and self.last.find(ref) is not None and self.last.tab_id == self.tab_id):
            return self.last
        return await self.snapshot()

    async def _gate(self, line: str, reason: str, confirm: Confirm) -> None:
        if self.policy.destructive == "allow":
            return
        if self.policy.destructive == "block":
            raise Refused("blocked_destructive", f"{line} was blocked by policy ({reason})")
        if not await confirm(line, reason):
            raise Refused("declined", f"the user declined {line} ({reason})")

    def _known_tabs(self) -> set[int]:
        return {self.tab_id} if self.tab_id is not None else set()

    async def _dispatch(self, action: ActionModel, *, snapshot: bool = True, max_chars: int = DEFAULT_MAX_CHARS,
                        ref_generation: int | None = None, secret_origins: list[str] | None = None) -> ActionResult:
        tabs = self._known_tabs()
        if isinstance(action, (SwitchTab, CloseTab)):
            # The tabs the host lets this client see (its own, and those the user shared): the gate
            # admits a switch or close to one of them only. No local files for a client.
            tabs |= {t["tab_id"] for t in await self.tabs() if isinstance(t.get("tab_id"), int)}
        request = ActRequest(tab_id=self.tab_id, action=action_json(action), ref_generation=ref_generation,
                             snapshot=SnapshotOptions(max_chars=max_chars) if snapshot else None, dialogs="ask", gate=policy_gate(self.policy, tabs),
                             secret_origins=secret_origins)
        return ActionResult.model_validate(await self.call("act", request.model_dump(mode="json"), timeout=request.reply_deadline_s() + 5))
