"""The one admission: every action an agent run, a workflow replay (its heal turns included) or an
MCP client sends to the browser is decided here first, in this order: the URL it opens (scheme,
the domain lists), the tab it moves to, the egress question, a destructive action's confirmation,
the secrets it types. What passes comes back as the Admitted token (host.core.admitted), the only
thing host.browser.act sends; what does not is a Refusal with one named code, the same whichever
driver asked. The extension judges the token's gate again at the last moment (extension/sw/gate.js).
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Literal

from waymark.host.agent.action_lines import action_line
from waymark.host.agent.confirm import (
    Policy,
    destructive_reason,
    domain_refusal,
    policy_gate,
)
from waymark.host.agent.egress import Egress
from waymark.host.agent.human import Human
from waymark.host.agent.redaction import (
    Redactor,
    SecretMissing,
    SecretRefused,
    SecretScope,
    protect_typed_text,
    resolve_action,
)
from waymark.host.core.actions import (
    ActionModel,
    AnswerDialog,
    CloseTab,
    NewTab,
    SwitchTab,
    absolute_url,
    action_json,
)
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.gate import Gate
from waymark.host.core.snapshot import Snapshot

#: The named refusals (the extension's own url_refused and tab_refused among them), and the
#: secret codes of host.agent.redaction.
RefusalCode = Literal["url_refused", "tab_refused", "egress_declined", "destructive_blocked", "declined"] | str
#: The tabs a driver may move to or close: the run's own, or those the host lets an MCP client touch.
TabsOf = Callable[[], Awaitable[set[int]]]


class Refusal(Exception):
    """Why an action was not admitted. `ends`: the user said no or the policy blocks it, so the
    run or replay stops there (`outcome` says how); otherwise the driver may choose another action."""

    def __init__(self, code: RefusalCode, message: str, *, ends: bool = False,
                 outcome: Literal["blocked", "declined", "failed"] = "blocked", reason: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        #: What the model is told (it may hold advice on what to do instead).
        self.message = message
        #: Why, in the user's words, for a summary that names it (the message without its advice).
        self.reason = reason or message
        self.ends = ends
        self.outcome = outcome

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Admission:
    """One driver's admission: its policy (the user's saved one narrowed by the caller), the user to
    ask, the secrets it may type, its tabs, and the origins it reached (host.agent.egress)."""

    def __init__(self, policy: Policy, human: Human, redactor: Redactor, secrets: SecretScope, tabs: TabsOf, *,
                 task: str = "", file_folders: list[str] | None = None) -> None:
        self.policy = policy
        self.human = human
        self.redactor = redactor
        self.secrets = secrets
        self._tabs = tabs
        self.file_folders = list(file_folders or [])
        self.egress = Egress(task)
        #: The dialog (type, message) that the destructive action the user just approved left
        #: open: OK on it is the same deletion the user said yes to, asked once, not twice.
        self._approved_dialog: tuple[str, str] | None = None
        #: The user said yes to the destructive action admitted last (until it is dispatched).
        self._user_said_yes = False

    def saw(self, snapshot: Snapshot) -> None:
        """A page of the run: its origin and its links need no egress question."""
        self.egress.saw(snapshot)

    async def gate(self) -> Gate:
        """The gate the driver's requests carry, with its tabs as they are now."""
        return policy_gate(self.policy, await self._tabs(), self.file_folders)

    async def admit(self, action: ActionModel, snap: Snapshot | None = None, *, safe: Snapshot | None = None,
                    record: dict[str, Any] | None = None, secrets: SecretScope | None = None,
                    approved: str | None = None) -> Admitted:
        """Decide `action`, chosen on `snap` (`safe`: its redacted form, for questions and records):
        the Admitted token, or a Refusal. `approved`: why a destructive action needs no question
        (a workflow step the user approved). `record` gets what was decided (a resolved URL, the
        user's answer)."""
        record = {} if record is None else record
        safe = safe or snap
        self._user_said_yes = False
        if snap is not None:
            self.saw(snap)
        action = self._resolved(action, snap, record)
        url = getattr(action, "url", None) if action.traits.opens_url else None
        if url:
            judge_url(url, self.policy, self.file_folders)
            await self._ask_egress(action, url, safe, record)
        tabs = await self._tabs()
        if isinstance(action, (SwitchTab, CloseTab)) and action.tab_id is not None and action.tab_id not in tabs:
            raise Refusal("tab_refused", f"tab {action.tab_id} is not one of this run's tabs: it moves to and closes only the tabs "
                          "it started in or opened")
        reason = destructive_reason(action, safe)
        # Only the very next action can answer the approved action's dialog: any other spends it.
        opened_by_approved, self._approved_dialog = self._approved_dialog, None
        if reason and isinstance(action, AnswerDialog) and opened_by_approved is not None and snap is not None \
                and snap.dialog is not None and opened_by_approved == (snap.dialog.type, snap.dialog.message):
            approved = approved or "approved with the action that opened the dialog"
        if reason:
            await self._confirm(action, reason, safe, record, approved)
        try:
            resolved = resolve_action(action, self.redactor, secrets or self.secrets)
        except SecretMissing as exc:
            raise Refusal(exc.code, exc.message, ends=True, outcome="failed") from None
        except SecretRefused as exc:
            raise Refusal(exc.code, exc.message) from None
        protect_typed_text(action, snap, self.redactor)
        return Admitted(action=action_json(resolved.action), gate=policy_gate(self.policy, tabs, self.file_folders), chosen=action,
                        secret_origins=resolved.secret_origins)

    async def admit_open(self, url: str) -> Admitted:
        """Opening `url` in a new tab (a run's start page, an MCP client's new tab), decided as a new_tab is."""
        return await self.admit(NewTab(url=url))

    def starts_on(self, snapshot: Snapshot) -> None:
        """The page a run starts on (the user's tab, or its start URL loaded): a Refusal that ends
        the run when the policy does not allow it; otherwise its origin and links are known."""
        refusal = domain_refusal(snapshot.url, self.policy)
        if refusal:
            raise Refusal("url_refused", f"the agent may not work on this page: {refusal}", ends=True)
        self.saw(snapshot)

    def arrived(self, url_after: str | None, line: str) -> None:
        """Where an admitted action took the tab (a link, a redirect): a Refusal that ends the run
        when it is a page the policy does not allow."""
        refusal = domain_refusal(url_after, self.policy) if url_after else None
        if refusal:
            raise Refusal("url_refused", f"{line} led to a page that is not allowed: {refusal}", ends=True)

    def dispatched(self, result: ActionResult) -> None:
        """What the action admitted last did that a later decision depends on: a destructive action
        the user approved that left a dialog open makes OK on that dialog need no second question."""
        if self._user_said_yes:
            self._approved_dialog = next(((str(d.get("type")), str(d.get("message"))) for d in result.dialogs
                                          if d.get("handled") == "pending"), None)
        self._user_said_yes = False

    def _resolved(self, action: ActionModel, snap: Snapshot | None, record: dict[str, Any]) -> ActionModel:
        given = getattr(action, "url", None) if action.traits.opens_url else None
        if not given or snap is None:
            return action
        resolved = absolute_url(given, snap.url)
        if resolved == given:
            return action
        record["url_given"] = given
        action = action.model_copy(update={"url": resolved})
        record["action"] = action_json(action)
        return action

    async def _ask_egress(self, action: ActionModel, url: str, safe: Snapshot | None, record: dict[str, Any]) -> None:
        """The first visit to a site the run was never sent to, with data in its address, when the
        policy asks (host.agent.egress); the answer holds for the rest of the run."""
        if self.policy.egress == "allow":
            return
        declined = Refusal("egress_declined", "the user did not allow this run to open that site; go on with the task on the sites it uses")
        if self.egress.refused(url):
            raise declined
        reason = self.egress.question(url)
        if reason is None:
            return
        record["egress"] = reason
        approved = await self._ask(action, reason, safe)
        record["confirmation"] = "approved" if approved else "declined"
        self.egress.answered(url, approved)
        if not approved:
            raise declined

    async def _confirm(self, action: ActionModel, reason: str, safe: Snapshot | None, record: dict[str, Any], approved: str | None) -> None:
        """A destructive action: allowed by the policy or an approval, blocked, or asked about."""
        record["destructive"] = reason
        line = action_line(action, safe)
        if self.policy.destructive == "allow" or approved:
            record["confirmation"] = approved or "allowed by policy"
            return
        if self.policy.destructive == "block":
            raise Refusal("destructive_blocked", f"{line} was blocked by policy ({reason})", ends=True, outcome="blocked")
        yes = await self._ask(action, reason, safe)
        record["confirmation"] = "approved" if yes else "declined"
        self._user_said_yes = yes
        if not yes:
            raise Refusal("declined", f"the user declined {line} ({reason})", ends=True, outcome="declined")

    async def _ask(self, action: ActionModel, reason: str, safe: Snapshot | None) -> bool:
        """The user's yes or no; a question nobody answers within the policy's timeout is a no."""
        request = {"action": action_json(action), "action_line": action_line(action, safe), "reason": reason,
                   "url": safe.url if safe else ""}
        try:
            return bool(await asyncio.wait_for(self.human.confirm(request), self.policy.confirm_timeout_s))
        except TimeoutError:
            return False


