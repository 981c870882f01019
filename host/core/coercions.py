"""Lenient in what it accepts: the documented near-miss answers that are clearly meant one way,
turned into the grammar before it is checked. Each coercion returns the names of what it did, so
the trace can count them; anything not listed here is still rejected, with feedback.

Decisions (executor answers):

- ``ref_string``     ``"ref": "3"`` or ``"ref": "[3]"`` is ref 3
- ``ref_list``       ``"ref": [4]`` is ref 4 (one ref only)
- ``done_bool``      ``done`` with ``"result": true`` or ``false`` (a JSON boolean, not text) is
                     ``success: true`` (false); a ``success`` given beside it wins. The text
                     ``"false"`` is kept as written: it is the answer to a yes/no question
- ``action_alias``   an action type with an obvious name (``goto``, ``input_text``, ``finish``,
                     ``scroll_down`` ...) is renamed to the grammar's one
- ``action_shape``   ``{"action": "click", "ref": 3}`` and ``{"action": {"click": {"ref": 3}}}``
                     are ``{"action": {"type": "click", "ref": 3}}``
- ``data_json``      ``done`` whose ``data`` is a string holding a JSON object or array is given
                     that object or array

Predicate lists (plan checks and success criteria):

- ``predicate_object``  a single predicate object where a list belongs, or one object holding
                        several predicates, is the list of them
- ``predicate_pair``    ``["title_contains", "Trail"]`` is ``{"title_contains": "Trail"}``
- ``predicate_extra``   keys beside one predicate that name no predicate are dropped:
                        ``{"exists": {...}, "value": "dark"}`` is ``{"exists": {...}}``
- ``predicate_target``  a target written without its ``target`` wrapper is put in one:
                        ``{"count_at_least": {"role": "link", "name_contains": "Trail"}}`` is
                        ``{"count_at_least": {"target": {"role": "link", "name_contains": "Trail"}, "n": 1}}``
                        (at least one when no ``n`` is given); so for ``value_equals`` and ``checked``
- ``value_bool``        ``value_equals`` with ``true`` or ``false`` is the ``checked`` check it means
- ``valueless_check``   ``value_equals`` on a button or a link, which hold no value, can never hold:
                        it is dropped

Text-level repairs (comments, fences, trailing commas) belong to the parser.
"""

from __future__ import annotations

import json
import re
from typing import Any, Collection

from waymark.host.core.actions import ACTION_TYPES
from waymark.host.core.predicates import TARGETED_PREDICATES
from waymark.host.core.targets import Target

#: Names models give actions, mapped to the grammar's action types.
ACTION_ALIASES: dict[str, str] = {
    "goto": "navigate", "go_to": "navigate", "open_url": "navigate", "visit": "navigate", "go_to_url": "navigate",
    "navigate_to": "navigate", "open": "navigate",
    "input": "fill", "input_text": "fill", "type_text": "fill", "enter_text": "fill", "set_value": "fill", "fill_in": "fill",
    "tap": "click", "click_element": "click", "press_button": "click", "click_button": "click", "click_link": "click",
    "finish": "done", "complete": "done", "answer": "done", "stop": "done", "end": "done", "task_complete": "done",
    "ask": "ask_user", "ask_human": "ask_user",
    "select_option": "select", "choose": "select", "choose_option": "select",
    "go_back": "back", "refresh": "reload", "press_key": "press", "keypress": "press",
    "scroll_down": "scroll", "scroll_up": "scroll", "tick": "check", "untick": "uncheck",
    "open_tab": "new_tab", "close": "close_tab",
    "drag_and_drop": "drag", "drag_drop": "drag", "context_click": "right_click", "rightclick": "right_click",
}
#: Aliases that also say which way to scroll.
_SCROLL_DIRECTION = {"scroll_down": "down", "scroll_up": "up"}
#: Aliases that need a field to be meant one way (`open` without a URL is not a navigation).
_ALIAS_NEEDS = {"open": "url", "close": "tab_id"}

_REF_TEXT = re.compile(r"^\s*\[?\s*(\d{1,9})\s*\]?\s*$")


def _ref(value: Any) -> tuple[Any, str | None]:
    if isinstance(value, str):
        m = _REF_TEXT.match(value)
        return (int(m.group(1)), "ref_string") if m else (value, None)
    if isinstance(value, list) and len(value) == 1 and not isinstance(value[0], (list, dict)):
        inner, _ = _ref(value[0])
        return (inner, "ref_list") if isinstance(inner, int) and not isinstance(inner, bool) else (value, None)
    return value, None


