"""Guards on a claimed success, in the order they run: what the final page must show, and what
counts as proof that the run (or a workflow's replay: one conclusion serves both) did the task.

A run proves a task with evidence about its outcome that its own input cannot produce: a success
criterion that came to hold during the run (not one that held when it began), not merely because
of what the run typed (text that is only inside a field it typed into, a field's value it typed)
and not one any navigation satisfies (`url_changed`); without criteria, a step proven by such a
check. Each guard reads a read-only view of the run (`Conclusion`), the claim (the executor's
`done`, None when the plan's last step passed) and the final page. A refusal withholds success
(`outcome` says how the run ends); an advisory is recorded beside the verdict and never changes it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
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
    says_outcome,
    shown_text,
)
from waymark.host.core.actions import Done
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import normalise


@dataclass(frozen=True)
class Conclusion:
    """A read-only view of the run at its end, the same for a run and a replay: what the task asks,
    what the run typed, the page it began on, the final page's text, the success criteria as judged
    there and what the run proved on the way. Guards read it and never write it."""

    task: str
    #: The values the task gives to enter (host.agent.task_values).
    task_values: Sequence[str] = ()
    #: The texts the run typed, as written (placeholders, never secrets).
    typed: Sequence[str] = ()
    #: The page the run began on and its readable text.
    start: Snapshot | None = None
    start_text: str = ""
    final_text: str = ""
    #: The criteria's results on the final page (empty: the plan gave none).
    criteria: Sequence[CheckResult] = ()
    #: Keys of criteria that held before the run acted, or (with no step proven) when written.
    held_before: AbstractSet[str] = frozenset()
    #: Keys of the criteria that held on the page the run began on.
    held_on_start_page: AbstractSet[str] = frozenset()
    #: Keys of the criteria that held on the page the plan naming them was made on.
    held_when_written: AbstractSet[str] = frozenset()
    #: Steps proven by a check that changed (by the run's typing or a navigation included).
    steps_verified: int = 0
    steps_unproven: int = 0
    #: Steps proven by a check that changed and says something of the outcome: not only by what
    #: the run typed, nor only by the address changing (host.agent.verifier.says_outcome).
    steps_proving: int = 0
    #: Every required step of the final plan was proven by a change on the page, one at least by
    #: evidence neither the run's typing nor any navigation can produce.
    plan_proven: bool = False
    #: Keys of criteria that came to hold only while the final plan, every step of it optional,
    #: ran, where no step was verified and no earlier plan proven (host.agent.proof).
    held_since_optional_plan: AbstractSet[str] = frozenset()

    @classmethod
    def of(cls, context: GuardContext, **evidence: Any) -> Conclusion:
        """The view of a run's state (`context`) with the evidence judged at its end."""
        return cls(task=context.task, task_values=tuple(context.task_values), typed=tuple(context.typed), start=context.start,
                   start_text=context.start_text, **evidence)

    @property
    def held_at_start(self) -> bool:
        """Whether every criterion held on the page the run began on (else some held only when the
        plan that named them was made)."""
        return self.held_on_start_page >= {key(r.predicate) for r in self.criteria}

    def counted(self) -> list[CheckResult]:
        """The criteria that count for or against the task: not one that named a page the run left."""
        return [r for r in self.criteria if not names_page_left(r, self.held_on_start_page)
                and not names_page_left(r, self.held_when_written)]

    def came_to_hold(self) -> list[CheckResult]:
        """The criteria that hold on the final page and did not before the run acted."""
        return [r for r in self.criteria if r.ok and key(r.predicate) not in self.held_before]

    def typed_only(self, final: Snapshot) -> list[dict[str, Any]]:
        """Criteria that came to hold only because of what the run typed."""
        return [r.predicate for r in self.came_to_hold() if typed_only(r, list(self.typed), final, self.final_text)]

    def proving(self, final: Snapshot) -> list[dict[str, Any]]:
        """The criteria that prove the task: they came to hold during the run, not through its own
        typing, and say something of the outcome (not an address that changed, as any navigation does)."""
        typed = self.typed_only(final)
        return [r.predicate for r in self.came_to_hold() if r.predicate not in typed and says_outcome(r.predicate)]