async def admit_from_client(admission: Admission, action: ActionModel, snap: Snapshot | None, caller: Gate,
                            secret_origins: list[str] | None) -> Admitted:
    """An act an attached MCP client sent over the control socket itself, decided by `admission` as any
    driver's action is (a destructive one asked about in the side panel), under a gate the caller's
    can only narrow. `secret_origins`: where the client's own session let a secret it resolved be
    typed, kept unless this admission resolved one itself."""
    admitted = await admission.admit(action, snap)
    return Admitted(action=admitted.action, gate=caller.within(admitted.gate), chosen=admitted.chosen,
                    secret_origins=admitted.secret_origins if admitted.secret_origins is not None else secret_origins)


def judge_url(url: str, policy: Policy, file_folders: list[str]) -> None:
    """A Refusal (url_refused) unless `url` may be opened: http(s) and about:blank by the domain
    lists, file: only while some folder is allowed (the extension judges which, on the browser's
    parse of the path)."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "file" and not file_folders:
        raise Refusal("url_refused", "local files may not be opened (no folder is allowed in the settings)")
    if scheme not in ("http", "https", "file") and url.strip().lower() != "about:blank":
        raise Refusal("url_refused", f"only http(s) pages and about:blank may be opened, not {scheme or 'that'}: URLs")
    refusal = domain_refusal(url, policy)
    if refusal:
        raise Refusal("url_refused", f"that URL is not allowed ({refusal}); stay on allowed sites", reason=refusal)


def admit_forwarded(action: ActionModel, caller: Gate, floor: Gate, secret_origins: list[str] | None) -> Admitted:
    """An act request from a control-socket client (the MCP server's session, which its own Admission
    decided; the terminal commands; tests): nothing it says may widen what the user allowed, so its
    gate is narrowed to the user's saved lists (`floor`), which the extension judges its URL and tab
    on, with the browser's own parse (extension/sw/gate.js)."""
    return Admitted(action=action_json(action), gate=caller.within(floor), chosen=action, secret_origins=secret_origins)
