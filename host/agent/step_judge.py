"""Judging one plan step: its checks as they stood before it acted, and the verdict on the page
an action (or a wait) left.

A step passes only when its checks hold on fresh browser state and at least one of them did not
hold before the step acted: a check that already held proves nothing, and a step whose checks
all held beforehand is `unproven` (the run goes on, but it never counts as verified), unless the
element it acted on, named by the step, went to the state the action sets (host.agent.target_state):
the page says so of its own element. A URL check that nothing before or after the action leads to
is dropped (host.agent.guards: unreachable_check).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from waymark.host.agent import guards
from waymark.host.agent import repair as repairs
from waymark.host.agent.attempt import Ended, Judged, Retry, StepOutcome, event
from waymark.host.agent.effects import Effect, effect_of
from waymark.host.agent.element_changes import changes_line
from waymark.host.agent.guards import Finding
from waymark.host.agent.own_typing import typed_only
from waymark.host.agent.run_state import RunState
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.target_state import PROVEN_BY_STATE, target_state
from waymark.host.agent.verifier import (
    Expectation,
    PredicateError,
    TextSource,
    Verification,
    VerifyContext,
    key,
    parse_predicate,
    parse_predicates,
    says_outcome,
    unreachable_by_link,
)
from waymark.host.core.actions import ActionModel, Wait
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot


def by_state(moved: str, latest: Snapshot) -> Ended:
    """A step whose target went to the state its action sets: proven by what the page says of it."""
    return Ended(event("passed", PROVEN_BY_STATE, target_state=moved), latest, StepOutcome(verdict="passed", proved_by="state"))


def unprovable(latest: Snapshot) -> Ended:
    """A step that acted but whose every check held before it did: nothing proves it."""
    reason = "every check of this step already held before it acted, so none proves it"
    return Ended(event("unproven", reason), latest, StepOutcome(verdict="unproven", reason=reason))


#: Why a step passed before its retry: an action that reported a failure may still have landed
#: (the page re-rendered its target as it answered), and asking the model again would have it redo
#: or refuse work that is already done.
LANDED_ANYWAY = "the step's checks hold after the last attempt: its action landed although it reported a failure"


def check_feedback(verdict: Verification) -> str:
    return "the step's checks failed: " + verdict.failed_line()


def unread_effect(effect: Effect, verdict: Verification) -> str:
    """Why a step whose action changed the page but whose checks failed goes to a new plan, not to
    a retry: sent again, the action would repeat or undo what it did."""
    return (f"the step's action changed the page ({effect.said}), but the step's checks did not read that: {verdict.failed_line()}; "
            "it is not done again unseen: a new plan should check what changed")


class StepJudge:
    """The checks of one step, split at its start into those that held already and those it must change."""

    def __init__(self, session: BrowserSession, page_text: TextSource, found: Callable[[dict[str, Any], list[Finding]], None],
                 state: RunState, history: list[str], intent: str = "") -> None:
        self.session = session
        self.intent = intent
        self.page_text = page_text
        self.found = found
        #: The run's state: the judge tells it what an action changed, or that it changed nothing.
        self.state = state
        self.history = history
        self.before: Verification | None = None
        self.expectation = Expectation([])
        self.all_held_before = False
        self.unreachable_before: set[str] = set()

    async def begin(self, verify: list[dict[str, Any]], snap: Snapshot) -> None:
        """Check the step's predicates before it acts: a check that already holds is no check of
        this step. It proves nothing when it still holds, and when the action makes it false
        ("Accept all" is gone once clicked) that is no failure either."""
        predicates = parse_predicates(verify)
        context = VerifyContext(url_before=snap.url, secret_fills=self.state.secret_fills)
        self.before = await Expectation(predicates, context, page_text=self.page_text).judge(snap) if predicates else None
        held_before = {key(r.predicate) for r in self.before.results if r.ok} if self.before else set()
        judged = [p for p in predicates if key(p.to_json()) not in held_before]
        self.all_held_before = bool(predicates) and not judged
        self.expectation = Expectation(judged, context, page_text=self.page_text)
        self.unreachable_before = {key(p.to_json()) for p in unreachable_by_link(judged, snap)}

    async def landed(self, snap: Snapshot) -> Ended | None:
        """The step passed after all when its checks hold on the page before a retry: the action
        landed although it reported a failure (None when they do not, or the step has none)."""
        if not self.expectation.predicates:
            return None
        verdict = await self.expectation.judge(snap)
        return await self.held(verdict, snap, LANDED_ANYWAY) if verdict.ok else None

    async def held(self, verdict: Verification, latest: Snapshot, reason: str = "") -> Ended:
        """A step whose checks hold, each one that did not before it acted: proven (by the run's
        typing alone when every one of them holds only because of what it typed)."""
        typed = list(self.state.typed)
        text = await self.page_text() if typed and any("text_present" in r.predicate for r in verdict.results) else ""
        by_typing = bool(typed) and all(typed_only(r, typed, latest, text) for r in verdict.results)
        by_navigation = not any(says_outcome(r.predicate) for r in verdict.results)
        return Ended(event("passed", reason, checks=[r.model_dump() for r in verdict.results], changed=[r.predicate for r in verdict.results]),
                     latest, StepOutcome(verdict="passed", proved_by="typing" if by_typing else "navigation" if by_navigation else "check"))

    async def after(self, action: ActionModel, result: ActionResult, settled: Snapshot, before: Snapshot, after: Snapshot, did: str,
                    timing: dict[str, float], record: dict[str, Any], open_ended: bool) -> Judged:
        """The step on the page the action left (`result`: what the browser answered for it;
        `before` and `after`: that page and the one it acted on, as prompts see them): the history line gains what changed on `before`'s
        elements, an action that changed nothing is noted for the guards, and the step is judged."""
        changed = changes_line(before, after)
        if (after.url, after.title, after.text) == (before.url, before.title, before.text):
            self.state.left_as_it_was(action, before)
        # Only a step with checks can fail to read an effect; an open step acts until it says done.
        effect = None if open_ended else effect_of(action, result, before, after)
        if effect is not None:
            self.state.changed(action, before, effect)
            record["effect"] = effect.said
        if changed:
            record["elements_changed"] = changed.removeprefix(" -> changed: ")
        self.history.append(did + changed)
        if settled.thumbnail_b64:
            record["thumbnail_b64"] = settled.thumbnail_b64
        settled = settled.model_copy(update={"screenshot_b64": None, "thumbnail_b64": None})
        return await self.judge(settled, timing, record, open_ended, target_state(action, before, after, self.intent), effect)

    async def judge(self, settled: Snapshot, timing: dict[str, float], record: dict[str, Any],
                    open_ended: bool, moved: str = "", effect: Effect | None = None) -> Judged:
        """The verdict on the page an action left (`moved`: the change of its target that the
        action sets, as host.agent.target_state says it; `effect`: what the action changed, which
        makes failing checks end the step for a new plan instead of a retry)."""
        expectation = self.expectation
        if open_ended:
            return Retry(event("acted", "the task is one step: the executor goes on until it says done"), settled)
        if self.all_held_before:
            return by_state(moved, settled) if moved else unprovable(settled)
        if not expectation.predicates:
            if moved:
                return by_state(moved, settled)
            return Ended(event("passed", "the action succeeded (the step has no checks)"), settled, StepOutcome(verdict="passed"))
        t0 = time.perf_counter()
        verdict = await expectation.eventually(settled, self.session.snapshot)
        timing["verify_ms"] = (time.perf_counter() - t0) * 1000
        latest = verdict.snapshot or settled
        if not verdict.ok:
            t1 = time.perf_counter()
            fixed = await repairs.after_failed_check(self.session, expectation, latest)
            timing["repair_ms"] = (time.perf_counter() - t1) * 1000
            record["repair"] = fixed.notes
            if fixed.verification is not None:
                verdict = fixed.verification
                latest = fixed.snapshot or latest
        record["verify_tries"] = verdict.tries
        checks = [r.model_dump() for r in verdict.results]
        if verdict.ok:
            return await self.held(verdict, latest)
        kept, dropped = guards.UNREACHABLE_CHECK.dropped(expectation.predicates, {key(r.predicate) for r in verdict.failed()},
                                                        self.unreachable_before, latest)
        if dropped is not None:
            self.found(record, [dropped])
            expectation.predicates = kept
            if not kept:
                if moved:
                    return by_state(moved, latest)
                return Ended(event("passed", f"the action succeeded; {dropped.message}", checks=checks), latest, StepOutcome(verdict="passed"))
            verdict = expectation.once(latest)
            checks = [r.model_dump() for r in verdict.results]
            if verdict.ok:
                return await self.held(verdict, latest)
        if effect is not None:
            reason = unread_effect(effect, verdict)
            return Ended(event("failed", reason, checks=checks), latest, StepOutcome(verdict="failed", reason=reason))
        feedback = check_feedback(verdict)
        return Retry(event("retry", feedback, checks=checks), latest, feedback)

    async def wait_until(self, action: Wait, snap: Snapshot, timing: dict[str, float], open_ended: bool) -> Judged:
        """`wait` with `until`: the condition is waited for, then the step judged on the page it left."""
        expectation = self.expectation
        try:
            predicate = parse_predicate(action.until or {})
        except PredicateError as exc:
            return Retry(event("failed", f"bad wait predicate: {exc}"), snap, f"the wait's `until` is not a valid predicate: {exc}")
        t0 = time.perf_counter()
        waited = await Expectation([predicate], expectation.context, page_text=self.page_text).eventually(
            snap, self.session.snapshot, timeout=action.timeout_ms / 1000, max_tries=20)
        timing["verify_ms"] = (time.perf_counter() - t0) * 1000
        latest = waited.snapshot or snap
        waited_checks = [r.model_dump() for r in waited.results]
        if open_ended:
            return Retry(event("acted" if waited.ok else "failed", "", checks=waited_checks), latest,
                         None if waited.ok else "the condition never held")
        if self.all_held_before and waited.ok:
            return unprovable(latest)
        if not expectation.predicates:
            if waited.ok:
                return Ended(event("passed", "", checks=waited_checks), latest, StepOutcome(verdict="passed"))
            return Retry(event("failed", "", checks=waited_checks), latest, "the condition never held")
        verdict = expectation.once(latest)
        if verdict.ok:
            return await self.held(verdict, latest)
        return Retry(event("retry", "", checks=[r.model_dump() for r in verdict.results]), latest, check_feedback(verdict))
