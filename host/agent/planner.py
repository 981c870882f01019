"""The planner: from the task and the first snapshot, a plan of verifiable steps; on a failed
required step, a new plan for the rest of the task with the evidence of the failure."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from host.agent import prompts
from host.agent.verifier import PredicateError, parse_predicates
from providers.base import CompletionRequest, LLMProvider, Message
from providers.parsing import ParseFailure, extract_json

#: Planner answers that are not a usable plan get this many reminders.
MAX_PLAN_RETRIES = 2
MAX_PLAN_STEPS = 30


def _valid_predicates(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    try:
        parse_predicates(value)
    except PredicateError as exc:
        raise ValueError(str(exc)) from None
    return value


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="ignore")

    intent: str = Field(min_length=1, max_length=500)
    verify: list[dict[str, Any]] = Field(default_factory=list)
    required: bool = True

    @field_validator("verify")
    @classmethod
    def _predicates(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return _valid_predicates(value)


class Plan(BaseModel):
    model_config = ConfigDict(extra="ignore")

    steps: list[PlanStep] = Field(min_length=1, max_length=MAX_PLAN_STEPS)
    #: What must be true of the page when the whole task is done; checked before a claimed
    #: success is accepted.
    success_criteria: list[dict[str, Any]] = Field(default_factory=list, max_length=10)

    @field_validator("success_criteria")
    @classmethod
    def _criteria(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return _valid_predicates(value)


def fallback_plan(task: str) -> Plan:
    """The plan when the planner gave none: the task itself as one step, worked on by the
    executor until it says done; only task-level evidence can then prove it."""
    return Plan(steps=[PlanStep(intent=task[:500], verify=[], required=True)])


class PlannerFailed(Exception):
    """The planner gave no usable plan within its reminders; `tokens` were spent on them."""

    def __init__(self, message: str, tokens: int = 0, raw: str = "") -> None:
        super().__init__(message)
        self.tokens = tokens
        self.raw = raw


class PlanResult(BaseModel):
    plan: Plan
    raw: str
    tokens: int
    latency_ms: float
    attempts: int


def plan_schema() -> dict[str, Any]:
    return Plan.model_json_schema()


class Planner:
    """Asks one provider for plans."""

    def __init__(self, provider: LLMProvider, timeout: float = 120.0) -> None:
        self.provider = provider
        self.timeout = timeout

    async def plan(
        self, task: str, page: str, snapshot_json: dict[str, Any], *, evidence: dict[str, Any] | None = None,
        done_steps: list[str] | None = None, timeout: float | None = None,
    ) -> PlanResult:
        """A validated plan; raises PlannerFailed after MAX_PLAN_RETRIES reminders."""
        messages = [
            Message.text("system", prompts.PLANNER_SYSTEM),
            Message.text("user", prompts.planner_user(task, page, evidence, done_steps)),
        ]
        caps = self.provider.capabilities()
        tokens = 0
        started = time.perf_counter()
        raw = ""
        for attempt in range(1, MAX_PLAN_RETRIES + 2):
            request = CompletionRequest(
                messages=messages,
                response_schema=plan_schema() if caps.json_schema else None,
                timeout=timeout or self.timeout,
                metadata={"role": "planner", "snapshot": snapshot_json, "task": task, "attempt": attempt, "replan": evidence is not None},
            )
            completion = await self.provider.complete(request)
            if completion.usage:
                tokens += completion.usage.input_tokens + completion.usage.output_tokens
            raw = completion.text or ""
            try:
                plan = Plan.model_validate(extract_json(raw))
            except ParseFailure as failure:
                problem = f"[{failure.kind}] {failure.detail or 'no usable JSON'}"
            except ValidationError as exc:
                err = exc.errors(include_input=False, include_url=False)[0]
                problem = f"[shape] {'.'.join(map(str, err['loc']))}: {err['msg']}"
            else:
                return PlanResult(plan=plan, raw=raw, tokens=tokens, latency_ms=(time.perf_counter() - started) * 1000, attempts=attempt)
            messages = [
                *messages,
                Message.text("assistant", raw or "(empty)"),
                Message.text("user", f"That plan could not be used {problem}. Answer again with exactly one JSON object "
                             '{"steps": [{"intent": ..., "verify": [...], "required": true}], "success_criteria": [...]} and nothing else.'),
            ]
        raise PlannerFailed(f"the planner gave no usable plan in {MAX_PLAN_RETRIES + 1} answers; last: {problem}", tokens=tokens, raw=raw)
