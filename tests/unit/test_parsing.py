"""The hardened JSON-in-text parser: what it repairs, what it refuses and how it names it."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waymark.host.agent.parsing import (
    ParseFailure,
    decision_from_tool_call,
    extract_json,
    parse_decision,
    retry_reminder,
)
from waymark.providers.base import RAW_ARGUMENTS_KEY

CLICK = {"action": {"type": "click", "ref": 3}}


def kind_of(text: str) -> str:
    with pytest.raises(ParseFailure) as failure:
        parse_decision(text)
    return failure.value.kind


# ------------------------------------------------------------------ accepted, with bounded repair


def test_plain_decision_is_parsed() -> None:
    assert parse_decision('{"thought": "add it", "action": {"type": "click", "ref": 3}}') == {"thought": "add it", **CLICK}


def test_prose_and_code_fences_around_the_object_are_ignored() -> None:
    text = 'Sure, here it is:\n```json\n{"action": {"type": "click", "ref": 3}}\n```\nLet me know.'
    assert parse_decision(text) == CLICK


def test_trailing_commas_are_repaired() -> None:
    assert parse_decision('{"action": {"type": "click", "ref": 3,},}') == CLICK


def test_missing_closing_bracket_at_the_very_end_is_repaired() -> None:
    assert parse_decision('{"action": {"type": "click", "ref": 3}') == CLICK


def test_missing_closing_quote_and_brackets_at_the_very_end_are_repaired() -> None:
    assert parse_decision('{"action": {"type": "done", "result": "42 items') == {"action": {"type": "done", "result": "42 items", "success": True}}


def test_braces_and_quotes_inside_strings_do_not_confuse_the_scan() -> None:
    text = '{"thought": "the label says \\"{not json}\\" }", "action": {"type": "press", "key": "}"}}'
    assert parse_decision(text) == {"thought": 'the label says "{not json}" }', "action": {"type": "press", "key": "}"}}


def test_stray_brace_in_prose_before_the_object_is_skipped() -> None:
    assert parse_decision('I think { maybe. {"action": {"type": "back"}}') == {"action": {"type": "back"}}


def test_bare_action_object_is_taken_as_the_action() -> None:
    assert parse_decision('{"type": "press", "key": "Enter", "thought": "submit"}') == {"thought": "submit", "action": {"type": "press", "key": "Enter"}}


def test_defaults_of_the_action_grammar_are_filled_in() -> None:
    assert parse_decision('{"action": {"type": "scroll"}}') == {"action": {"type": "scroll", "direction": "down"}}


# ------------------------------------------------------------------ refused, by kind


def test_text_without_json_is_no_json() -> None:
    assert kind_of("I would click the Add to cart button.") == "no_json"


def test_empty_text_is_no_json() -> None:
    assert kind_of("") == "no_json"


def test_object_cut_off_mid_string_is_truncated() -> None:
    assert kind_of('{"thought": "the cart button is visible so I will click') == "truncated"


def test_object_cut_off_in_a_number_is_truncated_not_guessed() -> None:
    # "ref": 1 might have been 12: completing it would act on the wrong element.
    assert kind_of('{"action": {"type": "click", "ref": 1') == "truncated"


def test_object_nested_deeper_than_the_repair_bound_is_truncated() -> None:
    assert kind_of('{"a": {"b": {"c": {"d": {"e": "x"') == "truncated"


def test_single_quoted_object_is_malformed() -> None:
    assert kind_of("{'action': {'type': 'click', 'ref': 3}}") == "malformed"


def test_two_objects_are_multi_root() -> None:
    assert kind_of('{"action": {"type": "click", "ref": 3}} {"action": {"type": "done"}}') == "multi_root"


def test_unknown_action_type_is_shape() -> None:
    assert kind_of('{"action": {"type": "fly", "ref": 3}}') == "shape"


def test_missing_required_field_is_shape() -> None:
    assert kind_of('{"action": {"type": "click"}}') == "shape"


def test_unknown_top_level_key_is_shape() -> None:
    assert kind_of('{"action": {"type": "back"}, "confidence": 0.9}') == "shape"


def test_shape_failure_detail_does_not_echo_the_models_values() -> None:
    with pytest.raises(ParseFailure) as failure:
        parse_decision('{"action": {"type": "click", "ref": "secret-page-text"}}')
    assert "secret-page-text" not in failure.value.detail


# ------------------------------------------------------------------ tool calls


def test_tool_call_becomes_the_same_decision_as_text() -> None:
    assert decision_from_tool_call("click", {"ref": 3, "thought": "add it"}) == parse_decision('{"thought": "add it", "action": {"type": "click", "ref": 3}}')


def test_tool_call_arguments_given_as_a_json_string_are_read() -> None:
    assert decision_from_tool_call("click", '{"ref": 3}') == CLICK


def test_tool_call_with_unreadable_arguments_is_malformed() -> None:
    with pytest.raises(ParseFailure) as failure:
        decision_from_tool_call("click", {RAW_ARGUMENTS_KEY: '{"ref": 3'})
    assert failure.value.kind == "malformed"


def test_the_act_tool_names_its_action_in_its_arguments() -> None:
    assert decision_from_tool_call("act", {"action": "click", "ref": 3, "thought": "add it"}) == decision_from_tool_call("click", {"ref": 3, "thought": "add it"})


def test_the_act_tool_drops_empty_fields_of_other_actions() -> None:
    notes: list[str] = []
    assert decision_from_tool_call("act", {"action": "click", "ref": 3, "text": "", "url": None}, notes) == CLICK
    assert notes == ["empty_fields"]


def test_the_act_tool_refuses_a_field_of_another_action_that_holds_a_value() -> None:
    with pytest.raises(ParseFailure) as failure:
        decision_from_tool_call("act", {"action": "click", "ref": 3, "text": "hello"})
    assert failure.value.kind == "shape"


def test_the_act_tool_without_an_action_is_shape_and_lists_the_actions() -> None:
    with pytest.raises(ParseFailure) as failure:
        decision_from_tool_call("act", {"ref": 3})
    assert failure.value.kind == "shape" and "click" in failure.value.detail


def test_tool_call_of_an_unknown_tool_is_shape() -> None:
    with pytest.raises(ParseFailure) as failure:
        decision_from_tool_call("rm_rf", {})
    assert failure.value.kind == "shape"


# ------------------------------------------------------------------ retry reminder


@pytest.mark.parametrize("kind", ["no_json", "truncated", "malformed", "multi_root", "shape"])
def test_retry_reminder_names_the_failure_kind(kind: str) -> None:
    reminder = retry_reminder(ParseFailure(kind, "detail"))  # type: ignore[arg-type]
    assert f"[{kind}]" in reminder
    assert '"action"' in reminder


def test_extract_json_returns_any_single_object() -> None:
    assert extract_json('Plan: {"steps": []}') == {"steps": []}


# ------------------------------------------------------------------ properties

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
_noise = st.text(alphabet=st.sampled_from(list('{}[]",:\\ abc\n`\'0123456789')), max_size=400)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=400), _noise))
def test_any_text_either_parses_or_raises_parse_failure(text: str) -> None:
    try:
        result = parse_decision(text)
    except ParseFailure as failure:
        assert failure.kind in ("no_json", "truncated", "malformed", "multi_root", "shape")
    else:
        assert result["action"]["type"]


@settings(max_examples=200, deadline=None)
@given(_json_values, st.text(max_size=50), st.text(max_size=50))
def test_one_json_object_in_prose_is_found(value: object, before: str, after: str) -> None:
    obj = {"payload": value}
    text = before.replace("{", "(").replace("}", ")") + json.dumps(obj) + after.replace("{", "(").replace("}", ")")
    assert extract_json(text) == obj


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=10_000), st.text(max_size=30))
def test_valid_decision_survives_any_truncation_point_without_crashing(ref: int, thought: str) -> None:
    text = json.dumps({"thought": thought, "action": {"type": "click", "ref": ref}})
    for cut in range(len(text)):
        try:
            parse_decision(text[:cut])
        except ParseFailure:
            pass


def _cost(text: str) -> float:
    started = time.perf_counter()
    try:
        parse_decision(text)
    except ParseFailure:
        pass
    return time.perf_counter() - started


def test_parse_time_grows_about_linearly_with_input_size(record_property: pytest.FixtureRequest) -> None:
    """Measured, not asserted against a clock: the ratio of costs for 8x the input is recorded.
    Adversarial inputs: unclosed braces, many quotes, deep nesting."""
    shapes = {
        "open_braces": lambda n: "{" * n,
        "quotes": lambda n: '{"a": "' + '\\"' * n,
        "nesting": lambda n: '{"a":' * n + "1" + "}" * n,
        "prose_braces": lambda n: "{x} " * n,
    }
    ratios = {}
    for name, make in shapes.items():
        small, large = make(5_000), make(40_000)
        ratios[name] = min(_cost(large) for _ in range(3)) / max(min(_cost(small) for _ in range(3)), 1e-6)
    record_property("parse_cost_ratio_8x_input", json.dumps({k: round(v, 1) for k, v in ratios.items()}))
    print("parse cost ratio for 8x input:", {k: round(v, 1) for k, v in ratios.items()})
