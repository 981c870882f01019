"""The planner: from the task and the first snapshot, a plan of verifiable steps; on a failed
required step, a new plan for the rest of the task with the evidence of the failure."""

from __future__ import annotations

import re
import time
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from waymark.host.agent import prompts
from waymark.host.agent.parsing import ParseFailure, extract_json
from waymark.host.agent.verifier import PredicateError, parse_predicates
from waymark.host.agent.words import words
from waymark.host.core.coercions import coerce_predicates
from waymark.host.core.predicates import PREDICATE_NAMES, predicate_schema
from waymark.host.core.snapshot import SnapshotElement
from waymark.providers.base import CompletionRequest, LLMProvider, Message

#: Planner answers that are not a usable plan get this many reminders.
MAX_PLAN_RETRIES = 2
MAX_PLAN_STEPS = 30


#: The placeholders of the planner prompt's format (prompts._PLANNER_TEMPLATE): a plan that still
#: holds one copied the format instead of planning.
_PLACEHOLDER = re.compile(r"<(?:one action and the element it is done to|part of a URL|regex|text|role|name|part of the file name)>")


def _no_placeholder(value: Any, own: str) -> None:
    """Refuse a value holding one of the prompt's placeholders, wherever it is nested, unless the
    task or the page itself has those words (`own`): `<name>` in a task is the user's, not the format's."""
    if isinstance(value, str):
        found = _PLACEHOLDER.search(value)
        if found and found.group(0) not in own:
            raise ValueError(f"{found.group(0)} is a placeholder of the format; write this task's own words there")
    elif isinstance(value, dict):
        for item in value.values():
            _no_placeholder(item, own)
    elif isinstance(value, list):
        for item in value:
            _no_placeholder(item, own)


def _own(info: ValidationInfo) -> str:
    """The text a plan is about (the task and the page), given as the validation context `own`."""
    return str((info.context or {}).get("own", ""))


def _valid_predicates(value: list[dict[str, Any]], info: ValidationInfo) -> list[dict[str, Any]]:
    try:
        parse_predicates(value)
    except PredicateError as exc:
        raise ValueError(str(exc)) from None
    _no_placeholder(value, _own(info))
    return value


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_serialization_defaults_required=True)

    intent: str = Field(min_length=1, max_length=500)
    verify: list[dict[str, Any]] = Field(default_factory=list)
    required: bool = True

    @field_validator("intent")
    @classmethod
    def _own_words(cls, value: str, info: ValidationInfo) -> str:
        _no_placeholder(value, _own(info))
        return value

    @field_validator("verify")
    @classmethod
    def _predicates(cls, value: list[dict[str, Any]], info: ValidationInfo) -> list[dict[str, Any]]:
        return _valid_predicates(value, info)


class Plan(BaseModel):
    model_config = ConfigDict(extra="ignore")

    #: Empty only in a replan that finds the task already done (Planner.plan refuses it in a first plan).
    steps: list[PlanStep] = Field(default_factory=list, max_length=MAX_PLAN_STEPS)
    #: What must be true of the page when the whole task is done; checked before a claimed
    #: success is accepted.
    success_criteria: list[dict[str, Any]] = Field(default_factory=list, max_length=10)

    @field_validator("success_criteria")
    @classmethod
    def _criteria(cls, value: list[dict[str, Any]], info: ValidationInfo) -> list[dict[str, Any]]:
        return _valid_predicates(value, info)


def fallback_plan(task: str) -> Plan:
    """The plan when the planner gave none: the task itself as one step, worked on by the
    executor until it says done; only task-level evidence can then prove it."""
    return Plan(steps=[PlanStep.model_validate({"intent": task[:500], "verify": [], "required": True}, context={"own": task})])


