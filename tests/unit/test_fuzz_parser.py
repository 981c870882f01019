"""Fuzzing the JSON-in-text decision parser: whatever a model (or a page quoted by a model)
produces, `parse_decision` returns a Decision or raises ParseFailure — nothing else — and it
finishes on huge adversarial inputs. How its cost grows with size is measured by
tests/reliability/parser_scaling.py (a measurement, not an assertion)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reliability.parser_scaling import SHAPES
from waymark.host.agent.parsing import (
    ParseFailure,
    decision_from_tool_call,
    parse_decision,
)

KINDS = {"no_json", "truncated", "malformed", "multi_root", "shape"}

VALID = [
    {"thought": "add it", "action": {"type": "click", "ref": 3}},
    {"action": {"type": "fill", "ref": 12, "text": "ada \"lovelace\" {x}"}},
    {"action": {"type": "press", "key": "}"}},
    {"thought": "[12] button \"Pay\"", "action": {"type": "done", "result": "ok", "success": True}},
    {"action": {"type": "navigate", "url": "http://127.0.0.1/a?b=[1]"}},
]

_alphabet = list('{}[]",:\\ \n\t`\'0123456789abcdefnrtu-.') + ["\u202e", "\u200b", "\ud7ff", "\U0001f600", "\x00"]


def _outcome(text: str) -> str:
    try:
        decision = parse_decision(text)
    except ParseFailure as failure:
        assert failure.kind in KINDS
        return failure.kind
    assert isinstance(decision, dict) and isinstance(decision["action"]["type"], str)
    return "ok"


@st.composite
def mutated_decisions(draw: st.DrawFn) -> str:
    """A valid decision, then up to 8 random edits: insert, delete, duplicate or cut."""
    text = json.dumps(draw(st.sampled_from(VALID)), ensure_ascii=draw(st.booleans()))
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        op = draw(st.sampled_from(["insert", "delete", "duplicate", "cut", "wrap"]))
        at = draw(st.integers(min_value=0, max_value=len(text)))
        if op == "insert":
            text = text[:at] + draw(st.sampled_from(_alphabet)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + 1 :]
        elif op == "duplicate":
            text = text[:at] + text[at:] + text[at:]
        elif op == "cut":
            text = text[:at]
        else:
            text = draw(st.text(max_size=30)) + text + draw(st.text(max_size=30))
    return text


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_decisions())
def test_any_edit_of_a_valid_decision_parses_or_raises_parse_failure(text: str) -> None:
    _outcome(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_alphabet), max_size=2_000))
def test_any_bracket_and_quote_soup_parses_or_raises_parse_failure(text: str) -> None:
    _outcome(text)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=64), st.one_of(st.none(), st.integers(), st.text(max_size=20), st.lists(st.integers(), max_size=3),
                                       st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=4)))
def test_any_tool_call_becomes_a_decision_or_a_parse_failure(name: str, arguments: object) -> None:
    try:
        decision_from_tool_call(name, arguments)  # type: ignore[arg-type]
    except ParseFailure as failure:
        assert failure.kind in KINDS


@pytest.mark.timeout(120)
@pytest.mark.parametrize("shape", [
    "open_braces", "nested_closed", "nested_arrays", "nested_unclosed", "escaped_quotes", "prose_braces", "many_roots",
])
def test_a_200k_character_adversarial_input_completes_with_parse_failure(shape: str) -> None:
    assert _outcome(SHAPES[shape](200_000)) in KINDS


@pytest.mark.timeout(120)
def test_200k_nested_brackets_of_every_kind_complete_with_parse_failure() -> None:
    n = 200_000
    for text in ("{" * n + "}" * n, "[" * n + "]" * n, '{"a":[' * (n // 2) + "]}" * (n // 2), "{" * n + '"action"', "[{" * n):
        assert _outcome(text) in KINDS


def test_a_decision_after_megabytes_of_prose_is_still_found() -> None:
    prose = "The page says [12] button \"Pay\" and more. " * 25_000
    assert _outcome(prose + json.dumps(VALID[0]) + prose) == "ok"
