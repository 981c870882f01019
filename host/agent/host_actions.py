"""The actions the host carries out itself (done, ask_user, read_download), and a run's way through its
admission (host.agent.admission) before the browser acts: a refusal finishes the step, or ends the run."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable, cast

from waymark.host.agent import repair as repairs
from waymark.host.agent.action_lines import action_line
from waymark.host.agent.admission import Admission, Refusal
from waymark.host.agent.answers import Answers
from waymark.host.agent.attempt import (
    Attempted,
    Ended,
    Retry,
    StepOutcome,
    Stopped,
    event,
)
from waymark.host.agent.budgets import BudgetExhausted
from waymark.host.agent.confirm import Policy
from waymark.host.agent.human import Human
from waymark.host.agent.planner import PlanStep
from waymark.host.agent.prompts import read_line
from waymark.host.agent.proof import Proof
from waymark.host.agent.redaction import Redactor
from waymark.host.agent.run_state import RunState
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.verdicts import RunOutcome
from waymark.host.agent.verifier import Expectation
from waymark.host.bridge import BrowserError
from waymark.host.core.actions import (
    ActionModel,
    AskUser,
    CloseTab,
    Done,
    ReadDownload,
)
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.downloads import DownloadRefused
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
                 state: RunState, policy: Policy, admission: Admission, redactor: Redactor) -> None:
        self.proof = proof
        #: What the run's secrets look like: a downloaded file is redacted as page text is.
        self.redactor = redactor
        #: The answer asked for (host.agent.answers): `done` gives it.
        self.answers = answers
        self.human = human
        self.history = history
        self.session = session
        #: Tabs this task works in (shared with the run); the last of them is never closed.
        self.task_tabs = task_tabs
        #: The run's state (host.agent.run_state): it is told the pages the run reaches.
        self.state = state
        self.policy = policy
        #: What decides every action before it is sent (host.agent.admission).
        self.admission = admission

    async def admit(self, action: ActionModel, snap: Snapshot, safe: Snapshot, record: dict[str, Any]) -> Admitted | Retry | Stopped:
        """The action as the run's admission (host.agent.admission) let it through; else the retry
        that tells the model why (the page gets nothing), or the end of the run when the refusal
        ends it (a destructive action blocked or declined, a secret missing)."""
        try:
            admitted = await self.admission.admit(action, snap, safe=safe, record=record)
        except Refusal as refusal:
            return _refused(refusal, snap)
        last = await self.close_refusal(action) if isinstance(action, CloseTab) else None
        if last:
            return Retry(event("refused", last), snap, last)
        return admitted

    def arrived(self, action: ActionModel, result: ActionResult, snap: Snapshot, safe: Snapshot, record: dict[str, Any]) -> Stopped | None:
        """Note where the action took the run (pages, tabs); the end of the run on a page the user does not allow."""
        self.state.reached(snap.url, result.url_after)
        self.admission.dispatched(result)
        if result.ok and isinstance(action, CloseTab):
            self.task_tabs.discard(action.tab_id if action.tab_id is not None else record.get("tab_before"))
        try:
            # A link or redirect took the tab somewhere the user does not allow: stop acting there.
            self.admission.arrived(result.url_after, action_line(action, safe))
        except Refusal as refusal:
            return _refused(refusal, snap)
        return None

    async def recover(self, action: ActionModel, admitted: Admitted, result: ActionResult, timing: dict[str, float],
                      record: dict[str, Any]) -> ActionResult | Retry:
        """After the browser reported an error: the repaired result, or the retry to answer with. A stale ref is never re-dispatched by name: the model decides again on the fresh page."""
        error = result.error
        code, message = (error.code, error.message) if error else ("failed", "the action failed")
        if code == "stale_ref":
            fresh = result.snapshot or await self.session.snapshot()
            return Retry(event("retry", f"stale_ref: {message}", error={"code": code, "message": message}), fresh,
                         f"ref {getattr(action, 'ref', None)} no longer exists (the page changed); choose from the fresh snapshot")
        t1 = time.perf_counter()
        fixed = await repairs.after_action_error(self.session, self.policy, admitted, result)
        timing["repair_ms"] = (time.perf_counter() - t1) * 1000
        record["repair"] = fixed.notes
        if fixed.result is None or not fixed.result.ok:
            fresh = fixed.snapshot or result.snapshot or await self.session.snapshot()
            return Retry(event("retry", f"{code}: {message}", error={"code": code, "message": message}), fresh,
                         f"the action failed with {code}: {message}")
        return fixed.result

    async def done(self, action: Done, step: PlanStep, attempt: int, snap: Snapshot, expectation: Expectation,
                   open_ended: bool) -> Attempted:
        """`done`: the run ends, a claimed success only while the step's checks or the task's
        success criteria hold. A success claimed while neither holds is sent back as a retry: a
        done may mean "this step is done", and ending the run there throws away the steps to come."""
        verdict = expectation.once(snap) if expectation.predicates else None
        checks = [r.model_dump() for r in verdict.results] if verdict else []
        if action.success and verdict is not None and not verdict.ok and (not self.proof.criteria or await self.proof.unmet(snap)):
            reason = "done was claimed but the step's checks fail: " + "; ".join(r.detail for r in verdict.failed())
            return Retry(event("retry", reason, checks=checks), snap,
                         (f"{reason}, and the task is not finished. Do the current step ({step.intent}) "
                          "with one action on the page, or answer done with success false if it cannot be done"))
        answer = self.answers.take(action.data, action.result, action.success)
        if answer.kind == "retry":
            return Retry(event("retry", answer.message, checks=checks, data=action.data), snap, answer.message)
        ok = action.success and answer.kind == "accepted"
        if ok and self.answers.data is not None:
            await self.proof.page_text()  # the page the answer was read from, every frame of it
        reason = answer.message or (action.result if ok else (action.result or "the task could not be finished"))
        return Ended(event("done" if ok else "failed", reason, checks=checks, data=action.data), snap,
                     StepOutcome(verdict="done", success=ok, result=action.result, reason=reason, attempts=attempt))

    async def ask_user(self, action: AskUser, step: PlanStep, attempt: int, snap: Snapshot, expectation: Expectation,
                       open_ended: bool) -> Attempted:
        """`ask_user`: the user's answer joins the history; a step that only needed it is done."""
        answer = await self.human.ask(action.question)
        self.history.append(f"- asked the user: {action.question!r} -> " + (f"answer: {answer!r}" if answer else "no answer"))
        if answer and not expectation.predicates and not open_ended:
            # A step that only needed information is done once the user gave it.
            return Ended(event("passed", "the user answered"), snap, StepOutcome(verdict="passed"))
        return Retry(event("answered" if answer else "unanswered", ""), snap, None if answer else "the user did not answer; go on without asking")

    async def read_download(self, action: ReadDownload, step: PlanStep, attempt: int, snap: Snapshot, expectation: Expectation,
                            open_ended: bool) -> Attempted:
        """`read_download`: the text of a file this run downloaded (host.core.downloads) joins the
        history as page data does, redacted; a step that only needed to read it is done."""
        try:
            download, text, cut = self.session.downloads.read(action.download, action.max_chars)
        except DownloadRefused as exc:
            return Retry(event("refused", f"{exc.code}: {exc.message}", error={"code": exc.code, "message": exc.message}), snap,
                         f"{exc.code}: {exc.message}")
        shown = self.redactor.text(text)
        name = self.redactor.text(download.name)
        self.answers.saw_text(f"download {download.id}", name, shown)
        self.history.append(f"- did: read_download {download.id} ({name!r}){read_line(shown)}{' [cut at max_chars]' if cut else ''}")
        read = {"download": download.id, "chars": len(text), "truncated": cut}
        if not expectation.predicates and not open_ended:
            return Ended(event("passed", "the file was read", read=read), snap, StepOutcome(verdict="passed"))
        return Retry(event("acted", "the file was read", read=read), snap)

    async def close_refusal(self, action: CloseTab) -> str | None:
        """Why close_tab may not happen: the tab is the task's last one (one not the task's at all
        is the admission's refusal)."""
        closing = action.tab_id if action.tab_id is not None else self.session.tab_id
        data = await self.session.bridge.request("tabs.list", {})
        alive = {int(t["tab_id"]) for t in data.get("tabs", []) if "tab_id" in t}
        self.task_tabs &= alive
        if self.task_tabs <= {closing}:
            return (f"tab {closing} is the last tab of this task and stays open: closing it would leave nothing to work in. "
                    "Use back or navigate to leave this page, or done when the task is finished")
        return None


def _refused(refusal: Refusal, snap: Snapshot) -> Retry | Stopped:
    """A refusal as the attempt's end: the run's end when the refusal ends it, else a retry that
    tells the model why."""
    error = {"code": refusal.code, "message": refusal.message}
    if refusal.ends:
        return Stopped(event(refusal.outcome, refusal.message, error=error), refusal.outcome, refusal.message)
    return Retry(event("refused", str(refusal), error=error), snap, str(refusal))


#: The handler of each action the registry (host.core.actions) says the host carries out itself;
#: the browser's are in extension/sw/dispatch.js. tests/unit/test_action_registry.py checks both.
HOST_ACTION_HANDLERS: dict[type[ActionModel], Callable[..., Awaitable[Attempted]]] = {
    Done: HostActions.done, AskUser: HostActions.ask_user, ReadDownload: HostActions.read_download,
}
