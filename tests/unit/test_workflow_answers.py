"""A saved answer read again on a replay's page: each value where the saved run found it, in the
form the page writes it today, and computed values computed again from the values read."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.answers import SeenText, ground
from waymark.host.workflows.model import Answer, AnswerValue
from waymark.host.workflows.reread import formula, reread

ORDERS = ("Your orders\nOrder Placed Items Total Status\nPX-1041 2 February 2026 1 € 18.90 Delivered\n"
          "PX-1042 9 March 2026 3 € 1,249.00 Delivered\nPX-1043 14 March 2026 2 € 64.35 On its way")


def saved(data: Any, page: str, schema: dict[str, Any] | None = None) -> Answer:
    """The answer as a save records it: each value with the words around it on `page`."""
    seen = SeenText()
    seen.text("http://shop.test/orders", "Orders", page)
    grounding = ground(data, schema, seen)
    values = []
    for leaf, found in zip(_leaves(data, schema), grounding.values):
        value = AnswerValue(parts=list(leaf.parts), path=leaf.path, value=leaf.value)
        if leaf.computed:
            how = formula(leaf.value, data, leaf.parts)
            assert how is not None
            value.computed, value.over, value.field = how
        else:
            assert found.source is not None, found.path
            value.written, value.before, value.after = found.source.written, found.source.before, found.source.after
        values.append(value)
    return Answer(output_schema=schema, data=data, values=values)


def _leaves(data: Any, schema: dict[str, Any] | None) -> list[Any]:
    from waymark.host.agent.answers.schema import leaves

    return list(leaves(data, schema))


def test_an_unchanged_answer_is_read_again_where_the_saved_run_found_it():
    read = reread(saved({"total": 1249}, ORDERS), [ORDERS])
    assert (read.data, read.changed, read.missing) == ({"total": 1249}, [], [])


def test_a_total_that_changed_is_read_as_the_page_writes_it_today():
    today = ORDERS.replace("€ 1,249.00", "€ 1,312.50")
    read = reread(saved({"total": 1249}, ORDERS), [today])
    assert read.data == {"total": 1312.5} and read.changed == ["$.total"]


def test_a_total_beside_a_subtotal_is_read_by_its_own_label_not_inside_the_other():
    before = "Subtotal € 1,100.00\nShipping € 9.00\nTotal € 1,249.00\nPay now"
    today = "Subtotal € 1,150.00\nShipping € 9.00\nTotal € 1,312.50\nPay now"
    assert reread(saved({"total": 1249}, before), [today]).data == {"total": 1312.5}


def test_a_date_is_given_back_in_the_saved_answers_own_form():
    today = ORDERS.replace("PX-1043 14 March 2026", "PX-1043 2 April 2026")
    read = reread(saved({"placed": "2026-03-14"}, ORDERS), [today])
    assert read.data == {"placed": "2026-04-02"}


def test_a_string_is_read_between_the_words_around_it_in_the_pages_own_case():
    before = "Order PX-1043\nTracking number: SW 4417 0093 2\nExpected delivery: 17 March"
    today = "Order PX-1043\nTracking number: DHL 55 1200 77\nExpected delivery: 19 March"
    assert reread(saved({"tracking": "SW 4417 0093 2"}, before), [today]).data == {"tracking": "DHL 55 1200 77"}


def test_a_value_whose_words_around_it_are_gone_is_missing_by_its_path():
    read = reread(saved({"total": 1249}, ORDERS), ["Your orders\nYou have no orders yet."])
    assert read.missing and read.missing[0].startswith("$.total") and read.data == {"total": 1249}


def test_the_total_of_an_order_whose_row_is_gone_is_not_read_from_the_row_above():
    gone = ORDERS.replace("PX-1042 9 March 2026 3 € 1,249.00 Delivered\n", "")
    assert reread(saved({"total": 1249}, ORDERS), [gone]).missing


def test_words_the_page_shows_around_two_values_read_neither():
    before = "Order A placed. Total € 1,249.00 due now. Thanks for shopping with us"
    twice = "Order X placed. Total € 10.00 due now. Order Y placed. Total € 20.00 due now."
    assert reread(saved({"total": 1249}, before), [twice]).missing
    assert reread(saved({"total": 1249}, before), [twice.replace("Order Y placed. Total € 20.00 due now.", "")]).data == {"total": 10}


def test_a_count_and_a_sum_are_computed_again_from_the_values_read():
    schema = {"type": "object", "properties": {
        "orders": {"type": "array", "items": {"type": "object", "properties": {"order": {"type": "string"}, "total": {"type": "number"}}}},
        "count": {"type": "integer", "x-waymark-computed": True}, "sum": {"type": "number", "x-waymark-computed": True}}}
    data = {"orders": [{"order": "PX-1041", "total": 18.9}, {"order": "PX-1042", "total": 1249}], "count": 2, "sum": 1267.9}
    answer = saved(data, ORDERS, schema)
    assert [(v.path, v.computed) for v in answer.values if v.computed] == [("$.count", "count"), ("$.sum", "sum")]
    today = ORDERS.replace("€ 18.90", "€ 20.00")
    read = reread(answer, [today])
    assert read.data["orders"][0]["total"] == 20 and read.data["sum"] == 1269.0 and read.data["count"] == 2


def test_a_computed_value_no_count_or_sum_gives_has_no_formula():
    assert formula(7, {"orders": [{"total": 1}, {"total": 2}], "days": 7}, ("days",)) is None
