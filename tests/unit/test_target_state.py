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


def link(name: str, href: str, ref: int = 3) -> SnapshotElement:
    return E(ref=ref, role="link", name=name, href=href, doc="d1")


KANBAN = "http://127.0.0.1:8000/spa/index.html"


def test_a_click_that_took_the_tab_to_the_address_of_the_link_it_names_proves_the_step():
    # Kanbanish spa-help: the click on link "Help" went to #/help; the step's only check was the
    # start page's own title, which held before, so the step was unproven and the run failed.
    before = page(link("Help", f"{KANBAN}#/help"), url=f"{KANBAN}#/board")
    after = page(link("Help", f"{KANBAN}#/help"), url=f"{KANBAN}#/help")
    assert target_state(Click(ref=3), before, after, "Click on the 'Help' link") == f'link "Help" went to its address "{KANBAN}#/help"'


def test_a_link_to_another_document_proves_the_step_once_the_tab_is_there():
    # Orbit longpage-contact: another shape, a link to a separate page at the foot of a long one.
    contact = "http://127.0.0.1:8000/longpage/contact.html"
    before = page(link("Contact us", contact, ref=4), url="http://127.0.0.1:8000/longpage/index.html")
    after = page(url=contact)
    assert target_state(Click(ref=4), before, after, "Open the Contact us page").startswith('link "Contact us" went to its address')


def test_a_link_whose_address_is_a_bare_hash_or_a_script_proves_nothing_wherever_the_tab_is():
    # MiniWoB++ click-link: a page's script handles `<a href="#">`; the tab's URL gains a `#`.
    for href in (f"{KANBAN}#", "javascript:void(0)"):
        before = page(link("ipsum", href), url=f"{KANBAN}#/board")
        after = page(url=f"{KANBAN}#")
        assert target_state(Click(ref=3), before, after, "Click on the link ipsum") == ""


def test_a_link_the_step_does_not_name_or_whose_address_the_tab_did_not_reach_proves_nothing():
    # shop-upsell-accept: "Click on the 'Search' button" answered by a click on link "Cart (0)".
    cart = "http://127.0.0.1:8000/shop/cart.html"
    before = page(link("Cart (0)", cart), url="http://127.0.0.1:8000/shop/index.html")
    assert target_state(Click(ref=3), before, page(url=cart), "Click on the 'Search' button") == ""
    # A script sent the click elsewhere (a sign-in wall): the link's address was not reached.
    assert target_state(Click(ref=3), before, page(url="http://127.0.0.1:8000/login/index.html"), "Open the Cart (0)") == ""


def test_a_link_to_the_page_the_tab_is_already_on_proves_nothing():
    # spa-archive-card: link "Board" clicked on the board.
    board = page(link("Board", f"{KANBAN}#/board"), url=f"{KANBAN}#/board")
    assert target_state(Click(ref=3), board, board, "click on the link 'Board'") == ""


LEDGER = "http://127.0.0.1:8000/login"


def submit(name: str, action: str) -> SnapshotElement:
    return E(ref=2, role="button", name=name, href=action, doc="d1")


def test_a_click_on_the_submit_button_the_step_names_that_sent_its_form_to_its_action_proves_the_step():
    # Ledger login-forgot-password (8f9c5ea): "Send reset link" sent the form to reset-sent.html
    # with the email in the query; the step's check (the button exists) held before it acted.
    before = page(submit("Send reset link", f"{LEDGER}/reset-sent.html"), url=f"{LEDGER}/forgot.html")
    after = page(url=f"{LEDGER}/reset-sent.html?email=ada%40example.com")
    moved = target_state(Click(ref=2), before, after, "click on the 'Send reset link' button")
    assert moved == f'button "Send reset link" sent its form to its address "{LEDGER}/reset-sent.html"'


def test_a_form_sent_to_the_page_it_is_on_or_that_landed_elsewhere_proves_nothing():
    # A search form on its own results page: the query changed, the document did not.
    search = "http://127.0.0.1:8000/shop/search.html"
    again = target_state(Click(ref=2), page(submit("Search", search), url=f"{search}?q=boots"), page(url=f"{search}?q=tea"), "Search for tea")
    # A script sent the tab to a sign-in page instead of the form's action.
    elsewhere = target_state(Click(ref=2), page(submit("Send reset link", f"{LEDGER}/reset-sent.html"), url=f"{LEDGER}/forgot.html"),
                             page(url=f"{LEDGER}/index.html"), "click Send reset link")
    assert (again, elsewhere) == ("", "")


def test_a_button_with_no_form_to_send_proves_nothing_by_where_the_tab_went():
    help_button = E(ref=2, role="button", name="Help", doc="d1")
    assert target_state(Click(ref=2), page(help_button, url=f"{LEDGER}/index.html"), page(url=f"{LEDGER}/help.html"), "click Help") == ""


def _listbox(chosen: str) -> Snapshot:
    """An ARIA listbox of two options (no value of its own), `chosen` the selected one."""
    return page(E(ref=5, role="listbox", name="Size", bbox=[0, 0, 200, 80], doc="d1"),
                *(E(ref=6 + i, role="option", name=n, bbox=[0, 40 * i, 200, 40], states={"selected": True} if n == chosen else {}, doc="d1")
                  for i, n in enumerate(("Small", "Large"))))


def test_a_select_on_a_listbox_is_proven_by_the_option_it_made_selected():
    moved = target_state(Select(ref=5, value="Large"), _listbox("Small"), _listbox("Large"), "Choose Large in Size")
    assert moved == 'option "Large" selected false -> true'


def test_a_select_on_a_listbox_whose_option_was_already_selected_proves_nothing():
    assert target_state(Select(ref=5, value="Large"), _listbox("Large"), _listbox("Large"), "Choose Large in Size") == ""


def test_a_click_that_made_a_box_partly_checked_proves_nothing():
    before, after = box(False), box(False).model_copy(update={"states": {"checked": "mixed"}})
    assert target_state(Click(ref=2), page(before), page(after), "Select C0ZWRz") == ""
