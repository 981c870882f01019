"""The registry of verifier predicates: one entry per predicate names its argument's shape, whether
it is about navigation, and the example the planner's prompt shows. The verifier, the planner's
prompt and schema, and the coercion of near-miss plans all read their predicates from here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from waymark.host.core.targets import Target


class ValueTarget(BaseModel):
    """`value_equals`: the element's value is exactly this text."""

    model_config = ConfigDict(extra="forbid")
    target: Target
    value: str


class CheckedTarget(BaseModel):
    """`checked`: the box is checked (true) or not (false); a partly checked box is neither."""

    model_config = ConfigDict(extra="forbid")
    target: Target
    value: bool = True


class CountTarget(BaseModel):
    """`count_at_least`: at least `n` elements fit the target."""

    model_config = ConfigDict(extra="forbid")
    target: Target
    n: int = Field(ge=0)


#: The states a `state` check may assert, besides the role's own value.
STATE_KEYS = ("checked", "selected", "expanded", "pressed", "current", "sort")


class StateTarget(BaseModel):
    """`state`: the control holds each state given (its role's own value, checked, selected,
    expanded, pressed, current, sort order), as the snapshot reads it from the page."""

    model_config = ConfigDict(extra="forbid")
    target: Target
    #: The role's own value: a slider's or spinbutton's value now (or its value text), a
    #: combobox's shown value, a field's text.
    value: str | None = None
    checked: bool | Literal["mixed"] | None = None
    selected: bool | None = None
    expanded: bool | None = None
    pressed: bool | Literal["mixed"] | None = None
    #: true for any aria-current, or its token (page, step, location, date, time).
    current: bool | Literal["page", "step", "location", "date", "time"] | None = None
    sort: Literal["ascending", "descending", "other", "none"] | None = None

    @model_validator(mode="after")
    def _something_asserted(self) -> StateTarget:
        if self.value is None and all(getattr(self, k) is None for k in STATE_KEYS):
            raise ValueError(f"state needs a value or one of {', '.join(STATE_KEYS)}")
        return self

    def asserted(self) -> dict[str, Any]:
        """The states this check asserts, by key (value included when given)."""
        return {k: v for k, v in self.model_dump(exclude={"target"}).items() if v is not None}


class DownloadCheck(BaseModel):
    """`downloaded`: one of the run's downloads is complete, its file name containing `name`
    (any case) and matching the regular expression `pattern`, when given; `{}`: any download."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1)
    pattern: str | None = Field(default=None, min_length=1)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"bad regular expression: {exc}") from None
        return pattern

    def fits(self, file_name: str) -> bool:
        """Whether a downloaded file's name is the one this check asks for."""
        return (self.name is None or self.name.casefold() in file_name.casefold()) and \
            (self.pattern is None or re.search(self.pattern, file_name) is not None)


Argument = Literal["string", "bool"] | type[BaseModel]


@dataclass(frozen=True)
class PredicateSpec:
    """One predicate: its argument (a non-empty string, a boolean, or a model), whether it is about
    where the browser is (those get the shorter navigation timeout), its example for the planner, and
    whether its holding can say anything of a task's outcome (`url_changed` holds after every
    navigation, whatever it led to: it proves no step or task, host.agent.guards.conclusion)."""

    argument: Argument
    example: str
    navigation: bool = False
    says_outcome: bool = True

    @property
    def targeted(self) -> bool:
        """Whether its argument holds a `target` beside other fields."""
        return isinstance(self.argument, type) and "target" in self.argument.model_fields and self.argument is not Target


#: Every predicate, in the order the planner's prompt shows them.
PREDICATES: dict[str, PredicateSpec] = {
    "url_contains": PredicateSpec("string", '{"url_contains": "<part of a URL>"}', navigation=True),
    "url_matches": PredicateSpec("string", '{"url_matches": "<regex>"}', navigation=True),
    "url_changed": PredicateSpec("bool", '{"url_changed": true}', navigation=True, says_outcome=False),
    "title_contains": PredicateSpec("string", '{"title_contains": "<text>"}', navigation=True),
    "exists": PredicateSpec(Target, '{"exists": {"role": "<role>", "name": "<name>"}}'),
    "absent": PredicateSpec(Target, '{"absent": {"role": "dialog"}}'),
    "text_present": PredicateSpec("string", '{"text_present": "<text>"}'),
    "value_equals": PredicateSpec(ValueTarget, '{"value_equals": {"target": {"role": "textbox", "name": "<name>"}, "value": "<text>"}}'),
    "checked": PredicateSpec(CheckedTarget, '{"checked": {"target": {"role": "checkbox", "name": "<name>"}, "value": true}}'),
    "state": PredicateSpec(StateTarget, '{"state": {"target": {"role": "<role>", "name": "<name>"}, "expanded": true}}'),
    "downloaded": PredicateSpec(DownloadCheck, '{"downloaded": {"name": "<part of the file name>"}}'),
    "count_at_least": PredicateSpec(CountTarget, '{"count_at_least": {"target": {"role": "<role>", "name_contains": "<text>"}, "n": 1}}'),
}

PREDICATE_NAMES = frozenset(PREDICATES)
#: Predicates about where the browser is; they get the shorter navigation timeout.
NAVIGATION_PREDICATES = frozenset(name for name, spec in PREDICATES.items() if spec.navigation)
#: Predicates any navigation makes hold, so their holding says nothing of what a task did.
BLIND_TO_OUTCOME = frozenset(name for name, spec in PREDICATES.items() if not spec.says_outcome)
#: Predicates whose argument holds a `target` beside other fields.
TARGETED_PREDICATES = frozenset(name for name, spec in PREDICATES.items() if spec.targeted)


def predicate_schema() -> dict[str, Any]:
    """The JSON schema of one predicate object, for a planner that is given a schema: one of the
    registry's, each an object of exactly that one key with its argument's shape (`anyOf`, which
    grammar-constrained decoders and Gemini take, where a count of keys is not kept). The models'
    shared definitions come under `$defs`, to be placed at the root of the schema that holds this one."""
    defs: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    for name, spec in PREDICATES.items():
        if spec.argument == "string":
            properties[name] = {"type": "string", "minLength": 1}
        elif spec.argument == "bool":
            properties[name] = {"type": "boolean"}
        else:
            assert isinstance(spec.argument, type)
            schema = spec.argument.model_json_schema(ref_template="#/$defs/{model}")
            defs.update(schema.pop("$defs", {}))
            properties[name] = schema
    return {"anyOf": [{"type": "object", "properties": {name: argument}, "required": [name], "additionalProperties": False}
                      for name, argument in properties.items()], "$defs": defs}
