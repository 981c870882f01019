"""host.agent.target_state: a step proven by what the page says of the element it acted on, and
only when the step names that element and it went the way the action sets."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.target_state import target_state
from waymark.host.core.actions import Check, Click, Select, Uncheck
from waymark.host.core.snapshot import Snapshot, SnapshotElement

E = SnapshotElement


def page(*elements: SnapshotElement, url: str = "https://form.example/") -> Snapshot:
    return Snapshot(url=url, elements=list(elements))


def box(checked: bool, name: str = "C0ZWRz", **extra: Any) -> SnapshotElement:
    return E(ref=2, role="checkbox", name=name, states={"checked": True} if checked else {}, doc="d1", **extra)


def test_a_click_that_checked_the_checkbox_the_step_names_proves_the_step():
    # MiniWoB++ click-checkboxes (tuning half): each step's check was text the page always showed.
    moved = target_state(Click(ref=2), page(box(False)), page(box(True)), "Select C0ZWRz")
    assert moved == 'checkbox "C0ZWRz" checked false -> true'


def test_a_click_that_unchecked_a_box_proves_nothing_which_way_a_click_was_meant_is_a_guess():
    assert target_state(Click(ref=2), page(box(True)), page(box(False)), "Select C0ZWRz") == ""


def test_an_uncheck_that_unchecked_the_box_it_names_proves_the_step():
    moved = target_state(Uncheck(ref=2), page(box(True, "Email me offers")), page(box(False, "Email me offers")), "Uncheck Email me offers")
    assert moved == 'checkbox "Email me offers" checked true -> false'


def test_a_checked_box_the_step_does_not_name_proves_nothing():
    assert target_state(Check(ref=2), page(box(False, "vrD")), page(box(True, "vrD")), "Select C0ZWRz") == ""


def test_a_click_that_opened_the_section_it_names_proves_the_step():
    before = E(ref=4, role="button", name="Shipping details", states={"expanded": False}, doc="d1")
    after = before.model_copy(update={"states": {"expanded": True}})
    assert target_state(Click(ref=4), page(before), page(after), "Open Shipping details") == 'button "Shipping details" expanded false -> true'


def test_a_select_that_chose_the_option_the_step_names_proves_the_step():
    before = E(ref=9, role="combobox", name="Theme", value="Light", doc="d1")
    after = before.model_copy(update={"value": "Night mode"})
    moved = target_state(Select(ref=9, value="Night mode"), page(before), page(after), "Choose Night mode")
    assert moved == 'combobox "Theme" value "Light" -> "Night mode"'


def test_a_select_whose_value_did_not_become_the_option_proves_nothing():
    before = E(ref=9, role="combobox", name="Theme", value="Light", doc="d1")
    after = before.model_copy(update={"value": "Dark"})
    assert target_state(Select(ref=9, value="Night mode"), page(before), page(after), "Choose the theme") == ""


def test_a_click_on_a_button_that_changed_no_state_of_its_own_proves_nothing():
    submit = E(ref=6, role="button", name="Submit", doc="d1")
    assert target_state(Click(ref=6), page(submit), page(submit), "click Submit") == ""


def test_an_element_on_another_page_or_document_is_not_the_same_element():
    assert target_state(Click(ref=2), page(box(False)), page(box(True), url="https://form.example/done"), "Select C0ZWRz") == ""
    assert target_state(Click(ref=2), page(box(False)), page(box(True).model_copy(update={"doc": "d2"})), "Select C0ZWRz") == ""
