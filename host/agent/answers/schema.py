"""The output schema of an answer: checking it, validating `data` against it (JSON Schema Draft
2020-12, formats checked), walking `data` with it to say which values are required and which
are computed (`"x-waymark-computed": true`: a sum or a count the page need not show), and the
plain form of it a grammar-constrained server can compile.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Iterator

import jsonschema
from jsonschema.exceptions import best_match

#: The annotation that exempts a value (and everything inside it) from grounding.
COMPUTED = "x-waymark-computed"
#: The most characters of the validator's message the model and the summary are given.
MESSAGE_CHARS = 400


class SchemaProblem(ValueError):
    """An output schema that is not a valid JSON Schema (Draft 2020-12); the message says where."""


def check_schema(schema: Any) -> dict[str, Any]:
    """The schema, if it is a valid Draft 2020-12 JSON Schema object; raises SchemaProblem otherwise."""
    if not isinstance(schema, dict):
        raise SchemaProblem("the output schema must be a JSON object (a JSON Schema)")
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "the top level"
        raise SchemaProblem(f"the output schema is not a valid JSON Schema (at {where}): {exc.message}"[:MESSAGE_CHARS]) from None
    return schema


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def validation_error(data: Any, schema: dict[str, Any]) -> str | None:
    """Why `data` does not validate against `schema` (the most relevant error, with its JSON path), or None when it does."""
    error = best_match(_validator(schema).iter_errors(data))
    if error is None:
        return None
    where = path_of(list(error.absolute_path))
    return f"{where}: {error.message}"[:MESSAGE_CHARS]


def path_of(parts: list[Any]) -> str:
    """A JSON path (`$.orders[0].total`, `$["unit price"]`) from the keys and indexes leading to a value."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(part)):
            out += f".{part}"
        else:
            out += '["' + str(part).replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return out


@dataclass(frozen=True)
class Leaf:
    """One string or number of an answer and what its schema says of it."""

    path: str
    value: str | int | float
    #: Every object on the way down lists its key as required (an array's items count as its own).
    required: bool
    computed: bool
    #: The keys and indexes leading to it (`path` spelled as a list).
    parts: tuple[str | int, ...] = ()


def leaves(data: Any, schema: dict[str, Any] | None) -> Iterator[Leaf]:
    """Every string and number of `data`, with its path, whether the schema requires it and
    whether it is declared computed. Without a schema every value is required: the answer claims it."""
    yield from _walk(data, schema, schema or {}, [], True, False)


def _walk(data: Any, sub: Any, root: dict[str, Any], parts: list[Any], required: bool, computed: bool) -> Iterator[Leaf]:
    sub = _resolved(sub, root, data) if isinstance(sub, dict) else ({} if sub is None or sub is True else None)
    no_schema = not root
    computed = computed or bool(isinstance(sub, dict) and sub.get(COMPUTED) is True)
    if isinstance(data, dict):
        needed = set(sub.get("required", [])) if isinstance(sub, dict) else set()
        for key, item in data.items():
            yield from _walk(item, _property(sub, key), root, [*parts, key], required and (no_schema or key in needed), computed)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from _walk(item, _item(sub, i), root, [*parts, i], required, computed)
    elif isinstance(data, (str, int, float)) and not isinstance(data, bool):
        if isinstance(data, str) and not data.strip():
            return  # an empty string claims nothing the page could show
        yield Leaf(path_of(parts), data, required, computed, tuple(parts))


def _property(sub: dict[str, Any] | None, key: str) -> Any:
    if not isinstance(sub, dict):
        return None
    if key in sub.get("properties", {}):
        return sub["properties"][key]
    for pattern, schema in sub.get("patternProperties", {}).items():
        if re.search(pattern, key):
            return schema
    return sub.get("additionalProperties")


def _item(sub: dict[str, Any] | None, index: int) -> Any:
    if not isinstance(sub, dict):
        return None
    prefix = sub.get("prefixItems", [])
    return prefix[index] if index < len(prefix) else sub.get("items")


def _resolved(sub: dict[str, Any], root: dict[str, Any], data: Any, depth: int = 0) -> dict[str, Any]:
    """The subschema with local `$ref`s followed, `allOf` merged in, and of `anyOf`/`oneOf` the
    first branch `data` validates against (its properties, required keys and annotations)."""
    if depth > 16:
        return sub
    out = {k: v for k, v in sub.items() if k not in ("$ref", "allOf", "anyOf", "oneOf")}
    parts: list[dict[str, Any]] = []
    ref = sub.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        target = _pointer(root, ref[1:])
        if isinstance(target, dict):
            parts.append(target)
    parts += [p for p in sub.get("allOf", []) if isinstance(p, dict)]
    for key in ("anyOf", "oneOf"):
        branches = [b for b in sub.get(key, []) if isinstance(b, dict)]
        chosen = next((b for b in branches if _validator({**b, "$defs": root.get("$defs", {})}).is_valid(data)), None)
        if chosen is not None:
            parts.append(chosen)
    for part in parts:
        part = _resolved(part, root, data, depth + 1)
        for key, value in part.items():
            if key == "properties":
                out["properties"] = {**value, **out.get("properties", {})}
            elif key == "required":
                out["required"] = sorted({*value, *out.get("required", [])})
            else:
                out.setdefault(key, value)
    return out


def _pointer(root: dict[str, Any], pointer: str) -> Any:
    node: Any = root
    for token in [t for t in pointer.split("/") if t]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


#: Keywords every grammar-constrained server compiles (llama.cpp's converter, vLLM, Ollama); the
#: rest (bounds, patterns, formats, annotations, our own `x-` keys) is left out of the constraint
#: and checked by validation instead, as the decision's own bounds are (host.agent.grammar).
_GRAMMAR_KEYWORDS = frozenset({"type", "properties", "required", "items", "enum", "anyOf", "additionalProperties", "minItems",
                               "maxItems"})
#: How deep local `$ref`s are inlined; a schema that refers to itself deeper than this is cut to "any value" there.
_REF_DEPTH = 8


def constrained(schema: dict[str, Any]) -> dict[str, Any]:
    """The output schema as a grammar-constrained server is given it, inside the decision's own
    schema: local `$ref`s inlined (a `#/$defs/...` would point into the decision, not the answer),
    `const` as a one-value enum, `oneOf` as `anyOf`, and only the structural keywords (llama.cpp's
    converter made its server exit on a schema it could not compile)."""
    def plain(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [plain(n, depth) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            target = _pointer(schema, ref[1:])
            if depth >= _REF_DEPTH or not isinstance(target, dict):
                return {}
            return plain({**target, **{k: v for k, v in node.items() if k != "$ref"}}, depth + 1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "const":
                out["enum"] = [value]
            elif key == "oneOf":
                out["anyOf"] = plain(value, depth)
            elif key == "properties" and isinstance(value, dict):
                out[key] = {name: plain(sub, depth) for name, sub in value.items()}
            elif key in _GRAMMAR_KEYWORDS:
                out[key] = plain(value, depth)
        return out
    return plain(copy.deepcopy(schema), 0)  # type: ignore[no-any-return]
