"""The executor's grammar for one turn: one tool per action type, the schema a server that
constrains text to JSON is given, and the check every decision passes before it is dispatched.

The tools are the same for every snapshot: the refs a decision may name are said once, by the
snapshot the model reads, and the check below refuses any other (a ref enum in each of the
dozen tools that take a ref cost up to 1,100 tokens a call and changed the prompt's prefix at
every step, so local servers could not reuse their cache). The constrained-output schema keeps
the refs as an enum while they are few: that schema becomes a grammar, not prompt tokens.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jsonschema
from pydantic import ValidationError

from waymark.host.agent import prompts
from waymark.host.agent.guards.before_dispatch import scroll_directions
from waymark.host.core.actions import (
    ACT_TOOL,
    ACTION_TYPES,
    BROWSER_ACTIONS,
    DIALOG_ACTIONS,
    ELEMENT_ACTIONS,
    Check,
    Decision,
    action_adapter,
    decision_json_schema,
)
from waymark.host.core.phases import timed
from waymark.host.core.snapshot import Snapshot
from waymark.providers.base import Tool

#: Most refs listed as an enum in the constrained-output schema (once per action variant that
#: takes a ref); beyond this the grammar grows more than the constraint is worth.
ENUM_LIMIT = 50


class DecisionRejected(ValueError):
    """A parsed decision that does not fit the grammar or the snapshot; `kind` says how."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _untitled(schema: Any) -> Any:
    """The schema without pydantic's `title` annotations: tokens the model does not need."""
    if isinstance(schema, dict):
        return {k: _untitled(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_untitled(v) for v in schema]
    return schema


@lru_cache(maxsize=1)
def _action_schemas() -> dict[str, dict[str, Any]]:
    """Per action type: (description, parameters schema without `type`)."""
    schema = action_adapter.json_schema()
    defs = schema.get("$defs", {})
    out: dict[str, dict[str, Any]] = {}
    for entry in schema["oneOf"]:
        sub = defs[entry["$ref"].split("/")[-1]]
        kind = sub["properties"]["type"]["const"] if "const" in sub["properties"]["type"] else sub["properties"]["type"]["default"]
        props = {k: _untitled(v) for k, v in sub["properties"].items() if k != "type"}
        out[kind] = {
            "description": sub.get("description", ""),
            "parameters": {
                "type": "object",
                "properties": props,
                "required": [r for r in sub.get("required", []) if r != "type"],
                "additionalProperties": False,
            },
        }
    return out


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(decision_json_schema())


def snapshot_refs(snapshot: Snapshot) -> list[int]:
    return [e.ref for e in snapshot.elements]


@lru_cache(maxsize=8)
def _tools(allowed: tuple[str, ...]) -> tuple[Tool, ...]:
    # Every property cut to its type and choices: bounds are checked on the reply, and each
    # action's own fields are said once, in the description, as in the text-mode format.
    props: dict[str, Any] = {"action": {"type": "string", "enum": list(allowed)}, "thought": {"type": "string"}}
    for kind, spec in _action_schemas().items():
        if kind in allowed:
            for name, sub in spec["parameters"]["properties"].items():
                props.setdefault(name, _plain(sub))
    description = ("Do one browser action. `action` names it; give only that action's fields (? = optional): "
                   + prompts.action_signatures(allowed)
                   + ". key: Enter, Escape, Control+A...; done: result is the answer for the user, success false if impossible, "
                   "data the answer as JSON when the task asks for one.")
    return (Tool(name=ACT_TOOL, description=description,
                 parameters={"type": "object", "properties": props, "required": ["action"]}),)


@timed("prompt")
def executor_tools(allowed: tuple[str, ...] = ACTION_TYPES) -> list[Tool]:
    """The tools of one executor turn: one `act` tool whose `action` argument is any allowed
    action type, the same for every snapshot (a copy: a provider's SDK may change the schema it
    is given). One tool per action type cost 1,561 tokens a call for 19 actions, and at least
    974 with empty descriptions: the wrapper every tool carries is most of it."""
    return [t.model_copy(deep=True) for t in _tools(tuple(allowed))]


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """A property's schema cut to what every grammar-constrained server understands: one type
    (the non-null branch of an optional field) and an enum, no bounds, no nesting."""
    if "anyOf" in schema:
        schema = next((s for s in schema["anyOf"] if s.get("type") != "null"), {})
    if "const" in schema:
        return {"type": "string", "enum": [schema["const"]]}
    plain = {k: v for k, v in schema.items() if k in ("type", "enum")}
    return plain if plain.get("type") != "object" else {"type": "object"}


def offered_on(snapshot: Snapshot, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The actions of `allowed` this page can take: none on an element when it lists none (a ref
    offered there could only be one of another page); while a JavaScript dialog is open, only its
    answer among the browser's actions (the page does nothing else until then), and never otherwise."""
    if snapshot.dialog is not None:
        return tuple(a for a in allowed if a in DIALOG_ACTIONS or a not in BROWSER_ACTIONS)
    return tuple(a for a in allowed if a not in DIALOG_ACTIONS and (snapshot.elements or a not in ELEMENT_ACTIONS))


def constrained_decision_schema(snapshot: Snapshot, allowed: tuple[str, ...] = ACTION_TYPES,
                                data_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The decision for servers that constrain text to a JSON Schema (llama.cpp, vLLM, LM
    Studio, Ollama): `action` is any of one plain object per action type, with its own required
    fields, and refs limited to the snapshot while they are few. The grammar's own schema (a
    oneOf over $defs with consts and nullable fields) made llama.cpp's grammar converter fail
    and its server exit; one flat object for all actions let a model leave out the ref. With a
    `data_schema` (host.agent.answers.constrained of the output schema), `done` must carry data of that shape."""
    refs = snapshot_refs(snapshot)
    ref = {"type": "integer", "enum": refs} if refs and len(refs) <= ENUM_LIMIT else {"type": "integer"}
    variants = []
    offered = offered_on(snapshot, allowed)
    for kind, spec in _action_schemas().items():
        if kind not in offered:
            continue
        props: dict[str, Any] = {"type": {"type": "string", "enum": [kind]}}
        for name, sub in spec["parameters"]["properties"].items():
            if name == "ref" and not refs:
                continue  # scroll and press work without one
            props[name] = ref if name == "ref" else _plain(sub)
        required = ["type", *spec["parameters"]["required"]]
        if kind == "done":
            # Asked for no answer, done has no data: an empty schema is one more thing a grammar converter must take.
            props.pop("data", None)
            if data_schema is not None:
                props["data"] = data_schema
                required.append("data")
        if kind == "scroll":
            variants += _scroll_variants(props, required, snapshot)
            continue
        variants.append({"type": "object", "properties": props, "required": required, "additionalProperties": False})
    return {"type": "object", "properties": {"thought": {"type": "string"}, "action": {"anyOf": variants}}, "required": ["thought", "action"]}


def _scroll_variants(props: dict[str, Any], required: list[str], snapshot: Snapshot) -> list[dict[str, Any]]:
    """Scroll as the page allows it: a list by a ref in any direction, the page itself only the
    ways it can still move (a scroll towards an end already reached moves nothing)."""
    out = []
    if "ref" in props:
        out.append({"type": "object", "properties": props, "required": [*required, "ref"], "additionalProperties": False})
    movable = scroll_directions(snapshot)
    if movable != ():
        page = {k: v for k, v in props.items() if k != "ref"}
        if movable:
            page["direction"] = {"type": "string", "enum": list(movable)}
        out.append({"type": "object", "properties": page, "required": required, "additionalProperties": False})
    return out


@timed("validate")
def validate_decision(decision: dict[str, Any], snapshot: Snapshot, coercions: list[str] | None = None) -> Decision:
    """The decision as a typed Decision, after the JSON Schema and the snapshot's refs agree.

    Raises DecisionRejected with kind `shape` (not the grammar) or `unknown_ref` (a ref this
    snapshot does not have); what the page says of the action is for the guards (host.agent.guards).
    """
    errors = sorted(_validator().iter_errors(decision), key=lambda e: len(list(e.path)))
    if errors:
        raise DecisionRejected("shape", f"the decision does not fit the action grammar: {errors[0].message[:300]}")
    try:
        typed = Decision.model_validate(decision)
    except ValidationError as exc:
        raise DecisionRejected("shape", f"the decision does not fit the action grammar: {exc.errors()[0]['msg']}") from None
    to_ref = getattr(typed.action, "to_ref", None)
    if to_ref is not None and snapshot.find(to_ref) is None:
        raise DecisionRejected("unknown_ref", f"to_ref {to_ref} is not in the current snapshot; drop onto one of the [numbers] listed there, or drag by dx/dy")
    ref = getattr(typed.action, "ref", None)
    if ref is None:
        return typed
    element = snapshot.find(ref)
    if element is None:
        if not snapshot.elements:
            raise DecisionRejected("unknown_ref", f"this page lists no element to act on (ref {ref} is not one): go back, "
                                                  "open another page, scroll, or answer done")
        raise DecisionRejected("unknown_ref", f"ref {ref} is not in the current snapshot; use one of the [numbers] listed there")
    if typed.action.type == "select" and element.role in _TOGGLES:
        # A select on a radio or a checkbox can only mean ticking it.
        typed = Decision(thought=typed.thought, action=Check(ref=element.ref))
        if coercions is not None:
            coercions.append(f"select on a {element.role} -> check")
    return typed


#: Roles a `select` on means ticking them.
_TOGGLES = frozenset({"radio", "checkbox", "switch", "menuitemradio", "menuitemcheckbox"})
