"""The executor's grammar for one turn: one tool per action type whose `ref` can only name a ref
of the current snapshot, and the check every decision passes before it is dispatched.

While the snapshot is small the refs are an `enum` in the tool schema, so a provider with
constrained decoding cannot even produce a wrong one; above ENUM_LIMIT refs the schema says
"integer" and the same check runs on the reply instead.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

import jsonschema
from pydantic import ValidationError

from host.actions import ACTION_TYPES, Decision, action_adapter, decision_json_schema
from host.snapshot import Snapshot
from providers.base import Tool

#: Most refs listed as an enum in a tool schema. The list is repeated in every tool that takes
#: a ref (a dozen), so beyond this the tokens cost more than the constraint is worth.
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


def executor_tools(snapshot: Snapshot, allowed: tuple[str, ...] = ACTION_TYPES) -> list[Tool]:
    """The tools of one executor turn: one per action type, `ref` limited to this snapshot."""
    refs = snapshot_refs(snapshot)
    tools = []
    for kind, spec in _action_schemas().items():
        if kind not in allowed:
            continue
        params = copy.deepcopy(spec["parameters"])
        # No per-property descriptions: the system prompt says once what a ref and a thought are,
        # and repeated in every tool they cost about 500 tokens a call.
        params["properties"]["thought"] = {"type": "string"}
        ref = params["properties"].get("ref")
        if ref is not None:
            base: dict[str, Any] = {"type": "integer"}
            if refs and len(refs) <= ENUM_LIMIT:
                base["enum"] = refs
            # Optional refs (press, scroll, extract) stay optional.
            params["properties"]["ref"] = base if "ref" in params["required"] else {"anyOf": [base, {"type": "null"}], "default": None}
        tools.append(Tool(name=kind, description=spec["description"], parameters=params))
    return tools


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """A property's schema cut to what every grammar-constrained server understands: one type
    (the non-null branch of an optional field) and an enum, no bounds, no nesting."""
    if "anyOf" in schema:
        schema = next((s for s in schema["anyOf"] if s.get("type") != "null"), {})
    if "const" in schema:
        return {"type": "string", "enum": [schema["const"]]}
    plain = {k: v for k, v in schema.items() if k in ("type", "enum")}
    return plain if plain.get("type") != "object" else {"type": "object"}


def constrained_decision_schema(snapshot: Snapshot, allowed: tuple[str, ...] = ACTION_TYPES) -> dict[str, Any]:
    """The decision for servers that constrain text to a JSON Schema (llama.cpp, vLLM, LM
    Studio, Ollama): `action` is any of one plain object per action type, with its own required
    fields, and refs limited to the snapshot while they are few. The grammar's own schema (a
    oneOf over $defs with consts and nullable fields) made llama.cpp's grammar converter fail
    and its server exit; one flat object for all actions let a model leave out the ref."""
    refs = snapshot_refs(snapshot)
    ref = {"type": "integer", "enum": refs} if refs and len(refs) <= ENUM_LIMIT else {"type": "integer"}
    variants = []
    for kind, spec in _action_schemas().items():
        if kind not in allowed:
            continue
        props: dict[str, Any] = {"type": {"type": "string", "enum": [kind]}}
        for name, sub in spec["parameters"]["properties"].items():
            props[name] = ref if name == "ref" else _plain(sub)
        variants.append({"type": "object", "properties": props, "required": ["type", *spec["parameters"]["required"]],
                         "additionalProperties": False})
    return {"type": "object", "properties": {"thought": {"type": "string"}, "action": {"anyOf": variants}}, "required": ["thought", "action"]}


def validate_decision(decision: dict[str, Any], snapshot: Snapshot) -> Decision:
    """The decision as a typed Decision, after the JSON Schema and the snapshot's refs agree.

    Raises DecisionRejected with kind `shape` (not the grammar) or `unknown_ref` (a ref this
    snapshot does not have).
    """
    errors = sorted(_validator().iter_errors(decision), key=lambda e: len(list(e.path)))
    if errors:
        raise DecisionRejected("shape", f"the decision does not fit the action grammar: {errors[0].message[:300]}")
    try:
        typed = Decision.model_validate(decision)
    except ValidationError as exc:
        raise DecisionRejected("shape", f"the decision does not fit the action grammar: {exc.errors()[0]['msg']}") from None
    ref = getattr(typed.action, "ref", None)
    if ref is not None and snapshot.find(ref) is None:
        raise DecisionRejected("unknown_ref", f"ref {ref} is not in the current snapshot; use one of the [numbers] listed there")
    return typed
