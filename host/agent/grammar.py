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
from waymark.host.core.actions import (
    ACT_TOOL,
    ACTION_TYPES,
    ELEMENT_ACTIONS,
    Check,
    Decision,
    action_adapter,
    decision_json_schema,
)
from waymark.host.core.phases import timed
from waymark.host.core.snapshot import Snapshot, SnapshotElement, box_inside
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
    """The actions of `allowed` this page can take: none on an element when it lists none (on
    an empty page a small model answered with refs of the page before, nine turns in a row)."""
    return allowed if snapshot.elements else tuple(a for a in allowed if a not in ELEMENT_ACTIONS)


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
    ways it can still move (a small model asked to scroll a page that fits nine times for one step)."""
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

    Raises DecisionRejected with kind `shape` (not the grammar), `unknown_ref` (a ref this
    snapshot does not have), `not_a_control` (a click on a dialog or landmark, not a control) or
    `already_done` (a fill or check that would change nothing).
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
        at_edge = _page_at_edge(typed.action, snapshot)
        if at_edge:
            raise DecisionRejected("already_done", at_edge)
        if _enter_into_nothing(typed.action, snapshot):
            # Told only "answer done if the page shows the task complete", the real model went back,
            # then asked the user; told the page's title, it answered done.
            title = " ".join(snapshot.title.split())[:80].replace('"', "'")
            raise DecisionRejected("no_element", f'this page lists no control, so Enter reaches nothing. The page is "{title}": '
                                                 "if that is what the task asked for, answer done with success true")
        return typed
    element = snapshot.find(ref)
    if element is None:
        if not snapshot.elements:
            raise DecisionRejected("unknown_ref", f"this page lists no element to act on (ref {ref} is not one): go back, "
                                                  "open another page, scroll, or answer done")
        raise DecisionRejected("unknown_ref", f"ref {ref} is not in the current snapshot; use one of the [numbers] listed there")
    if typed.action.type == "select" and element.role in _TOGGLES:
        # "select the 4 stars radio" means ticking it: a small model wrote it five times in a run.
        typed = Decision(thought=typed.thought, action=Check(ref=element.ref))
        if coercions is not None:
            coercions.append(f"select on a {element.role} -> check")
    if typed.action.type in POINTER_PRESSES and (element.role in CONTAINER_ROLES or (_is_backdrop(element) and _controls_over(element, snapshot))):
        raise DecisionRejected("not_a_control", _not_a_control(element, snapshot))
    unchanged = _already_so(typed.action, element)
    if unchanged:
        raise DecisionRejected("already_done", unchanged)
    return typed


def _already_so(action: Any, element: SnapshotElement) -> str | None:
    """Why an action would change nothing the page shows: the field already holds its text, the
    box is already in its state. A small model filled the same username six times in a row and
    never went on to the password."""
    if action.type == "fill" and element.value is not None and element.value == action.text and "{{" not in action.text:
        return already_done(element, f'already holds "{action.text}"')
    if action.type == "check" and element.states.get("checked") is True:
        return already_done(element, "is already checked")
    if action.type == "uncheck" and element.states.get("checked") is False:
        return already_done(element, "is already unchecked")
    if action.type == "click" and element.role in _TEXT_FIELDS and element.states.get("focused"):
        # A small model clicked a focused search box three times for "enter the name in the search box".
        return f'[{element.ref}] {element.role} "{element.name}" is already focused and a click changes nothing; to type into it, use fill with its ref'
    return None


#: Fields a click only focuses: typing into them is fill.
_TEXT_FIELDS = frozenset({"textbox", "searchbox"})


def scroll_directions(snapshot: Snapshot) -> tuple[str, ...] | None:
    """The directions the page can still scroll (None for a snapshot without the page's size, an error page)."""
    vp = snapshot.viewport
    try:
        at_edge = {"down": float(vp["scroll_y"]) + float(vp["height"]) >= float(vp["page_height"]) - 1,
                   "up": float(vp["scroll_y"]) <= 0,
                   "right": float(vp["scroll_x"]) + float(vp["width"]) >= float(vp["page_width"]) - 1,
                   "left": float(vp["scroll_x"]) <= 0}
    except (KeyError, TypeError, ValueError):
        return None
    return tuple(d for d, edge in at_edge.items() if not edge)


def _page_at_edge(action: Any, snapshot: Snapshot) -> str | None:
    """Why scrolling the page would show nothing new: it is already at that end. A small model
    scrolled down six times in a row at the foot of a page whose elements were all listed."""
    movable = scroll_directions(snapshot) if action.type == "scroll" else None
    if movable is None or action.direction in movable:
        return None
    return (f"the page is already scrolled to its {'end' if action.direction in ('down', 'right') else 'start'} and the snapshot lists "
            "every element of it; act on one of them by its ref (a ref inside a list scrolls that list), or answer done")


def _enter_into_nothing(action: Any, snapshot: Snapshot) -> bool:
    """Whether the action is Enter on a page that lists no element, where no control can have the
    focus to take it. On an order confirmation with nothing to click, the real model pressed Enter
    to "place the order" instead of answering done. Other keys may still drive a page without
    controls (a game's arrows, Space to scroll), so only Enter is refused."""
    return action.type == "press" and action.key.casefold() in {"enter", "return"} and not snapshot.elements


def already_done(element: SnapshotElement, state: str) -> str:
    """What the model is told when its action would change nothing: the element, its state, and to move on."""
    return f'[{element.ref}] {element.role} "{element.name}" {state}; go on with the next part of the task'


#: Roles that hold controls without being one (WAI-ARIA's landmark and window roles): a press on
#: one lands on whatever sits at its centre. A small model clicked a cookie dialog to "close" it.
CONTAINER_ROLES = frozenset({"dialog", "alertdialog", "main", "region", "navigation", "banner", "contentinfo",
                             "complementary", "form", "document"})
#: Roles a `select` on means ticking them.
_TOGGLES = frozenset({"radio", "checkbox", "switch", "menuitemradio", "menuitemcheckbox"})
#: The actions that press on an element's centre.
POINTER_PRESSES = frozenset({"click", "double_click"})
#: Most controls named in the rejection of a press on a container.
_INSIDE_LISTED = 8


def _is_backdrop(element: SnapshotElement) -> bool:
    """An unnamed layer laid over other elements: a modal's backdrop. The real model clicked the
    backdrop of an "Added to your cart" drawer twice, which closed nothing, with the drawer's
    "No thanks" listed beside it."""
    return element.role == "generic" and not element.name and bool(element.states.get("occluding"))


def _controls_over(layer: SnapshotElement, snapshot: Snapshot) -> list[SnapshotElement]:
    """The controls within `layer`'s box in its frame: inside a container, or over a backdrop."""
    return [e for e in snapshot.elements
            if e.ref != layer.ref and e.frame == layer.frame and e.role not in CONTAINER_ROLES and not _is_backdrop(e)
            and box_inside(e.bbox, layer.bbox)]


def _not_a_control(layer: SnapshotElement, snapshot: Snapshot) -> str:
    """Why a press on a container or a backdrop is refused, naming the controls to choose from.
    A backdrop is refused only where controls lie over it: with none, pressing it may be the one
    way to close what it belongs to."""
    inside = _controls_over(layer, snapshot)
    if _is_backdrop(layer):
        said = f"[{layer.ref}] is an unnamed layer over the page (a backdrop), not a control"
    else:
        said = f'[{layer.ref}] is a {layer.role} "{layer.name}", which holds controls but is not one'
    if not inside:
        return said + "; act on a control (a button, link or field) by its own ref"
    listed = ", ".join(f'[{e.ref}] {e.role} "{e.name}"' for e in inside[:_INSIDE_LISTED])
    return f"{said}; act on one of the controls {'over' if _is_backdrop(layer) else 'inside'} it: {listed}"