class PlannerFailed(Exception):
    """The planner gave no usable plan within its reminders; `tokens` were spent on them."""

    def __init__(self, message: str, tokens_in: int = 0, tokens_out: int = 0, raw: str = "", answers: list[str] | None = None) -> None:
        super().__init__(message)
        self.tokens_in = tokens_in
        self.tokens_out = tokens_out
        self.tokens = tokens_in + tokens_out
        self.raw = raw
        self.answers = answers or []


def _plan_problem(exc: ValidationError) -> str:
    """The first thing wrong with a plan, in words (`step 2 verify: ...`), not a validator path."""
    err = exc.errors(include_input=False, include_url=False)[0]
    words: list[str] = []
    for part in err["loc"]:
        if isinstance(part, int) and words:
            words[-1] = f"{words[-1].removesuffix('s')} {part + 1}"
        else:
            words.append(str(part))
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "missing":
        msg = "missing"
    return f"{' '.join(words)}: {msg}" if words else msg


def _plan_reminder(problem: str) -> str:
    """What to say after an unusable plan. Only an answer with no usable JSON gets an example of
    the shape: an example plan shown after one bad check is an answer a model may copy whole."""
    if problem.startswith("[shape]"):
        return (f"That plan could not be used {problem}. Correct only that, keep the rest of your plan for this task, "
                "and answer the whole plan again as exactly one JSON object and nothing else.")
    return (f"That plan could not be used {problem}. Answer again with exactly one JSON object and nothing else, shaped "
            '{"steps": [{"intent": "...", "verify": [predicate, ...], "required": true}], "success_criteria": [predicate, ...]}.')


class PlanResult(BaseModel):
    plan: Plan
    raw: str
    tokens: int
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float
    attempts: int
    #: Near-miss repairs and coercions applied to the accepted answer.
    coercions: list[str] = []
    #: Every raw answer, the rejected ones included.
    answers: list[str] = []


#: Temperature of the fresh try after the same unusable plan came back twice.
REPEAT_TEMPERATURE = 0.7


def read_plan(text: str, notes: list[str] | None = None, own: str = "") -> Plan:
    """The plan in a planner's answer, near misses coerced (predicate objects and pairs where a
    list belongs, comments, fences); raises ParseFailure or ValidationError. `own`: the task and
    the page, whose words the plan may quote even where they look like the format's placeholders."""
    obj = extract_json(text, notes)
    steps = obj.get("steps")
    if isinstance(steps, list):
        fixed = []
        for step in steps:
            if isinstance(step, dict) and "verify" in step:
                verify, coerced = coerce_predicates(step["verify"], PREDICATE_NAMES)
                step = {**step, "verify": verify}
                if notes is not None:
                    notes.extend(coerced)
            fixed.append(step)
        obj = {**obj, "steps": fixed}
    if "success_criteria" in obj:
        criteria, coerced = coerce_predicates(obj["success_criteria"], PREDICATE_NAMES)
        obj = {**obj, "success_criteria": criteria}
        if notes is not None:
            notes.extend(coerced)
    return Plan.model_validate(obj, context={"own": own})


#: Verbs that commit what a task asks for: a step doing one of them is the task's outcome.
COMMITTING_VERBS = frozenset({"send", "pay", "save", "submit", "post", "order", "buy", "purchase", "book", "subscribe",
                              "unsubscribe", "confirm", "publish", "delete", "remove", "place", "checkout", "register",
                              "apply", "reply", "transfer", "share", "upload", "cancel", "sign", "create", "add"})


def main_verb_required(plan: Plan, task: str) -> tuple[Plan, list[str]]:
    """The plan with every optional step that does one of the task's committing verbs (send, pay,
    save, submit...) made required: the outcome the task asks for cannot be optional. Each step
    changed is noted (`required_main_verb`)."""
    verbs = words(task) & COMMITTING_VERBS
    steps, notes = [], []
    for step in plan.steps:
        if not step.required and words(step.intent) & verbs:
            step = step.model_copy(update={"required": True})
            notes.append("required_main_verb")
        steps.append(step)
    return (plan.model_copy(update={"steps": steps}) if notes else plan), notes


