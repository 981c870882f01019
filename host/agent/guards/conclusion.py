"""Guards on a claimed success, in the order they run: what the final page must show, and what
counts as proof that the run did the task.

A run proves a task with evidence its own input cannot produce: a step whose check changed from
failing to holding, or a success criterion that did not hold when the run began and does not hold
merely because of what the run typed (text that is only inside a field it typed into, a field's
value it typed). At conclusion a refusal withholds success (`outcome` says how the run ends); an
advisory is recorded beside the verdict and never changes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal
from urllib.parse import unquote_plus

from waymark.host.agent.guards.base import Finding, Guard, GuardContext
from waymark.host.agent.own_typing import typed_only
from waymark.host.agent.task_parts import parts_unnamed
from waymark.host.agent.verifier import (
    CheckResult,
    failures_line,
    key,
    names_page_left,
    shown_text,
)
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import normalise


@dataclass
class Conclusion(GuardContext):
    """The run at its end: the final page's text, the success criteria as judged there, and what
    the run proved on the way."""

    final_text: str = ""
    #: The criteria's results on the final page (empty: the plan gave none).
    criteria: list[CheckResult] = field(default_factory=list)
    #: Keys of criteria that held before the run acted, or (with no step proven) when written.
    held_before: set[str] = field(default_factory=set)
    #: Keys of the criteria that held on the page the run began on.
    held_on_start_page: set[str] = field(default_factory=set)
    #: Keys of the criteria that held on the page the plan naming them was made on.
    held_when_written: set[str] = field(default_factory=set)
    steps_verified: int = 0
    steps_unproven: int = 0
    #: Every required step of the final plan was proven by a change on the page, one at least by
    #: evidence the run's typing cannot produce.
    plan_proven: bool = False
    #: Keys of criteria that came to hold only while the final plan, every step of it optional,
    #: ran, where no step was verified and no earlier plan proven (host.agent.proof).
    held_since_optional_plan: set[str] = field(default_factory=set)
    #: Keys of criteria that prove the task, as the guards before found them (filled in as they run).
    proving: list[dict[str, Any]] = field(default_factory=list)

    @property
    def held_at_start(self) -> bool:
        """Whether every criterion held on the page the run began on (else some held only when the
        plan that named them was made)."""
        return self.held_on_start_page >= {key(r.predicate) for r in self.criteria}


class ConclusionGuard(Guard):
    stage = "conclusion"
    #: How the run ends when this guard refuses the success.
    outcome: ClassVar[Literal["failed", "unproven"]] = "unproven"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        assert isinstance(context, Conclusion)
        return self.conclude(context, action, snapshot)

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        raise NotImplementedError


class MissingValue(ConclusionGuard):
    """A value the task gives to enter (an email address) that the run never typed, that the final
    page does not show and that the page the run began on did not show either: nothing the run did
    or saw touched it. A value shown when the run began was one to find or act on (remove, reply
    to), and may rightly be gone."""

    name = "missing_value"
    strength = "refusal"
    outcome = "failed"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        shown = shown_text(snapshot, context.final_text) + " " + normalise(unquote_plus(snapshot.url))
        if context.start is not None:
            shown += " " + shown_text(context.start, context.start_text) + " " + normalise(unquote_plus(context.start.url))
        entered = normalise(" ".join(context.typed))
        missing = [v for v in context.task_values if normalise(v) not in entered and normalise(v) not in shown]
        if not missing:
            return None
        return self.finding("value_missing", "success was claimed but the task gives " + ", ".join(missing)
                            + " and the run never entered it, nor does the page show it")


class CriteriaFail(ConclusionGuard):
    """The task's success criteria must hold on the final page, except one that named the page
    the run began on (its title or URL held there), which fails wherever the task leads, and one
    that named the page its plan was made on (left_named_page, below)."""

    name = "criteria_fail"
    strength = "refusal"
    outcome = "failed"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        failed = [r for r in context.criteria if not r.ok and not names_page_left(r, context.held_on_start_page)
                  and not names_page_left(r, context.held_when_written)]
        if not failed:
            return None
        return self.finding("criteria_fail", "success was claimed but the task's success criteria fail: " + failures_line(failed))


class LeftStartPage(ConclusionGuard):
    """A criterion that named the page the run began on fails once the run left that page: it is
    told beside the verdict and counts neither for nor against the task."""

    name = "left_start_page"
    strength = "advisory"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        left = [r for r in context.criteria if names_page_left(r, context.held_on_start_page)]
        if not left:
            return None
        return self.finding("left_start_page", "these success criteria named the page the run began on, which it left, and are not "
                            "counted: " + failures_line(left))


class LeftNamedPage(ConclusionGuard):
    """A criterion on the page's title or URL that held on the page its plan was made on named
    that page, and its failing says only that the run left it: a plan made on a page the task
    passes through names where the run is, one made on the page the task leads to names the goal,
    and the criterion cannot tell which. It neither fails the task nor proves it."""

    name = "left_named_page"
    strength = "refusal"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        left = [r for r in context.criteria if names_page_left(r, context.held_when_written)
                and not names_page_left(r, context.held_on_start_page)]
        if not left:
            return None
        return self.finding("unproven", "nothing proves the task was done, nor that it failed: these success criteria named the page "
                            "their plan was made on (they held there), which the run left, so they cannot tell whether that page was "
                            "the task's goal: " + failures_line(left))


class OwnTyping(ConclusionGuard):
    """A success criterion that holds only because of what the run typed (text found only inside
    a field the run typed into, a field's value equal to text the run typed) proves the typing,
    not the task's outcome: it is no evidence."""

    name = "own_typing"
    strength = "refusal"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        typed = [r.predicate for r in context.criteria if r.ok and key(r.predicate) not in context.held_before
                 and typed_only(r, context.typed, snapshot, context.final_text)]
        context.proving = [r.predicate for r in context.criteria if r.ok and key(r.predicate) not in context.held_before
                           and r.predicate not in typed]
        if not typed:
            return None
        return self.finding("own_typing", "these success criteria hold only because of what the run typed, which proves the typing, "
                            "not the outcome: " + "; ".join(str(p) for p in typed))


class OptionalStepsOnly(ConclusionGuard):
    """A step its plan marks optional is one the task can succeed without, so success criteria
    that came to hold only while a plan of optional steps ran show what those steps did, not that
    the task was done: with no step verified and no earlier plan proven, they prove nothing."""

    name = "optional_steps_only"
    strength = "refusal"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        if not context.proving or any(key(p) not in context.held_since_optional_plan for p in context.proving):
            return None
        return self.finding("unproven", "nothing proves the task was done: the success criteria came to hold only while the last "
                                        "plan ran, and every step of it was optional, one the task can succeed without")


class NothingProves(ConclusionGuard):
    """A success needs evidence the run made: a success criterion that changed and was not made by
    the run's typing; where the criteria held from the start, every required step of the plan
    proven by a change on the page, one at least by evidence the run's typing cannot produce; where
    there are no criteria, that, or a step verified by a check that changed."""

    name = "nothing_proves"
    strength = "refusal"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        if context.criteria and not context.proving:
            if any(key(r.predicate) not in context.held_before for r in context.criteria):
                return self.finding("unproven", "nothing proves the task was done: the success criteria that changed hold only "
                                                f"because of what the run typed ({context.steps_verified} step(s) verified)")
            if context.plan_proven:
                return None
            when = "when the run began" if context.held_at_start else "when the plan that named it was made"
            return self.finding("unproven", f"nothing proves the task was done: every success criterion already held {when}"
                                            f" ({context.steps_verified} step(s) verified)")
        if not context.criteria and not context.steps_verified and not context.plan_proven:
            unproven = f"; {context.steps_unproven} step(s) acted with checks that held before they acted" if context.steps_unproven else ""
            return self.finding("unproven", "nothing proves the task was done: no step was verified by a check that changed, "
                                            f"and the plan has no success criteria{unproven}")
        return None


class PartsUnnamed(ConclusionGuard):
    """Parts of the task (its clauses) that no proving criterion shares a word with, where no step
    was verified: words differ between a task and a site ("dark theme", "Night mode"), so this is
    told, never a reason to withhold a success the evidence gives."""

    name = "parts_unnamed"
    strength = "advisory"

    def conclude(self, context: Conclusion, action: Any, snapshot: Snapshot) -> Finding | None:
        unnamed = parts_unnamed(context.task, context.proving) if context.proving and not context.steps_verified else []
        if not unnamed:
            return None
        return self.finding("parts_unnamed", "no success criterion speaks of these parts of the task: " + "; ".join(unnamed))


CONCLUSION: tuple[ConclusionGuard, ...] = (MissingValue(), LeftStartPage(), CriteriaFail(), LeftNamedPage(), OwnTyping(),
                                           OptionalStepsOnly(), NothingProves(), PartsUnnamed())


def conclude(context: Conclusion, action: Any, snapshot: Snapshot) -> tuple[ConclusionGuard | None, list[Finding]]:
    """Run the conclusion guards in order: the first refusal ends the judgement (its guard says how
    the run ends); every finding is returned, advisories included."""
    findings: list[Finding] = []
    for guard in CONCLUSION:
        found = guard.check(context, action, snapshot)
        if found is None:
            continue
        findings.append(found)
        if found.strength == "refusal" and not isinstance(guard, OwnTyping):
            return guard, findings
    return None, findings