def _action_object(obj: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The decision with its action as an object `{"type": ..., fields}`, whatever shape it came in."""
    action = obj.get("action")
    if isinstance(action, str):
        fields = {k: v for k, v in obj.items() if k not in ("action", "thought")}
        notes.append("action_shape")
        out: dict[str, Any] = {"action": {"type": action, **fields}}
        if "thought" in obj:
            out["thought"] = obj["thought"]
        return out
    if isinstance(action, dict) and "type" not in action and len(action) == 1:
        (name, fields), = action.items()
        if isinstance(fields, dict) and (name in ACTION_TYPES or name in ACTION_ALIASES):
            notes.append("action_shape")
            return {**obj, "action": {"type": name, **fields}}
    return obj


def coerce_decision(obj: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The decision with every documented near-miss turned into the grammar, and the names of
    the coercions applied (empty when the answer already fit)."""
    notes: list[str] = []
    obj = _action_object(obj, notes)
    action = obj.get("action")
    if not isinstance(action, dict):
        return obj, notes
    action = dict(action)
    kind = action.get("type")
    if isinstance(kind, str) and kind not in ACTION_TYPES:
        alias = ACTION_ALIASES.get(kind.strip().lower())
        needs = _ALIAS_NEEDS.get(kind.strip().lower())
        if alias is not None and (needs is None or needs in action):
            if kind in _SCROLL_DIRECTION:
                action.setdefault("direction", _SCROLL_DIRECTION[kind])
            action["type"] = kind = alias
            notes.append("action_alias")
    if "ref" in action:
        action["ref"], note = _ref(action["ref"])
        if note:
            notes.append(note)
    result = action.get("result")
    if kind == "done" and isinstance(result, bool):
        action.pop("result")
        action.setdefault("success", result)
        notes.append("done_bool")
    data = action.get("data")
    if kind == "done" and isinstance(data, str) and data.strip()[:1] in ("{", "["):
        try:
            action["data"] = json.loads(data)
            notes.append("data_json")
        except ValueError:
            pass  # the schema's validator says what is wrong with it
    return {**obj, "action": action}, notes


def coerce_predicates(value: Any, names: Collection[str]) -> tuple[Any, list[str]]:
    """A predicate list (`verify`, `success_criteria`) with single objects, multi-key objects,
    `[name, value]` pairs and stray keys beside a predicate turned into one-key objects; anything
    else is left for the validator."""
    notes: list[str] = []
    if isinstance(value, dict):
        value = [value]
        notes.append("predicate_object")
    elif isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and value[0] in names:
        value = [value]  # one bare pair, not a list of them
    if not isinstance(value, list):
        return value, notes
    out: list[Any] = []
    for item in value:
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and item[0] in names:
            out.append({item[0]: item[1]})
            notes.append("predicate_pair")
        elif isinstance(item, dict) and len(item) > 1 and all(k in names for k in item):
            out.extend({k: v} for k, v in item.items())
            notes.append("predicate_object")
        elif isinstance(item, dict) and len(item) > 1 and sum(k in names for k in item) == 1:
            out.append({k: v for k, v in item.items() if k in names})
            notes.append("predicate_extra")
        else:
            out.append(item)
    meant = [_checked_meant(_wrapped_target(item, notes), notes) for item in out]
    kept = [item for item in meant if not _valueless(item)]
    notes.extend(["valueless_check"] * (len(meant) - len(kept)))
    return kept, notes


#: Roles whose elements hold no value a `value_equals` could read.
_VALUELESS_ROLES = frozenset({"button", "link"})


def _valueless(item: Any) -> bool:
    """`valueless_check`: a `value_equals` whose target is a button or a link."""
    arg = item.get("value_equals") if isinstance(item, dict) and len(item) == 1 else None
    target = arg.get("target") if isinstance(arg, dict) else None
    return isinstance(target, dict) and target.get("role") in _VALUELESS_ROLES


def _checked_meant(item: Any, notes: list[str]) -> Any:
    """`value_bool`: a `value_equals` whose value is true or false checks a box's state."""
    arg = item.get("value_equals") if isinstance(item, dict) and len(item) == 1 else None
    if not isinstance(arg, dict) or not isinstance(arg.get("value"), bool):
        return item
    notes.append("value_bool")
    return {"checked": arg}




def _wrapped_target(item: Any, notes: list[str]) -> Any:
    """`predicate_target`: the fields of a target given beside `n` or `value` go in a `target`."""
    if not (isinstance(item, dict) and len(item) == 1):
        return item
    (name, arg), = item.items()
    if name not in TARGETED_PREDICATES or not isinstance(arg, dict) or "target" in arg or not set(arg) & set(Target.model_fields):
        return item
    wrapped = {"target": {k: v for k, v in arg.items() if k in Target.model_fields},
               **{k: v for k, v in arg.items() if k not in Target.model_fields}}
    if name == "count_at_least":
        wrapped.setdefault("n", 1)
    notes.append("predicate_target")
    return {name: wrapped}
