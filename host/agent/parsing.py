"""The one hardened parser for model answers: JSON in text, and native tool calls, both
normalised to a Decision dict `{"thought"?: str, "action": {"type": ..., ...}}`.

Text is scanned once, string-aware, for balanced top-level `{...}` objects (so prose, code
fences and braces inside strings do not confuse it). Repair is bounded and explicit: trailing
commas, and a missing closing quote or brackets at the very end of the text. Anything else is
a `ParseFailure` whose `kind` names what went wrong, so the retry prompt can say it:

- no_json     no JSON object in the text at all
- truncated   the object starts but the text ends before it does (and repair could not finish it)
- malformed   something object-like is there but it is not JSON, even after repair
- multi_root  more than one JSON object: which one is the decision is ambiguous
- shape       valid JSON, but not a Decision for the action grammar

Near misses that are clearly meant one way are accepted (see host.core.coercions); each repair and
coercion applied is appended to the caller's `notes` list so the trace can count them:
`comments` (`//` and `/* */` removed), `trailing_comma`, `fenced` (the object sat in a code
fence), `truncated_tail` (closing brackets added), and the decision coercions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from waymark.host.core.actions import (
    ACT_TOOL,
    ACTION_TYPES,
    INSTEAD,
    Decision,
    action_adapter,
    action_help,
)
from waymark.host.core.coercions import ACTION_ALIASES, coerce_decision
from waymark.host.core.phases import timed
from waymark.providers.base import RAW_ARGUMENTS_KEY
from waymark.providers.textmode import strip_reasoning

FailureKind = Literal["no_json", "truncated", "malformed", "multi_root", "shape"]

#: A truncated object is completed only if at most this many brackets are missing.
MAX_REPAIR_CLOSERS = 3
#: After an unclosed `{` (often a stray brace in prose) the scan restarts at the next `{` at most this often.
MAX_RESTARTS = 16

_OUTSIDE = re.compile(r'["{}\[\]]')
_INSIDE = re.compile(r'["\\]')
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])', re.DOTALL)
_COMMENT = re.compile(r'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/', re.DOTALL)
_SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")
_CLOSER = {"{": "}", "[": "]"}
#: An unclosed object that starts like JSON (`{"`) is a truncated answer, not a brace in prose.
_JSON_START = re.compile(r'\{\s*"')


class ParseFailure(ValueError):
    """The model's answer is not a usable decision. `kind` is one of FailureKind."""

    def __init__(self, kind: FailureKind, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind: FailureKind = kind
        self.detail = detail


@dataclass
class _Tail:
    """An object that was still open when the text ended."""

    start: int
    stack: list[str]
    in_string: bool


@dataclass
class _Scan:
    roots: list[tuple[int, int]] = field(default_factory=list)
    tail: _Tail | None = None


def _scan(text: str) -> _Scan:
    """Find balanced top-level objects in one pass (plus a bounded number of restarts)."""
    out = _Scan()
    n = len(text)
    start = text.find("{")
    restarts = 0
    while start != -1:
        stack: list[str] = []
        pos = start
        in_string = False
        closed_at = -1
        while pos < n:
            if in_string:
                m = _INSIDE.search(text, pos)
                if m is None:
                    pos = n
                    break
                if m.group() == "\\":
                    pos = m.end() + 1
                    continue
                in_string = False
                pos = m.end()
                continue
            m = _OUTSIDE.search(text, pos)
            if m is None:
                pos = n
                break
            ch = m.group()
            pos = m.end()
            if ch == '"':
                in_string = True
            elif ch in "{[":
                stack.append(ch)
            else:
                # A mismatched closer ends the candidate; json.loads will call it malformed.
                if stack and _CLOSER[stack[-1]] == ch:
                    stack.pop()
                else:
                    stack.clear()
                if not stack:
                    closed_at = pos
                    break
        if closed_at != -1:
            out.roots.append((start, closed_at))
            start = text.find("{", closed_at)
            continue
        # The text ended inside this object. It may be a truncated answer, or a stray `{` in
        # prose swallowing the real object: look again from the next brace, a bounded number of times.
        if out.tail is None:
            out.tail = _Tail(start, stack, in_string)
        restarts += 1
        if restarts > MAX_RESTARTS:
            break
        start = text.find("{", start + 1)
    return out


def _strip_trailing_commas(fragment: str) -> str:
    return _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), fragment)


