"""The task's success criteria over a run, and the judgement of a claimed success by the
conclusion guards (host.agent.guards.conclusion): the criteria must hold on the final page, and
evidence the run's own input cannot produce must show the agent did the task.

A criterion states what the page holds (a cart's count, a field's value), so it is read on every
element the page has, an overlay's covered ones included: what covers an element decides whether
it can be acted on, not whether it is there, and a page that covers itself when done (a
confirmation over the form it answers) still holds its result. The judge of the eval reads the page
the same way (waymark.eval.judge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from waymark.host.agent import guards
from waymark.host.agent.attempt import StepOutcome
from waymark.host.agent.guards import (
    CONCLUSION,
    Conclusion,
    ConclusionGuard,
    Finding,
)
from waymark.host.agent.planner import Plan
from waymark.host.agent.run_state import RunState
from waymark.host.agent.verdicts import RunOutcome
from waymark.host.agent.verifier import (
    Expectation,
    Predicate,
    SnapshotSource,
    TextSource,
    VerifyContext,
    failures_line,
    key,
    names_page_left,
    parse_predicates,
)
from waymark.host.core.actions import Done
from waymark.host.core.snapshot import Snapshot

#: What proved a step in a way that says something of the task's outcome (host.agent.step_judge):
#: a check that changed, or the element acted on going to the state the action sets.
_OUTCOME_PROOF = ("check", "state")


class Proof:
    """The latest plan's success criteria, what held of them before the run acted, and the verdict
    on a claimed success: the one conclusion of a run and of a workflow's replay. `state` holds
    the start page and what the run typed; `attached` are the conclusion guards it judges with."""

    def __init__(self, state: RunState, page_text: TextSource, fresh: SnapshotSource,
                 emit: Callable[..., Any], found: Callable[[dict[str, Any], list[Finding]], None],
                 attached: Sequence[ConclusionGuard] = CONCLUSION) -> None:
        self.state = state
        self.attached = tuple(attached)
        self.page_text = page_text
        #: A new snapshot of the page with every element, covered or not.
        self.fresh = fresh
        self.emit = emit
        self.found = found
        #: The task-level success criteria of the latest plan that gave some.
        self.criteria: list[Predicate] = []
        #: Those of them that already held on the page that plan was made on: they prove nothing.
        self.held_when_written: set[str] = set()
        #: Those of them that held on the page the run began on.
        self.held_on_start_page: set[str] = set()
        #: The latest plan's required steps, and what proved each of its steps proven so far
        #: (host.agent.attempt.StepOutcome.proved_by).
        self.required: set[int] = set()
        self.proven: dict[int, str] = {}
        #: Steps of the whole run proven by evidence about the outcome (`_OUTCOME_PROOF`, a check that says it).
        self.steps_proving = 0
        #: Whether a plan before the latest one had every required step proven (`plan_proven`).
        self.earlier_plan_proven = False
        #: When every step of the latest plan is optional: the criteria that held on the page it
        #: was made on (None otherwise).
        self.held_at_optional_plan: set[str] | None = None
        #: The page the run began on, as the criteria read it (`state_of`).
        self.start_state: Snapshot | None = None
        #: The page the latest criteria were named on (`held_when_written` is judged on it).
        self.named_on: Snapshot | None = None

    async def began(self, snap: Snapshot) -> None:
        """The run began on `snap`: what of any criteria holds there proves nothing."""
        self.start_state = await self.state_of(snap)

    async def state_of(self, snap: Snapshot) -> Snapshot:
        """`snap` as the criteria read it: the same page with the elements an overlay covers."""
        return await self.fresh() if snap.stats.get("occluded") else snap

    async def planned(self, plan: Plan, snap: Snapshot) -> None:
        """A new plan, made on `snap`: its steps are yet to be proven. When every step of it is
        optional, what of the criteria holds on `snap` is noted (guards: optional_steps_only)."""
        self.earlier_plan_proven = self.earlier_plan_proven or self.plan_proven()
        self.required = {i for i, step in enumerate(plan.steps) if step.required}
        self.proven = {}
        optional_only = bool(plan.steps) and not self.required and bool(self.criteria)
        self.held_at_optional_plan = await self._held_at(snap) if optional_only else None

    def stepped(self, index: int, outcome: StepOutcome) -> None:
        """Step `index` of the latest plan ended with `outcome`."""
        if outcome.verdict == "passed" and outcome.proved_by is not None:
            self.proven[index] = outcome.proved_by
            self.steps_proving += outcome.proved_by == "check"

    def plan_proven(self) -> bool:
        """Whether every required step of the latest plan was proven by a change on the page, at
        least one of them by evidence neither the run's own typing nor any navigation can produce."""
        return bool(self.required) and self.required <= self.proven.keys() and any(v in _OUTCOME_PROOF for v in self.proven.values())

    async def named(self, criteria: list[dict[str, Any]], snap: Snapshot) -> None:
        """A plan made on `snap` named these criteria (the start page's read text is reused: a first plan is made on it)."""
        self.criteria = parse_predicates(criteria)
        start = self.start_state
        self.held_on_start_page = self.held_on(start, self.state.start_text) if start is not None else set()
        self.named_on = None
        self.held_when_written = await self._held_at(snap)
        self.named_on = snap

    async def _held_at(self, snap: Snapshot) -> set[str]:
        """The criteria that hold on `snap`, read once per page: the start page's text was read
        when the run began, and the page the criteria were named on was judged then."""
        if snap is self.state.start:
            return self.held_on_start_page
        if snap is self.named_on:
            return self.held_when_written
        return self.held_on(await self.state_of(snap), await self.page_text())

    def expectation(self) -> Expectation:
        """The criteria, `url_changed` counted from the page the run started on."""
        start = self.state.start
        context = VerifyContext(url_before=start.url if start else "", secret_fills=self.state.secret_fills)
        return Expectation(self.criteria, context, page_text=self.page_text)

    async def unmet(self, snap: Snapshot) -> str:
        """The criteria that fail on this page, described ("" when all hold or there are none); one
        that named the page the run began on is not counted (host.agent.verifier.names_page_left)."""
        if not self.criteria:
            return ""
        verdict = await self.expectation().judge(await self.state_of(snap))
        return failures_line([r for r in verdict.failed() if not names_page_left(r, self.held_on_start_page)])

    def held_on(self, snap: Snapshot, page_text: str) -> set[str]:
        """The criteria that hold on `snap` with its `page_text`."""
        start = self.state.start
        context = VerifyContext(url_before=start.url if start else snap.url, page_text=page_text, secret_fills=self.state.secret_fills)
        return {key(r.predicate) for r in Expectation(self.criteria, context).once(snap).results if r.ok}

    async def gave_up(self, snap: Snapshot, reason: str) -> tuple[bool, RunOutcome, str]:
        """The verdict on a run whose model said it could not do the task: failed, unless every
        criterion held when the run began and holds still, a task already done before the run
        began (nothing it did proves it either way)."""
        if self.criteria and self.held_on_start_page >= {key(p.to_json()) for p in self.criteria} and not await self.unmet(snap):
            return False, "unproven", f"every success criterion held when the run began and holds still: the task may have been done before; {reason}"
        return False, "failed", reason

    async def conclude(self, snap: Snapshot, reason: str, steps_verified: int, steps_unproven: int,
                       claim: Done | None = None) -> tuple[bool, RunOutcome, str]:
        """Judge a claimed success (`claim`: the executor's `done`; None: the plan's last step passed) on the final page."""
        results: list[Any] = []
        before: set[str] = set()
        state = await self.state_of(snap)
        if self.criteria:
            verdict = await self.expectation().eventually(state, self.fresh, timeout=2.0, max_tries=3)
            results, state = verdict.results, verdict.snapshot or state
            before = self.held_on_start_page
            self.emit("criteria", ok=verdict.ok, checks=[r.model_dump() for r in results], held_at_start=sorted(before),
                      held_when_written=sorted(self.held_when_written))
        # Criteria a replan read off the page it was on count only beside work the run proved on
        # the way there (a step proven by a check that changed, or a plan whose every required step
        # the page proved): else they describe whatever the run did, not what was asked.
        proven_on_the_way = bool(steps_verified) or self.earlier_plan_proven
        held = before | (set() if proven_on_the_way else self.held_when_written)
        # What came to hold while a plan of optional steps only ran counts only beside work proven
        # on the way, as what a replan read off its page does.
        optional = self.held_at_optional_plan
        by_optional = set() if proven_on_the_way or optional is None else {key(r.predicate) for r in results if r.ok} - optional
        conclusion = Conclusion.of(self.state.view(), final_text=await self.page_text(), criteria=tuple(results), held_before=frozenset(held),
                                   held_on_start_page=frozenset(before), held_when_written=frozenset(self.held_when_written),
                                   steps_verified=steps_verified, steps_unproven=steps_unproven, steps_proving=self.steps_proving,
                                   plan_proven=self.plan_proven(), held_since_optional_plan=frozenset(by_optional))
        refused, findings = guards.conclude(conclusion, claim, state, self.attached)
        if findings:
            record: dict[str, Any] = {}
            self.found(record, findings)
            self.emit("conclusion", **record)
        if refused is not None:
            return False, refused.outcome, findings[-1].message
        return True, "done", reason