class ConclusionGuard(Guard):
    """A rule over a claimed success: `conclude(run, claim, final)` reads the run's read-only view,
    the claim (the executor's `done`, or None when the plan's last step passed) and the final page."""

    stage = "conclusion"
    #: How the run ends when this guard refuses the success.
    outcome: ClassVar[Literal["failed", "unproven"]] = "unproven"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        raise NotImplementedError


#: What a model's own final answer says when it did not do the task, whatever success it claimed:
#: the whole answer (normalised), or how it begins.
_FAILED_ANSWERS = frozenset({"false", "no success", "fail", "failed", "failure", "unsuccessful", "not done", "not successful",
                             "task failed", "impossible"})
_FAILED_OPENINGS = ("failed to ", "could not ", "couldn't ", "couldnt ", "cannot ", "can't ", "cant ", "unable to ", "i could not ",
                    "i couldn't ", "i cannot ", "i can't ", "i was unable ", "i was not able ", "the task could not ", "the task failed",
                    "task failed")


def says_failed(answer: str) -> bool:
    """Whether an answer says the task was not done (`false`, "could not find the form")."""
    said = " ".join(re.sub(r"[^\w' ]+", " ", answer.lower()).split())
    return said in _FAILED_ANSWERS or (said + " ").startswith(_FAILED_OPENINGS)


class AnswerSaysFailed(ConclusionGuard):
    """A model whose own final answer says the task failed ("false", "could not find the form")
    did not succeed, whatever success flag it sent beside it: its word against itself is no proof."""

    name = "answer_says_failed"
    strength = "refusal"
    outcome = "failed"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        if claim is None or not says_failed(claim.result):
            return None
        return self.finding("answer_says_failed", f"success was claimed but the model's own answer says the task failed: {claim.result[:200]!r}")


class MissingValue(ConclusionGuard):
    """A value the task gives to enter (an email address) that the run never typed, that the final
    page does not show and that the page the run began on did not show either: nothing the run did
    or saw touched it. A value shown when the run began was one to find or act on (remove, reply
    to), and may rightly be gone."""

    name = "missing_value"
    strength = "refusal"
    outcome = "failed"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        shown = shown_text(final, run.final_text) + " " + normalise(unquote_plus(final.url))
        if run.start is not None:
            shown += " " + shown_text(run.start, run.start_text) + " " + normalise(unquote_plus(run.start.url))
        entered = normalise(" ".join(run.typed))
        missing = [v for v in run.task_values if normalise(v) not in entered and normalise(v) not in shown]
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

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        failed = [r for r in run.counted() if not r.ok]
        if not failed:
            return None
        return self.finding("criteria_fail", "success was claimed but the task's success criteria fail: " + failures_line(failed))


class LeftStartPage(ConclusionGuard):
    """A criterion that named the page the run began on fails once the run left that page: it is
    told beside the verdict and counts neither for nor against the task."""

    name = "left_start_page"
    strength = "advisory"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        left = [r for r in run.criteria if names_page_left(r, run.held_on_start_page)]
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

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        left = [r for r in run.criteria if names_page_left(r, run.held_when_written)
                and not names_page_left(r, run.held_on_start_page)]
        if not left:
            return None
        return self.finding("unproven", "nothing proves the task was done, nor that it failed: these success criteria named the page "
                            "their plan was made on (they held there), which the run left, so they cannot tell whether that page was "
                            "the task's goal: " + failures_line(left))


