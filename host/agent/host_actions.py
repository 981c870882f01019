"""The actions the host carries out itself (done, ask_user) and the gates an action passes before
the browser does it (close_tab on this task's tabs only, confirmation of a destructive action)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable, cast

from waymark.host.agent import repair as repairs
from waymark.host.agent.action_lines import action_line
from waymark.host.agent.answers import Answers
from waymark.host.agent.budgets import BudgetExhausted
from waymark.host.agent.confirm import (
    Policy,
    ask_user_to_confirm,
    destructive_reason,
    domain_refusal,
    refuse_unconfirmed,
)
from waymark.host.agent.egress import Egress
from waymark.host.agent.human import Human
from waymark.host.agent.planner import PlanStep
from waymark.host.agent.proof import Proof
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.step_judge import Attempted, Finish, StepOutcome
from waymark.host.agent.verdicts import RunOutcome
from waymark.host.agent.verifier import Expectation
from waymark.host.bridge import BrowserError
from waymark.host.core.actions import (
    ActionModel,
    AnswerDialog,
    AskUser,
    CloseTab,
    Done,
    absolute_url,
    action_json,
)
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot


class RunStopped(Exception):
    """The run ends early for a reason that is not a budget: declined, blocked, no plan."""

    def __init__(self, outcome: RunOutcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


def ended_by(exc: Exception, wall_clock_expired: bool, wall_clock_s: float) -> tuple[RunOutcome, str]:
    """How a run that raised `exc` ended, and why, for its summary."""
    if isinstance(exc, TimeoutError):
        if wall_clock_expired:
            return "budget_wall_clock", f"the run used its {wall_clock_s:g} s wall-clock budget"
        return "error", "an operation timed out"
    if isinstance(exc, BudgetExhausted):
        return cast(RunOutcome, f"budget_{exc.kind}"), exc.message
    if isinstance(exc, RunStopped):
        return exc.outcome, exc.reason
    if isinstance(exc, BrowserError):
        return "error", f"browser {exc.code}: {exc.message}"
    return "error", f"{type(exc).__name__}: {exc}"


def ended_unexpectedly(exc: BaseException, log: logging.Logger, kind: str, run_id: str,
                       cancelled: Callable[[str], object]) -> tuple[RunOutcome, str]:
    """How a run (or replay) that raised something unforeseen ended, called from its handler.

    A cancellation still finishes the summary and is raised again; a bug is logged and becomes an
    `error` outcome, so it still leaves a summary and a trace behind.
    """
    if isinstance(exc, asyncio.CancelledError):
        cancelled(f"the {kind} was cancelled")
        raise exc
    if not isinstance(exc, Exception):
        raise exc
    log.exception("%s %s failed unexpectedly", kind, run_id)
    return "error", f"internal error: {type(exc).__name__}: {exc}"[:500]


class HostActions:
    """What answers `done` and `ask_user`, and what an action must pass before dispatch by policy."""

    def __init__(self, proof: Proof, answers: Answers, human: Human, history: list[str], session: BrowserSession, task_tabs: set[int],
                 visited: set[str], policy: Policy, task: str) -> None:
        self.proof = proof
        #: The answer asked for (host.agent.answers): `done` gives it.
        self.answers = answers
        self.human = human
        self.history = history
        self.session = session
        #: Tabs this task works in (shared with the run); the last of them is never closed.
        self.task_tabs = task_tabs
        #: The pages this run has acted on or reached (shared with the run and its guards).
        self.visited = visited
        self.policy = policy
        #: The origins this run may open without asking, and the user's answers (host.agent.egress).
        self.egress = Egress(task)
        #: The dialog (type, message) that the destructive action the user just approved left
        #: open: OK on it is the same deletion the user said yes to, asked once, not twice.
        self.approved_dialog: tuple[str, str] | None = None

    async def admit(self, action: ActionModel, snap: Snapshot, safe: Snapshot, record: dict[str, Any],
                    finish: Finish) -> tuple[ActionModel, str | None]:
        """The action as it will be dispatched (a URL resolved against the page) and why it may
        not be (the domain lists, a tab not this task's), or None; asks for confirmation of a
        destructive action, raising RunStopped when it may not happen."""
        self.egress.saw(snap)
        given = getattr(action, "url", None) if action.traits.opens_url else None
        if given:
            resolved = absolute_url(given, snap.url)
            if resolved != given:
                record["url_given"] = given
                action = action.model_copy(update={"url": resolved})
                record["action"] = action_json(action)
            refusal = domain_refusal(resolved, self.policy)
            if refusal:
                finish("refused", refusal)
                return action, f"that URL is not allowed ({refusal}); stay on allowed sites"
            declined = await self.egress_refusal(action, resolved, safe, record)
            if declined:
                finish("refused", declined)
                return action, f"{declined}; go on with the task on the sites it uses"
        if isinstance(action, CloseTab):
            refusal = await self.close_refusal(action)
            if refusal:
                finish("refused", refusal)
                return action, refusal
        reason = destructive_reason(action, safe)
        # Only the very next action can answer the approved action's dialog: any other spends it.
        approved, self.approved_dialog = self.approved_dialog, None
        if reason and isinstance(action, AnswerDialog) and approved is not None and snap.dialog is not None \
                and approved == (snap.dialog.type, snap.dialog.message):
            record.update(destructive=reason, confirmation="approved with the action that opened the dialog")
        elif reason:
            await self.gate(action, reason, safe, record, finish)
        return action, None

    def arrived(self, action: ActionModel, result: ActionResult, snap: Snapshot, safe: Snapshot, record: dict[str, Any],
                finish: Finish) -> None:
        """Note where the action took the run (pages, tabs); raises RunStopped on a page the user does not allow."""
        self.visited.update(u for u in (snap.url, result.url_after) if u)
        if record.get("destructive") and record.get("confirmation") == "approved":
            self.approved_dialog = next(((d.get("type"), d.get("message")) for d in result.dialogs if d.get("handled") == "pending"), None)
        if result.ok and isinstance(action, CloseTab):
            self.task_tabs.discard(action.tab_id if action.tab_id is not None else record.get("tab_before"))
        refusal = domain_refusal(result.url_after, self.policy) if result.url_after else None
        if refusal:
            # A link or redirect took the tab somewhere the user does not allow: stop acting there.
            finish("blocked", refusal)
            raise RunStopped("blocked", f"{action_line(action, safe)} led to a page that is not allowed: {refusal}")

    async def recover(self, action: ActionModel, dispatched: ActionModel, result: ActionResult, timing: dict[str, float],
                      record: dict[str, Any], finish: Finish, secret_origins: list[str] | None = None) -> ActionResult | Attempted:
        """After the browser reported an error: the repaired result, or the retry to answer with. A stale ref is never re-dispatched by name: the model decides again on the fresh page."""
        error = result.error
        code, message = (error.code, error.message) if error else ("failed", "the action failed")
        if code == "stale_ref":
            fresh = result.snapshot or await self.session.snapshot()
            finish("retry", f"stale_ref: {message}", error={"code": code, "message": message})
            return None, fresh, f"ref {getattr(action, 'ref', None)} no longer exists (the page changed); choose from the fresh snapshot"
        t1 = time.perf_counter()
        fixed = await repairs.after_action_error(self.session, self.policy, dispatched, result, secret_origins)
        timing["repair_ms"] = (time.perf_counter() - t1) * 1000
        record["repair"] = fixed.notes
        if fixed.result is None or not fixed.result.ok:
            fresh = fixed.snapshot or result.snapshot or await self.session.snapshot()
            finish("retry", f"{code}: {message}", error={"code": code, "message": message})
            return None, fresh, f"the action failed with {code}: {message}"
        return fixed.result

    async def done(self, action: Done, step: PlanStep, attempt: int, snap: Snapshot, expectation: Expectation,
                   finish: Finish, open_ended: bool) -> Attempted:
        """`done`: the run ends, a claimed success only while the step's checks or the task's
        success criteria hold. A success claimed while neither holds is sent back as a retry: a
        done may mean "this step is done", and ending the run there throws away the steps to come."""
        verdict = expectation.once(snap) if expectation.predicates else None
        checks = [r.model_dump() for r in verdict.results] if verdict else []
        if action.success and verdict is not None and not verdict.ok and (not self.proof.criteria or await self.proof.unmet(snap)):
            reason = "done was claimed but the step's checks fail: " + "; ".join(r.detail for r in verdict.failed())
            finish("retry", reason, checks=checks)
            return None, snap, (f"{reason}, and the task is not finished. Do the current step ({step.intent}) "
                                "with one action on the page, or answer done with success false if it cannot be done")
        answer = self.answers.take(action.data, action.result, action.success)
        if answer.kind == "retry":
            finish("retry", answer.message, checks=checks, data=action.data)
            return None, snap, answer.message
        ok = action.success and answer.kind == "accepted"
        if ok and self.answers.data is not None:
            await self.proof.page_text()  # the page the answer was read from, every frame of it
        reason = answer.message or (action.result if ok else (action.result or "the task could not be finished"))
        finish("done" if ok else "failed", reason, checks=checks, data=action.data)
        return StepOutcome(verdict="done", success=ok, result=action.result, reason=reason, attempts=attempt), snap, None

    async def ask_user(self, action: AskUser, step: PlanStep, attempt: int, snap: Snapshot, expectation: Expectation,
                       finish: Finish, open_ended: bool) -> Attempted:
        """`ask_user`: the user's answer joins the history; a step that only needed it is done."""
        answer = await self.human.ask(action.question)
        self.history.append(f"- asked the user: {action.question!r} -> " + (f"answer: {answer!r}" if answer else "no answer"))
        if answer and not expectation.predicates and not open_ended:
            # A step that only needed information is done once the user gave it.
            finish("passed", "the user answered")
            return StepOutcome(verdict="passed"), snap, None
        finish("answered" if answer else "unanswered", "")
        return None, snap, None if answer else "the user did not answer; go on without asking"

    async def close_refusal(self, action: CloseTab) -> str | None:
        """Why close_tab may not happen: the tab is not this task's, or it is its last one."""
        closing = action.tab_id if action.tab_id is not None else self.session.tab_id
        if closing not in self.task_tabs:
            return f"tab {closing} is not one of this task's tabs; the agent closes only tabs it worked in"
        data = await self.session.bridge.request("tabs.list", {})
        alive = {int(t["tab_id"]) for t in data.get("tabs", []) if "tab_id" in t}
        self.task_tabs &= alive
        if self.task_tabs <= {closing}:
            return (f"tab {closing} is the last tab of this task and stays open: closing it would leave nothing to work in. "
                    "Use back or navigate to leave this page, or done when the task is finished")
        return None

    async def egress_refusal(self, action: ActionModel, url: str, safe: Snapshot, record: dict[str, Any]) -> str | None:
        """Why opening `url` may not happen: the user said no to its site, now or earlier in the run
        (host.agent.egress). Asks once per site when the policy's egress is `ask`."""
        if self.policy.egress == "allow":
            return None
        if self.egress.refused(url):
            return "the user did not allow this run to open that site"
        reason = self.egress.question(url)
        if reason is None:
            return None
        record["egress"] = reason
        approved = await ask_user_to_confirm(self.policy, self.human, action, reason, safe)
        record["confirmation"] = "approved" if approved else "declined"
        self.egress.answered(url, approved)
        return None if approved else "the user did not allow this run to open that site"

    async def gate(self, action: ActionModel, reason: str, safe: Snapshot, record: dict[str, Any], finish: Finish) -> None:
        """Confirmation of a destructive action by policy; raises RunStopped when it may not happen."""
        record["destructive"] = reason
        if self.policy.destructive == "allow":
            return
        refusal = await refuse_unconfirmed(self.policy, self.human, action, reason, safe, record, finish)
        if refusal is not None:
            raise RunStopped(*refusal)


#: The handler of each action the registry (host.core.actions) says the host carries out itself;
#: the browser's are in extension/sw/dispatch.js. tests/unit/test_action_registry.py checks both.
HOST_ACTION_HANDLERS: dict[type[ActionModel], Callable[..., Awaitable[Attempted]]] = {
    Done: HostActions.done, AskUser: HostActions.ask_user,
}
