"""Answers (host.agent.answers): validation against the output schema, and grounding of every
value in text the run saw, with the forms one value takes on a page."""

from __future__ import annotations

import pytest

from waymark.host.agent.answers import (
    Answers,
    SchemaProblem,
    SeenText,
    check_schema,
    constrained,
    ground,
)
from waymark.host.agent.answers.matching import normalize, value_finder
from waymark.host.agent.answers.schema import leaves, validation_error
from waymark.host.core.snapshot import Snapshot, SnapshotElement

ORDER = {"type": "object", "properties": {"order": {"type": "string"}, "total": {"type": "number"},
                                         "items": {"type": "integer", "x-waymark-computed": True}, "note": {"type": "string"}},
         "required": ["order", "total", "items"]}


def seen_text(text: str, url: str = "http://127.0.0.1:1/page") -> SeenText:
    seen = SeenText()
    seen.text(url, "Page", text)
    return seen


def found(value, text: str) -> bool:
    return value_finder(value)(normalize(text)) is not None


# ------------------------------------------------------------------ forms of one value


@pytest.mark.parametrize("value,text", [
    (1234.5, "Total: $1,234.50"), (1234.5, "Summe: 1.234,50 €"), (1234.5, "1 234,50 EUR"), (1234, "1'234 CHF"),
    (12, "12.00"), (3, "3 items"), (-5, "Balance: -5"), (-5, "Balance: -$5"), (-12, "Refund (12)"), (0.5, "0.5 kg"),
])
def test_a_number_matches_its_formatted_forms(value, text):
    assert found(value, text)


@pytest.mark.parametrize("value,text", [
    (123, "Order 1234"), (234, "Total 1,234.00"), (1234, "1,234.56"), (5, "Balance: -5"), (-5, "Pages 5-10 only 5"), (50, "1.5"),
])
def test_a_number_never_matches_inside_a_longer_number_or_with_the_wrong_sign(value, text):
    assert not found(value, text)


@pytest.mark.parametrize("value,text", [
    ("Trail  Runner 3", "the trail runner 3 shoe"), ("Ada’s shop", "ADA'S SHOP"), ("A-1042", "Order A–1042 shipped"),
    ("$1,234.50", "total 1234.50 USD"), ("1.234,50 €", "€1,234.50"), ("1234", "1,234 visitors"),
])
def test_a_string_matches_across_whitespace_case_quotes_dashes_separators_and_currency(value, text):
    assert found(value, text)


@pytest.mark.parametrize("value,text", [("Ada", "Adamant"), ("$12.00", "12.00 EUR"), ("ZX-9", "ZX-90")])
def test_a_string_does_not_match_inside_a_word_or_in_another_currency(value, text):
    assert not found(value, text)


@pytest.mark.parametrize("text", ["Shipped on March 14, 2026", "shipped 14 Mar 2026", "14/03/2026", "2026-03-14", "Saturday, 14 March 2026"])
def test_an_iso_date_matches_the_date_written_out(text):
    assert found("2026-03-14", text)


def test_a_written_out_date_matches_the_iso_date_on_the_page():
    assert found("March 14, 2026", "due: 2026-03-14")


def test_a_date_does_not_match_another_day():
    assert not found("2026-03-14", "March 15, 2026 and 2026-03-1")


# ------------------------------------------------------------------ the schema


def test_a_schema_that_is_no_json_schema_is_refused_with_where():
    with pytest.raises(SchemaProblem, match="properties"):
        check_schema({"type": "object", "properties": {"a": {"type": "no-such-type"}}})


def test_validation_names_the_json_path_of_the_error():
    assert validation_error({"order": "A-1", "total": "12", "items": 1}, ORDER) == "$.total: '12' is not of type 'number'"


def test_formats_are_validated():
    assert "date" in (validation_error("14 March 2026", {"type": "string", "format": "date"}) or "")


def test_leaves_say_which_values_are_required_and_which_computed():
    got = {leaf.path: (leaf.required, leaf.computed) for leaf in leaves({"order": "A-1", "total": 3, "items": 2, "note": "x"}, ORDER)}
    assert got == {"$.order": (True, False), "$.total": (True, False), "$.items": (True, True), "$.note": (False, False)}


def test_leaves_follow_refs_and_array_items():
    schema = {"$defs": {"row": {"type": "object", "properties": {"name": {"type": "string"}, "n": {"x-waymark-computed": True}},
                                "required": ["name"]}},
              "type": "object", "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/row"}}}, "required": ["rows"]}
    got = {leaf.path: (leaf.required, leaf.computed) for leaf in leaves({"rows": [{"name": "a", "n": 1}]}, schema)}
    assert got == {"$.rows[0].name": (True, False), "$.rows[0].n": (False, True)}


def test_without_a_schema_every_value_is_required():
    assert all(leaf.required for leaf in leaves({"a": {"b": [1, "x"]}}, None))


def test_the_constrained_schema_inlines_refs_since_it_is_nested_in_the_decisions_schema():
    schema = {"$defs": {"row": {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"oneOf": [{"type": "integer"}]}}}},
              "type": "array", "items": {"$ref": "#/$defs/row"}}
    assert constrained(schema) == {"type": "array", "items": {"type": "object", "properties": {
        "kind": {"enum": ["a"]}, "n": {"anyOf": [{"type": "integer"}]}}}}


def test_the_constrained_schema_keeps_structure_and_drops_annotations():
    plain = constrained({"type": "object", "title": "T", "properties": {"title": {"type": "string", "x-waymark-computed": True,
                                                                                   "format": "date"}}})
    assert plain == {"type": "object", "properties": {"title": {"type": "string"}}}


# ------------------------------------------------------------------ grounding