class OwnTyping(ConclusionGuard):
    """A success criterion that holds only because of what the run typed (text found only inside
    a field the run typed into, a field's value equal to text the run typed) proves the typing,
    not the task's outcome: it is no evidence, and never counts as proof (nothing_proves)."""

    name = "own_typing"
    strength = "advisory"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        typed = run.typed_only(final)
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

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        proving = run.proving(final)
        if not proving or any(key(p) not in run.held_since_optional_plan for p in proving):
            return None
        return self.finding("unproven", "nothing proves the task was done: the success criteria came to hold only while the last "
                                        "plan ran, and every step of it was optional, one the task can succeed without")


class NothingProves(ConclusionGuard):
    """A success needs evidence the run made about the task's outcome. With success criteria: one
    that came to hold during the run (not one that held when it began), not through the run's own
    typing, and not one any navigation satisfies (`url_changed`); where the only criteria named a
    page the run left, every required step of the plan proven by a change on the page. Without
    criteria: a step proven by such a check, or every required step proven by a change on the
    page; a step proven only by what the run typed or by the address changing proves nothing."""

    name = "nothing_proves"
    strength = "refusal"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        verified = f"({run.steps_verified} step(s) verified)"
        if run.criteria:
            if run.proving(final) or (not run.counted() and run.plan_proven):
                return None
            came = run.came_to_hold()
            if came and run.typed_only(final):
                return self.finding("unproven", f"nothing proves the task was done: the success criteria that changed hold only because of what the run typed {verified}")
            if came:
                return self.finding("unproven", "nothing proves the task was done: the success criteria that changed say only that the "
                                                f"address changed, as any navigation does {verified}")
            when = "when the run began" if run.held_at_start else "when the plan that named it was made"
            return self.finding("unproven", f"nothing proves the task was done: every success criterion already held {when} {verified}")
        if run.steps_proving or run.plan_proven:
            return None
        if run.steps_verified:
            return self.finding("unproven", "nothing proves the task was done: the plan has no success criteria, and its steps were "
                                            f"proven only by what the run typed or by the address changing {verified}")
        unproven = f"; {run.steps_unproven} step(s) acted with checks that held before they acted" if run.steps_unproven else ""
        return self.finding("unproven", "nothing proves the task was done: no step was verified by a check that changed, "
                                        f"and the plan has no success criteria{unproven}")


class PartsUnnamed(ConclusionGuard):
    """Parts of the task (its clauses) that no proving criterion shares a word with, where no step
    was verified: words differ between a task and a site ("dark theme", "Night mode"), so this is
    told, never a reason to withhold a success the evidence gives."""

    name = "parts_unnamed"
    strength = "advisory"

    def conclude(self, run: Conclusion, claim: Done | None, final: Snapshot) -> Finding | None:
        proving = run.proving(final)
        unnamed = parts_unnamed(run.task, proving) if proving and not run.steps_verified else []
        if not unnamed:
            return None
        return self.finding("parts_unnamed", "no success criterion speaks of these parts of the task: " + "; ".join(unnamed))


#: The conclusion guards every run and replay is given unless its caller attaches others.
CONCLUSION: tuple[ConclusionGuard, ...] = (AnswerSaysFailed(), MissingValue(), LeftStartPage(), CriteriaFail(), LeftNamedPage(),
                                           OwnTyping(), OptionalStepsOnly(), NothingProves(), PartsUnnamed())


def conclude(run: Conclusion, claim: Done | None, final: Snapshot,
             attached: Sequence[ConclusionGuard] = CONCLUSION) -> tuple[ConclusionGuard | None, list[Finding]]:
    """Run the attached conclusion guards in order over the run's view, its claim and the final
    page: the first refusal ends the judgement (its guard says how the run ends); every finding is
    returned, advisories included."""
    findings: list[Finding] = []
    for guard in attached:
        found = guard.conclude(run, claim, final)
        if found is None:
            continue
        findings.append(found)
        if found.strength == "refusal":
            return guard, findings
    return None, findings
