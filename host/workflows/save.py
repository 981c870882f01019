"""A workflow from a successful run's trace: each proven step's intent, action and target, the
checks that proved it, the task's success criteria; the values the task gave become parameters
and typed secrets stay placeholders.

All knowledge of the trace's event format is in `recorded()`: the rest reads a Recording.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from waymark.host.agent.answers.schema import leaves
from waymark.host.agent.redaction import (
    PLACEHOLDER,
    REDACTED,
    is_password_field,
    redact_url,
)
from waymark.host.agent.trace import read_trace
from waymark.host.core.actions import ACTION_TYPES, BROWSER_ACTIONS
from waymark.host.core.secrets_store import SecretError, normalize_origin
from waymark.host.core.snapshot import SnapshotElement
from waymark.host.core.targets import ElementPlace, normalise
from waymark.host.workflows.model import (
    NAME_PATTERN,
    Answer,
    AnswerValue,
    Parameter,
    Workflow,
    WorkflowStep,
)
from waymark.host.workflows.reread import formula
from waymark.host.workflows.store import now

#: Step verdicts whose action stayed part of the run (the others were attempts that did not count).
KEPT = ("passed", "unproven", "acted")
#: Actions a replay does not repeat: those the host carries out (the run's end, its questions, and
#: read_download, whose download id was the recorded run's own: a replay's downloads get new ones).
NOT_REPLAYED = tuple(kind for kind in ACTION_TYPES if kind not in BROWSER_ACTIONS)


class NotSaveable(ValueError):
    """The run cannot become a workflow (it did not succeed, is still running, has no steps)."""


class RecordedStep(BaseModel):
    """One step of a run, as a workflow needs it."""

    intent: str
    action: dict[str, Any]
    target: ElementPlace | None = None
    to_target: ElementPlace | None = None
    proof: list[dict[str, Any]] = Field(default_factory=list)
    destructive: str | None = None
    #: Where a secret typed at this step went: the frame's origin as the browser read it, else the page's.
    secret_origin: str | None = None


class Recording(BaseModel):
    """What a run's trace says of it, for saving."""

    run_id: str
    task: str
    start_url: str
    success: bool
    outcome: str
    #: The run's answer (`done`'s data), the caller's output schema, and where each value was found.
    data: Any = None
    output_schema: dict[str, Any] | None = None
    grounding: list[dict[str, Any]] = Field(default_factory=list)
    criteria: list[dict[str, Any]] = Field(default_factory=list)
    steps: list[RecordedStep] = Field(default_factory=list)


def recorded(folder: Path) -> Recording:
    """The run in `folder` read from its trace and summary (the one reader of the trace format here)."""
    events, summary = read_trace(folder)
    if summary is None:
        raise NotSaveable(f"run {folder.name} has not finished")
    start = next((e for e in events if e.get("event") == "run"), {})
    # A run started on the user's tab (the side panel) names no start URL: its first step's page is where it began.
    first_page = next(((e.get("snapshot") or {}).get("url") for e in events if e.get("event") == "step" and e.get("snapshot")), None)
    criteria: list[dict[str, Any]] = []
    steps: list[RecordedStep] = []
    for event in events:
        kind = event.get("event")
        if kind in ("plan", "replan") and event.get("success_criteria"):
            criteria = list(event["success_criteria"])
        if kind != "step" or event.get("verdict") not in KEPT or not isinstance(event.get("action"), dict):
            continue
        action = dict(event["action"])
        if action.get("type") in NOT_REPLAYED:
            continue
        proof = list(event.get("changed") or []) if event.get("verdict") == "passed" else []
        steps.append(RecordedStep(intent=str(event.get("intent") or action.get("type")), action=action, target=event.get("target"),
                                  to_target=event.get("to_target"), proof=proof, destructive=event.get("destructive"),
                                  secret_origin=event.get("secret_origin") or _origin((event.get("snapshot") or {}).get("url"))))
    # The summary's task passed the run's redactor at its end: the run event's copy may still hold a password.
    return Recording(run_id=str(summary.get("run_id") or folder.name), task=str(summary.get("task") or ""),
                     start_url=redact_url(start.get("start_url") or first_page) or "", success=bool(summary.get("success")),
                     outcome=str(summary.get("outcome") or ""), data=summary.get("data"), output_schema=start.get("output_schema"),
                     grounding=list((summary.get("grounding") or {}).get("values") or []), criteria=criteria, steps=steps)


def slug(text: str, fallback: str) -> str:
    """A parameter or secret name from a field's name: `Card number` -> `card_number`."""
    name = re.sub(r"[^a-z0-9]+", "_", normalise(text)).strip("_")[:40]
    if not name:
        return fallback
    return name if not name[0].isdigit() else f"{fallback}_{name}"


def _word(value: str) -> re.Pattern[str]:
    """`value` as a whole word (case-insensitive), so `ada` does not match inside `Canada`."""
    return re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.IGNORECASE)


def _replace(value: Any, pattern: re.Pattern[str], placeholder: str) -> Any:
    if isinstance(value, str):
        return pattern.sub(placeholder, value)
    if isinstance(value, dict):
        return {k: _replace(v, pattern, placeholder) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, pattern, placeholder) for v in value]
    return value


def _origin(url: object) -> str | None:
    """The origin of a recorded page's URL, or None when it has none a secret could be bound to."""
    try:
        return normalize_origin(url)
    except SecretError:
        return None