def test_each_value_is_found_with_its_page_and_element():
    seen = SeenText()
    seen.snapshot(Snapshot(url="http://127.0.0.1:1/orders", title="Orders",
                           elements=[SnapshotElement(ref=7, role="cell", name="A-1042"), SnapshotElement(ref=8, role="cell", name="$1,234.50")]))
    grounding = ground({"order": "A-1042", "total": 1234.5, "items": 2}, ORDER, seen)
    by_path = {v.path: v for v in grounding.values}
    assert by_path["$.order"].status == "found" and by_path["$.order"].source.element == '[7] cell "A-1042"'
    assert by_path["$.total"].source.url == "http://127.0.0.1:1/orders" and by_path["$.total"].source.where == "element"
    assert by_path["$.items"].status == "computed" and by_path["$.items"].source is None
    assert (grounding.grounded, grounding.ungrounded, grounding.computed) == (2, 0, 1)


def test_a_made_up_value_is_ungrounded_with_its_json_path():
    grounding = ground({"order": "A-9999", "total": 1234.5, "items": 2}, ORDER, seen_text("Order A-1042, total $1,234.50"))
    assert [(v.path, v.value) for v in grounding.missing()] == [("$.order", "A-9999")]


def test_a_value_inside_a_frame_says_which_frame():
    grounding = ground({"code": "ZX-9"}, None, seen_text("Checkout\n\n[frame http://localhost:2]\nDiscount code: ZX-9"))
    assert grounding.values[0].source.where == "frame http://localhost:2"


def test_password_values_never_reach_the_seen_text_from_a_redacted_snapshot():
    seen = SeenText()
    seen.snapshot(Snapshot(url="http://x/", elements=[SnapshotElement(ref=1, role="textbox", name="Password", value="[redacted]")]))
    assert ground({"pw": "hunter2"}, None, seen).ungrounded == 1


def test_the_seen_text_is_bounded_and_forgets_the_oldest_page_first():
    seen = SeenText(max_chars=60)
    seen.text("http://x/1", "", "first page says alpha " * 2)
    seen.text("http://x/2", "", "second page says omega " * 2)
    assert ground({"a": "alpha"}, None, seen).ungrounded == 1
    assert ground({"a": "omega"}, None, seen).grounded == 1


def test_empty_strings_booleans_and_nulls_are_not_values_to_ground():
    assert ground({"a": "", "b": True, "c": None}, None, SeenText()).values == []


# ------------------------------------------------------------------ one run's answer


def test_an_answer_that_does_not_validate_is_sent_back_once_then_fails_the_run():
    answers = Answers(ORDER)
    first = answers.take({"order": "A-1"}, "", True)
    second = answers.take({"order": "A-1"}, "", True)
    assert first.kind == "retry" and "total" in first.message
    assert second.kind == "failed" and second.message.startswith("the answer does not match the output schema: $: 'total'")


def test_an_answer_written_as_json_in_result_is_taken_as_its_data():
    answers = Answers(ORDER)
    assert answers.take(None, '{"order": "A-1", "total": 2, "items": 1}', True).kind == "accepted"
    assert answers.data == {"order": "A-1", "total": 2, "items": 1}


def test_a_grounded_answer_proves_a_task_that_changed_nothing():
    answers = Answers(ORDER)
    answers.saw_text("http://x/", "X", "Order A-1 total 2")
    answers.take({"order": "A-1", "total": 2, "items": 1}, "", True)
    assert answers.judge(False, "unproven", "nothing proves the task was done: no step was verified")[:2] == (True, "done")


def test_an_empty_answer_proves_nothing_so_a_run_that_changed_nothing_stays_unproven():
    # Incident: asked for an answer of any shape (the empty schema), the real model answered {} to
    # "list every order" and the run reported success because every one of no values was found.
    answers = Answers({})
    answers.saw_text("http://x/", "X", "Order A-1 total 2")
    answers.take({}, "", True)
    assert answers.judge(False, "unproven", "nothing proves the task was done: no step was verified")[:2] == (False, "unproven")


def test_an_ungrounded_required_value_makes_a_success_unproven():
    answers = Answers(ORDER)
    answers.saw_text("http://x/", "X", "Order A-1")
    answers.take({"order": "A-1", "total": 99, "items": 1}, "", True)
    success, outcome, reason = answers.judge(True, "done", "")
    assert (success, outcome) == (False, "unproven") and "$.total (99)" in reason


def test_an_ungrounded_optional_value_is_listed_but_does_not_unprove():
    answers = Answers(ORDER)
    answers.saw_text("http://x/", "X", "Order A-1 total 2")
    answers.take({"order": "A-1", "total": 2, "items": 1, "note": "made up"}, "", True)
    assert answers.judge(True, "done", "ok") == (True, "done", "ok")
    assert [v.path for v in answers.grounding.missing(required_only=False)] == ["$.note"]


def test_data_given_without_a_schema_is_grounded_and_listed_but_leaves_the_verdict():
    answers = Answers(None)
    answers.saw_text("http://x/", "X", "Subscribed")
    answers.take({"status": "subscribed", "note": "all good"}, "", True)
    assert answers.judge(True, "done", "ok") == (True, "done", "ok")
    assert [v.path for v in answers.grounding.missing()] == ["$.note"]


def test_a_failed_run_stays_failed_whatever_its_answer():
    answers = Answers(None)
    answers.saw_text("http://x/", "X", "7")
    answers.take({"n": 7}, "", True)
    assert answers.judge(False, "failed", "criteria fail") == (False, "failed", "criteria fail")


def test_a_run_asked_for_an_answer_that_gives_none_fails():
    assert Answers(ORDER).judge(True, "done", "ok")[:2] == (False, "failed")