def _loads(fragment: str, notes: list[str] | None = None) -> Any:
    """json.loads, then without trailing commas, then without comments; raises ValueError (also
    for nesting too deep for the decoder: no decision is nested that deep)."""
    try:
        try:
            return json.loads(fragment)
        except ValueError:
            pass
        attempts = (("trailing_comma", _strip_trailing_commas(fragment)),
                    ("comments", _strip_trailing_commas(_COMMENT.sub(lambda m: m.group(1) or "", fragment))))
        for note, candidate in attempts:
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            if notes is not None:
                notes.append(note)
            return value
        raise ValueError("not JSON")
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _complete_tail(text: str, tail: _Tail, notes: list[str] | None = None) -> Any | None:
    """Close a truncated object if only a quote and a few brackets are missing at the very end."""
    if len(tail.stack) > MAX_REPAIR_CLOSERS:
        return None
    fragment = text[tail.start:].rstrip()
    if not tail.in_string and (not fragment or fragment[-1] not in '"}],'):
        return None  # cut inside a number, literal, key or after a colon: the value is unknown
    closing = ('"' if tail.in_string else "") + "".join(_CLOSER[c] for c in reversed(tail.stack))
    try:
        return _loads(fragment + closing, notes)
    except ValueError:
        return None


def extract_json(text: str, notes: list[str] | None = None) -> dict[str, Any]:
    """The one JSON object in `text` (prose and code fences around it allowed), after bounded
    repair. Raises ParseFailure (no_json, truncated, malformed, multi_root)."""
    return _extract(text, notes)[0]


def _extract(text: str, notes: list[str] | None = None) -> tuple[dict[str, Any], bool]:
    """The one object and whether it was completed from a truncated tail."""
    if not isinstance(text, str):
        raise ParseFailure("no_json", f"expected text, got {type(text).__name__}")
    # Reasoning written before the answer may hold braces of its own: it is not the answer.
    text = strip_reasoning(text)
    scan = _scan(text)
    tail = scan.tail
    roots = scan.roots
    if tail is not None and not _JSON_START.match(text, tail.start):
        tail = None  # a stray brace in prose, not the start of an answer
    elif tail is not None:
        # Objects found after the tail's opening brace are nested inside the truncated answer.
        roots = [r for r in roots if r[0] < tail.start]
    objects: list[dict[str, Any]] = []
    malformed = 0
    repairs: list[str] = []
    for start, end in roots:
        try:
            value = _loads(text[start:end], repairs)
        except ValueError:
            malformed += 1
            continue
        if isinstance(value, dict):
            objects.append(value)
    repaired = False
    if tail is not None:
        value = _complete_tail(text, tail, repairs)
        if isinstance(value, dict):
            objects.append(value)
            repaired = True
            repairs.append("truncated_tail")
        elif not objects:
            raise ParseFailure("truncated", "the JSON object is not complete: the text ends inside it")
    if len(objects) > 1:
        raise ParseFailure("multi_root", f"found {len(objects)} JSON objects; answer with exactly one")
    if objects:
        if notes is not None:
            notes.extend(repairs)
            if "```" in text:
                notes.append("fenced")
        return objects[0], repaired
    if malformed:
        raise ParseFailure("malformed", "there is an object but it is not valid JSON")
    raise ParseFailure("no_json", "no JSON object found in the answer")


def _shape_error(obj: dict[str, Any], exc: ValidationError) -> str:
    """What is wrong, said so the model can fix it: the action's fields and an example, or
    what to do instead of an action the grammar does not have. Values the model wrote (often
    copied from the page) are not echoed; an action name is, when it is a plain identifier."""
    action = obj.get("action")
    if not isinstance(action, dict):
        return 'the answer needs an "action" object, for example {"action": {"type": "click", "ref": 12}}'
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        named = f'"{kind}" is not an action' if isinstance(kind, str) and _SAFE_NAME.match(kind) else 'the action needs a "type"'
        instead = INSTEAD.get(kind) if isinstance(kind, str) else None
        return named + (f"; instead, {instead}" if instead else "") + f". The action types are: {', '.join(ACTION_TYPES)}"
    problems = []
    for err in exc.errors(include_input=False, include_url=False)[:4]:
        # The location is action.<type>.<field>: the model only needs the field.
        loc = [str(p) for p in err["loc"] if str(p) not in ("action", kind)]
        field = ".".join(loc)
        if err["type"] == "extra_forbidden":
            problems.append(f'"{field}" is not a field of {kind}')
        elif err["type"] == "missing":
            problems.append(f'"{field}" is missing')
        else:
            problems.append(f'"{field}": {err["msg"].lower()}' if field else err["msg"])
    return "; ".join(problems) + ". " + action_help(kind)


def _as_decision(obj: dict[str, Any], notes: list[str] | None = None) -> dict[str, Any]:
    """Shape gate: coerce the documented near misses, validate against the action grammar and
    return the normalised Decision dict. A bare action object (`{"type": "click", "ref": 3}`)
    is accepted as the decision's action."""
    bare = obj.get("type")
    if "action" not in obj and isinstance(bare, str) and (bare in ACTION_TYPES or bare in ACTION_ALIASES):
        action = dict(obj)
        thought = action.pop("thought", None)
        obj = {"action": action} if thought is None else {"thought": thought, "action": action}
    obj, coerced = coerce_decision(obj)
    try:
        decision = Decision.model_validate(obj)
    except ValidationError as exc:
        raise ParseFailure("shape", _shape_error(obj, exc)) from None
    except RecursionError:
        raise ParseFailure("shape", "nested too deeply") from None
    if notes is not None:
        notes.extend(coerced)
    return decision.model_dump(mode="json", exclude_none=True)