def _is_secret(text: str, target: ElementPlace | None) -> bool:
    if text == REDACTED or REDACTED in text or PLACEHOLDER.fullmatch(text.strip()):
        return True
    return target is not None and is_password_field(SnapshotElement(ref=1, role=target.role, name=target.name))


def workflow_from(recording: Recording, name: str, description: str = "") -> Workflow:
    """The workflow of a successful run. A value typed into a secret field becomes
    `{{secret:NAME}}`; a typed value the task's own words give becomes `{{param:NAME}}` wherever it
    stands (action, checks, criteria, task), its recorded value the default."""
    if not re.fullmatch(NAME_PATTERN, name):  # `$` alone would let a trailing newline through
        raise NotSaveable(f"{name!r} is not a workflow name (lowercase letters, digits, - and _, up to 63)")
    if not recording.success:
        raise NotSaveable(f"run {recording.run_id} ended {recording.outcome or 'without success'}: only a run that succeeded can be saved")
    if not recording.steps:
        raise NotSaveable(f"run {recording.run_id} has no step to replay")
    if not recording.start_url:
        raise NotSaveable(f"run {recording.run_id} did not start from a URL, so a replay would not know where to begin")
    steps = [WorkflowStep(intent=s.intent, action={k: v for k, v in s.action.items() if k not in ("ref", "to_ref")},
                          target=s.target, to_target=s.to_target, checks=s.proof, destructive=s.destructive) for s in recording.steps]
    task, criteria = recording.task, recording.criteria
    answer = answer_of(recording)
    params: dict[str, Parameter] = {}
    secrets: list[str] = []
    for step, taken in zip(steps, recording.steps):
        field = "text" if isinstance(step.action.get("text"), str) else "value" if isinstance(step.action.get("value"), str) else None
        value = str(step.action.get(field, "")) if field else ""
        if not value.strip():
            continue
        label = step.target.name if step.target else ""
        if _is_secret(value, step.target):
            found = PLACEHOLDER.fullmatch(value.strip())
            secret = found.group(1) if found else slug(label, "secret")
            step.action[field or "text"] = f"{{{{secret:{secret}}}}}"
            step.secret_origin = taken.secret_origin
            secrets.append(secret)
            continue
        pattern = _word(value.strip())
        if not pattern.search(task):
            continue
        existing = next((p for p in params.values() if p.default == value.strip()), None)
        param = existing or Parameter(name=_unique(slug(label, "value"), params), description=f"typed into {label or 'the page'}",
                                      default=value.strip())
        params[param.name] = param
        placeholder = f"{{{{param:{param.name}}}}}"
        for other in steps:
            other.action = _replace(other.action, pattern, placeholder)
            other.checks = _replace(other.checks, pattern, placeholder)
        criteria = _replace(criteria, pattern, placeholder)
        if answer is not None:
            # The words around an answer's value may hold the parameter (`order px-1042 total`): a replay reads it beside the value it is given.
            for held in answer.values:
                held.before, held.after = _replace(held.before, pattern, placeholder), _replace(held.after, pattern, placeholder)
        task = pattern.sub(placeholder, task)
    if REDACTED in task and len(set(secrets)) == 1:
        task = task.replace(REDACTED, f"{{{{secret:{secrets[0]}}}}}")
    stamp = now()
    return Workflow(name=name, description=description, task=task,
                    start_url=recording.start_url, parameters=list(params.values()), steps=steps, success_criteria=criteria, answer=answer,
                    source_run=recording.run_id, created=stamp, updated=stamp)


def answer_of(recording: Recording) -> Answer | None:
    """The run's answer as a replay gives it again (None when it gave none)."""
    if recording.data is None:
        return None
    return answer_from(recording.data, recording.output_schema, recording.grounding, f"run {recording.run_id}")


def answer_from(data: Any, schema: dict[str, Any] | None, grounding: list[dict[str, Any]], who: str) -> Answer:
    """An answer as a replay reads it again: each value with the text around the place `grounding`
    found it, each computed value with the count or sum of the answer's values that gives it.
    `who` names the answer's source in a NotSaveable's message."""
    sources = {str(v.get("path")): v.get("source") or {} for v in grounding}
    values = []
    for leaf in leaves(data, schema):
        held = AnswerValue(parts=list(leaf.parts), path=leaf.path, value=leaf.value, required=leaf.required)
        if leaf.computed:
            how = formula(leaf.value, data, leaf.parts)
            if how is None:
                raise NotSaveable(f"{who}'s answer computed {leaf.path} ({leaf.value!r}), which is neither a count "
                                  "nor a sum of its other values: a replay could not compute it again without a model")
            held.computed, held.over, held.field = how
        else:
            source = sources.get(leaf.path) or {}
            if not (str(source.get("before") or "").strip() or str(source.get("after") or "").strip()):
                raise NotSaveable(f"{who}'s answer holds {leaf.path} ({leaf.value!r}), which it did not find among "
                                  "words on a page it saw: a replay would not know where to read it again")
            held.written, held.before, held.after = (str(source.get(k) or "") for k in ("written", "before", "after"))
        values.append(held)
    if not values:
        raise NotSaveable(f"{who}'s answer holds no value to read again")
    return Answer(output_schema=schema, data=data, values=values)


def _unique(name: str, taken: dict[str, Parameter]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{name}_{n}" in taken:
        n += 1
    return f"{name}_{n}"
