"""The run's plans: the planner's, or (planning off, or no usable plan) the task itself as one
open step the executor works on until it says done; made again, for a replan, from the page a
failed step or an unfinished plan left."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from waymark.host.agent.answers import ANSWER_INTENT, Answers
from waymark.host.agent.budgets import BudgetTracker
from waymark.host.agent.planner import (
    Plan,
    Planner,
    PlannerFailed,
    PlanStep,
    fallback_plan,
)
from waymark.host.agent.prompts import text_block
from waymark.host.agent.proof import Proof
from waymark.host.agent.relevance import named_like, text_like
from waymark.host.core.snapshot import Snapshot

#: Characters of each raw model answer kept in the trace (redacted like everything traced).
ANSWER_CHARS = 4000


def clipped(answers: list[str]) -> list[str]:
    """The answers, each cut to ANSWER_CHARS."""
    return [a if len(a) <= ANSWER_CHARS else a[:ANSWER_CHARS] + " [...]" for a in answers]


class Planning:
    """Asks for plans and keeps what the run needs to know of the current one."""

    def __init__(self, planner: Planner, task: str, enabled: bool, answers: Answers, budget: BudgetTracker, proof: Proof, history: list[str],
                 emit: Callable[..., Any], take_tokens: Callable[[int, int], None], safe: Callable[[Snapshot], Snapshot],
                 page: Callable[[Snapshot], str], timeout: Callable[[], float], read_text: Callable[[], Awaitable[str]]) -> None:
        self.planner = planner
        self.task = task
        self.enabled = enabled
        self.answers = answers
        self.budget = budget
        self.proof = proof
        self.history = history
        self.emit = emit
        self.take_tokens = take_tokens
        self.safe = safe
        self.page = page
        self.timeout = timeout
        #: The page's readable text, redacted as prompts see it.
        self.read_text = read_text
        #: The fallback plan's step: worked on until the executor says done.
        self.open_step: PlanStep | None = None
        #: Elements an overlay hid on the page the current plan was made on.
        self.hid = 0
        #: Steps verified when the current plan was made: the plan's own proven steps are the rest.
        self.verified_before = 0

    async def plan(self, snap: Snapshot, evidence: dict[str, Any] | None, steps_verified: int) -> Plan:
        """A plan for the task from this page (`evidence`: why the last one ended, for a replan)."""
        plan = await self._plan(snap, evidence, steps_verified)
        await self.proof.planned(plan, snap)
        return plan

    async def text_for(self, safe: Snapshot) -> str:
        """The page's text lines that use the task's words, as the planner (and the executor on
        the open step, whose job is the answer) is shown them; nothing when no line does (a
        prompt gains no block that says nothing)."""
        text = await self.read_text()
        lines = text_like(self.task, text, safe)
        return text_block(lines, len(text)) if lines else ""

    async def _plan(self, snap: Snapshot, evidence: dict[str, Any] | None, steps_verified: int) -> Plan:
        self.budget.check_tokens()
        if not self.enabled:
            plan = fallback_plan(self.task)
            self.open_step = plan.steps[0]
            self.emit("replan" if evidence else "plan", steps=[s.model_dump() for s in plan.steps], tokens=0,
                      fallback=True, reason="planning is off for this run", evidence=evidence)
            return plan
        safe = self.safe(snap)
        self.hid = int(snap.stats.get("occluded") or 0)
        self.verified_before = steps_verified
        try:
            result = await self.planner.plan(
                self.task, self.page(safe), evidence=evidence, history=self.history, timeout=self.timeout(),
                named=named_like(self.task, safe), text=await self.text_for(safe),
            )
        except PlannerFailed as exc:
            # The executor alone can still try the task; only task-level evidence can prove it then.
            self.take_tokens(exc.tokens_in, exc.tokens_out)
            plan = fallback_plan(self.task)
            self.open_step = plan.steps[0]
            self.emit("replan" if evidence else "plan", steps=[s.model_dump() for s in plan.steps], tokens=exc.tokens,
                      fallback=True, reason=str(exc), evidence=evidence, answers=clipped(exc.answers))
            return plan
        self.take_tokens(result.tokens_in, result.tokens_out)
        self.open_step = None
        if self.answers.wanted():
            # A run asked for an answer ends with a step worked on until the executor gives it.
            self.open_step = PlanStep(intent=ANSWER_INTENT, verify=[])
            result.plan.steps.append(self.open_step)
        if result.plan.success_criteria:
            await self.proof.named(result.plan.success_criteria, snap)
        self.emit("replan" if evidence else "plan", steps=[s.model_dump() for s in result.plan.steps], tokens=result.tokens,
                  success_criteria=result.plan.success_criteria, latency_ms=round(result.latency_ms, 1), attempts=result.attempts,
                  evidence=evidence, coercions=result.coercions, answers=clipped(result.answers))
        return result.plan