def parse_decision(text: str, notes: list[str] | None = None) -> dict[str, Any]:
    """The executor's Decision from a JSON-in-text answer. Raises only ParseFailure; the repairs
    and coercions it applied are appended to `notes`."""
    found: list[str] = []
    obj, repaired = _extract(text, found)
    try:
        decision = _as_decision(obj, found)
    except ParseFailure as failure:
        # A completed tail that still is not a decision was cut off, not mis-shaped.
        if repaired:
            raise ParseFailure("truncated", "the answer ends before the decision is complete") from None
        raise failure
    if notes is not None:
        notes.extend(found)
    return decision


@timed("parse")
def decision_from_tool_call(name: str, arguments: dict[str, Any] | str, notes: list[str] | None = None) -> dict[str, Any]:
    """The Decision for a native tool call: the `act` tool, whose `action` argument is the action
    type, or a tool named after the action type; the other arguments are the action's fields
    plus an optional "thought". Raises ParseFailure (malformed, shape); the coercions applied are
    appended to `notes`."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            raise ParseFailure("malformed", f"the arguments of tool {name!r} are not valid JSON") from None
    if isinstance(arguments, dict) and RAW_ARGUMENTS_KEY in arguments:
        raise ParseFailure("malformed", f"the arguments of tool {name!r} are not valid JSON")
    if not isinstance(arguments, dict):
        raise ParseFailure("shape", f"the arguments of tool {name!r} must be an object")
    fields = dict(arguments)
    if name == ACT_TOOL:
        name = fields.pop("action", None) or fields.pop("type", None)
        if not isinstance(name, str):
            raise ParseFailure("shape", f"the {ACT_TOOL} tool needs `action`, one of: {', '.join(ACTION_TYPES)}")
        fields = _own_fields(name, fields, notes)
    if name not in ACTION_TYPES and name not in ACTION_ALIASES:
        instead = INSTEAD.get(name)
        named = f"there is no tool {name!r}" if _SAFE_NAME.match(name) else "there is no such tool"
        raise ParseFailure("shape", named + (f"; instead, {instead}" if instead else "") + "; the tools are the action types")
    thought = fields.pop("thought", None)
    if fields.get("type", name) != name:
        raise ParseFailure("shape", f"tool {name!r} was called with type {fields['type']!r}")
    fields["type"] = name
    obj: dict[str, Any] = {"action": fields}
    if thought is not None:
        obj["thought"] = thought
    return _as_decision(obj, notes)


def _own_fields(kind: str, fields: dict[str, Any], notes: list[str] | None) -> dict[str, Any]:
    """The `act` tool's arguments without the empty fields of other actions: one flat schema
    for every action invites a model to fill every field, with null or "" where it means none."""
    own = _ACTION_FIELDS.get(kind)
    if own is None:
        return fields
    kept = {k: v for k, v in fields.items() if k in own or k == "thought" or v not in (None, "")}
    if len(kept) < len(fields) and notes is not None:
        notes.append("empty_fields")
    return kept


def _action_fields() -> dict[str, frozenset[str]]:
    """Per action type, the fields it takes (the `type` discriminator included)."""
    out: dict[str, frozenset[str]] = {}
    for sub in action_adapter.json_schema().get("$defs", {}).values():
        kind = sub.get("properties", {}).get("type", {})
        kind = kind.get("const", kind.get("default"))
        if isinstance(kind, str):
            out[kind] = frozenset(sub["properties"])
    return out


_ACTION_FIELDS = _action_fields()


_REMINDERS: dict[str, str] = {
    "no_json": "there was no JSON object in it",
    "truncated": "the JSON object was cut off before it ended; keep the thought short",
    "malformed": "the JSON was not valid (check quotes, commas and brackets)",
    "multi_root": "it contained more than one JSON object",
    "shape": "the JSON was not a valid decision",
}


def retry_reminder(failure: ParseFailure) -> str:
    """The message sent back to the model after a parse failure; it names the failure kind."""
    what = _REMINDERS.get(failure.kind, "it could not be used")
    detail = f" ({failure.detail})" if failure.kind == "shape" and failure.detail else ""
    return (
        f"Your previous answer could not be used [{failure.kind}]: {what}{detail}. "
        'Answer again with exactly one JSON object of the form {"thought": "...", "action": {"type": ..., ...}} '
        "using one of the allowed actions, and nothing else."
    )
