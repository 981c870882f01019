"""The workflow file: pydantic models, the JSON Schema generated from them, and loading that
names the step and the field of a hand-edited mistake.

A workflow never holds a ref (refs live as long as one document) nor a secret: typed secrets
stay `{{secret:NAME}}` placeholders, resolved from the host's secret store at dispatch.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.core.targets import ElementPlace

#: The file format's version; a file of another version is refused with a clear error.
FORMAT = 1

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
PARAM_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
#: `{{param:NAME}}` in a step's text, checks, the task or the start URL: replaced by the run's value.
PARAM = re.compile(r"\{\{\s*param:([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}")


class Parameter(BaseModel):
    """A value the run may be given: `{{param:NAME}}` wherever the recorded value stood."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=PARAM_PATTERN)
    description: str = ""
    #: The value the saved run used; None makes the parameter required.
    default: str | None = None


class HealNote(BaseModel):
    """When and how a step's target was found again after the page changed."""

    model_config = ConfigDict(extra="forbid")

    at: str
    #: near: by the text around it; position: by its place among its role; model: the executor chose it.
    by: Literal["near", "position", "model"]
    was: ElementPlace | None = None
    model_calls: int = 0


class WorkflowStep(BaseModel):
    """One recorded action and the checks that proved it."""

    model_config = ConfigDict(extra="forbid")

    intent: str = Field(min_length=1)
    #: The action as the grammar takes it, without ref/to_ref (the target says which element).
    action: dict[str, Any]
    target: ElementPlace | None = None
    to_target: ElementPlace | None = None
    #: The predicates that proved the step (they did not hold before it acted, and held after).
    checks: list[dict[str, Any]] = Field(default_factory=list)
    #: Why the step is destructive (a normal run asked the user first); None when it is not.
    destructive: str | None = None
    healed: HealNote | None = None
    #: The origin of the frame the saved run typed this step's secret into, as the browser read it:
    #: a replay types the secret there only (None: the step types no secret, or was saved before).
    secret_origin: str | None = None


class AnswerValue(BaseModel):
    """One string or number of a saved answer and where a replay gets it again: read from the text
    around the place the saved run found it (`before`, `written`, `after`, normalized), or
    computed from the answer's other values (`computed`)."""

    model_config = ConfigDict(extra="forbid")

    #: The keys and indexes leading to the value in the answer.
    parts: list[str | int]
    path: str
    #: The value the saved run answered (its type is the one a replay gives).
    value: str | int | float
    required: bool = True
    written: str = ""
    before: str = ""
    after: str = ""
    #: count: how many items the array at `over` has; sum: the sum of `field` over its items.
    computed: Literal["count", "sum"] | None = None
    over: list[str | int] = Field(default_factory=list)
    field: str | int | None = None


class Answer(BaseModel):
    """The answer a saved run gave (`done`'s data): a replay gives it again, each value read afresh."""

    model_config = ConfigDict(extra="forbid")

    output_schema: dict[str, Any] | None = None
    #: The saved answer: its shape is the replay's, its values are replaced by those read again.
    data: Any
    values: list[AnswerValue] = Field(min_length=1)


class Workflow(BaseModel):
    """A saved workflow: the task's steps, its success criteria and its parameters."""

    model_config = ConfigDict(extra="forbid", title="Waymark workflow")

    format: Literal[1] = FORMAT
    name: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    #: The task in words, with `{{param:NAME}}` where a parameter's value stood.
    task: str = Field(min_length=1)
    start_url: str = Field(min_length=1)
    parameters: list[Parameter] = Field(default_factory=list)
    steps: list[WorkflowStep] = Field(min_length=1)
    success_criteria: list[dict[str, Any]] = Field(default_factory=list)
    #: The answer the task asks for, when it asks one.
    answer: Answer | None = None
    #: Steps (1-based) whose destructive action the user approved for this workflow: never asked again.
    approved: list[int] = Field(default_factory=list)
    #: False: an MCP client saved it and the user has not yet reviewed it in the side panel, so it
    #: is neither replayed nor offered to MCP clients as a tool (a client must not write the
    #: steps, or the tool description, another client or the user then runs).
    reviewed: bool = True
    source_run: str = ""
    created: str = ""
    updated: str = ""


def workflow_schema() -> dict[str, Any]:
    """The JSON Schema of a workflow file (generated from the models: one source of truth)."""
    return Workflow.model_json_schema()


class WorkflowInvalid(ValueError):
    """A workflow file that cannot be used: the message names the step and the field."""


def _where(path: list[Any] | tuple[Any, ...]) -> str:
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "steps" and isinstance(parts[1], int):
        rest = ".".join(map(str, parts[2:]))
        return f"step {parts[1] + 1}" + (f", field {rest}" if rest else "")
    return "field " + ".".join(map(str, parts)) if parts else "the file"


def validate(data: Any) -> Workflow:
    """A workflow from parsed JSON: checked against the JSON Schema first (its errors name the step
    and field), then built; placeholders must name declared parameters."""
    if isinstance(data, dict) and data.get("format") not in (None, FORMAT):
        raise WorkflowInvalid(f"format {data.get('format')!r} is not supported (this Waymark reads format {FORMAT})")
    validator = jsonschema.Draft202012Validator(workflow_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.path), list(map(str, e.path))))
    if errors:
        error = errors[0]
        raise WorkflowInvalid(f"{_where(list(error.path))}: {error.message}")
    try:
        workflow = Workflow.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_input=False, include_url=False)[0]
        raise WorkflowInvalid(f"{_where(list(err['loc']))}: {err['msg']}") from None
    declared = {p.name for p in workflow.parameters}
    for where, used in _uses(workflow):
        unknown = sorted(set(used) - declared)
        if unknown:
            raise WorkflowInvalid(f"{where}: {{{{param:{unknown[0]}}}}} names no parameter of this workflow")
    return workflow


def _uses(workflow: Workflow) -> list[tuple[str, list[str]]]:
    out = [("field task", PARAM.findall(workflow.task)), ("field start_url", PARAM.findall(workflow.start_url)),
           ("field success_criteria", PARAM.findall(str(workflow.success_criteria)))]
    for i, step in enumerate(workflow.steps, 1):
        out.append((f"step {i}, field action", PARAM.findall(str(step.action))))
        out.append((f"step {i}, field checks", PARAM.findall(str(step.checks))))
    return out


class ParamMissing(ValueError):
    """A required parameter was not given, or an unknown one was."""


def bind(workflow: Workflow, given: dict[str, str]) -> dict[str, str]:
    """The value of every parameter for one run: given ones, else their defaults."""
    declared = {p.name: p for p in workflow.parameters}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ParamMissing(f"{workflow.name} has no parameter {unknown[0]!r} (it has: {', '.join(declared) or 'none'})")
    values: dict[str, str] = {}
    for name, param in declared.items():
        value = given.get(name, param.default)
        if value is None:
            raise ParamMissing(f"{workflow.name} needs the parameter {name!r} (--param {name}=VALUE)")
        values[name] = value
    return values


def fill(value: Any, values: dict[str, str]) -> Any:
    """A JSON value with every `{{param:NAME}}` replaced by its value."""
    if isinstance(value, str):
        return PARAM.sub(lambda m: values[m.group(1)], value)
    if isinstance(value, dict):
        return {k: fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, values) for v in value]
    return value