def plan_schema() -> dict[str, Any]:
    """The plan's JSON schema, its checks in the predicate registry's shapes (host/core/predicates.py)."""
    schema = Plan.model_json_schema()
    predicate = predicate_schema()
    defs = {**schema.get("$defs", {}), **predicate.pop("$defs")}
    for model in (schema, defs.get("PlanStep", {})):
        for field in ("verify", "success_criteria"):
            if field in model.get("properties", {}):
                model["properties"][field]["items"] = predicate
    return {**schema, "$defs": defs}


class Planner:
    """Asks one provider for plans."""

    def __init__(self, provider: LLMProvider, timeout: float = 120.0, temperature: float | None = None) -> None:
        self.provider = provider
        self.timeout = timeout
        self.temperature = temperature

    async def plan(
        self, task: str, page: str, *, evidence: dict[str, Any] | None = None,
        history: list[str] | None = None, timeout: float | None = None, named: list[tuple[SnapshotElement, list[str]]] | None = None,
        text: str = "",
    ) -> PlanResult:
        """A validated plan; raises PlannerFailed after MAX_PLAN_RETRIES reminders. `named`: the
        page's elements named with the task's words (host.agent.relevance); `text`: the block of
        the page's text lines that use them (prompts.text_block)."""
        first = [
            Message.text("system", prompts.planner_system(secrets=prompts.mentions_secrets(task))),
            Message.text("user", prompts.planner_user(task, page, evidence, history, named, text)),
        ]
        messages = first
        caps = self.provider.capabilities()
        tokens_in = tokens_out = 0
        started = time.perf_counter()
        raw = ""
        temperature = self.temperature
        answers: list[str] = []
        for attempt in range(1, MAX_PLAN_RETRIES + 2):
            request = CompletionRequest(
                messages=messages,
                response_schema=plan_schema() if caps.json_schema else None,
                timeout=timeout or self.timeout, temperature=temperature,
                metadata={"role": "planner", "task": task, "attempt": attempt, "replan": evidence is not None},
            )
            completion = (await self.provider.complete(request)).unless_refused(self.provider.name)
            if completion.usage:
                tokens_in += completion.usage.input_tokens
                tokens_out += completion.usage.output_tokens
            raw = completion.text or ""
            answers.append(raw)
            coercions: list[str] = []
            try:
                plan, required = main_verb_required(read_plan(raw, coercions, own=task + "\n" + page), task)
                coercions += required
            except ParseFailure as failure:
                problem = f"[{failure.kind}] {failure.detail or 'no usable JSON'}"
            except ValidationError as exc:
                problem = f"[shape] {_plan_problem(exc)}"
            else:
                if plan.steps or evidence is not None:
                    return PlanResult(plan=plan, raw=raw, tokens=tokens_in + tokens_out, tokens_in=tokens_in, tokens_out=tokens_out,
                                      latency_ms=(time.perf_counter() - started) * 1000, attempts=attempt, coercions=coercions, answers=answers)
                problem = "[shape] steps: a first plan needs at least one step"
            reminder = _plan_reminder(problem)
            if len(answers) > 1 and answers[-1] == answers[-2]:
                # A model shown its own answer tends to copy it: ask afresh, warmer, without it.
                temperature = max(REPEAT_TEMPERATURE, self.temperature or 0.0)
                messages = [*first, Message.text("user", "Your earlier plans were the same and could not be used; do not repeat them. " + reminder)]
            else:
                messages = [*messages, Message.text("assistant", raw or "(empty)"), Message.text("user", reminder)]
        raise PlannerFailed(f"the planner gave no usable plan in {MAX_PLAN_RETRIES + 1} answers; last: {problem}", tokens_in=tokens_in, tokens_out=tokens_out, raw=raw, answers=answers)
