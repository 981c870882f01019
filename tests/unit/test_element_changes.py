"""What an action changed in its page's elements, as the run's history says it."""

from __future__ import annotations

from waymark.host.agent.element_changes import changes_line, element_changes
from waymark.host.core.snapshot import Snapshot, SnapshotElement

URL = "https://flowers.example/order"


def _page(*elements: SnapshotElement, url: str = URL) -> Snapshot:
    return Snapshot(url=url, elements=list(elements))


def _qty(value: str) -> SnapshotElement:
    return SnapshotElement(ref=1, role="spinbutton", name="Quantity", value=value, doc="d1")


def _wrap(on: bool) -> SnapshotElement:
    return SnapshotElement(ref=2, role="switch", name="Gift wrap", states={"checked": on}, doc="d1")


def test_a_value_and_a_state_that_changed_are_named_with_before_and_after():
    before, after = _page(_qty("1"), _wrap(False)), _page(_qty("2"), _wrap(True))
    assert element_changes(before, after) == ['[1] spinbutton "Quantity" value "1" -> "2"', '[2] switch "Gift wrap" checked false -> true']


def test_nothing_is_said_when_nothing_changed_or_the_page_went_elsewhere():
    assert changes_line(_page(_qty("1")), _page(_qty("1"))) == ""
    assert element_changes(_page(_qty("1")), _page(_qty("2"), url="https://flowers.example/saved")) == []


def test_an_element_another_took_the_ref_of_is_not_compared():
    # Refs restart on a new document, and a re-render may give a ref to another element.
    other_doc = SnapshotElement(ref=1, role="spinbutton", name="Quantity", value="5", doc="d2")
    renamed = SnapshotElement(ref=1, role="spinbutton", name="Stems", value="5", doc="d1")
    assert element_changes(_page(_qty("1")), _page(other_doc)) == []
    assert element_changes(_page(_qty("1")), _page(renamed)) == []


def test_the_history_line_names_at_most_three_changes_and_counts_the_rest():
    boxes = [SnapshotElement(ref=i, role="checkbox", name=f"Box {i}", states={"checked": False}, doc="d1") for i in range(1, 6)]
    ticked = [b.model_copy(update={"states": {"checked": True}}) for b in boxes]
    line = changes_line(_page(*boxes), _page(*ticked))
    assert line.startswith(' -> changed: [1] checkbox "Box 1" checked false -> true; [2] checkbox')
    assert line.endswith("(and 2 more)")


def test_a_sort_order_that_turned_is_named_with_its_words():
    before = Snapshot(url="https://shop.test/", elements=[SnapshotElement(ref=1, role="columnheader", name="Name", states={"sort": "ascending"})])
    after = Snapshot(url="https://shop.test/", elements=[SnapshotElement(ref=1, role="columnheader", name="Name", states={"sort": "descending"})])
    assert element_changes(before, after) == ['[1] columnheader "Name" sort ascending -> descending']


def test_a_checkbox_that_became_mixed_is_a_change():
    before = Snapshot(url="https://shop.test/", elements=[SnapshotElement(ref=1, role="checkbox", name="All", states={"checked": True})])
    after = Snapshot(url="https://shop.test/", elements=[SnapshotElement(ref=1, role="checkbox", name="All", states={"checked": "mixed"})])
    assert element_changes(before, after) == ['[1] checkbox "All" checked true -> mixed']
