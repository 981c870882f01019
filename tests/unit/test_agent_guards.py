"""Each guard of host.agent.guards, on the page it was drawn from (where it must fire) and on
pages of other shapes where it must stay quiet. docs/guards.md has the table of them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from waymark.host.agent import guards
from waymark.host.agent.effects import effect_of
from waymark.host.agent.grammar import validate_decision
from waymark.host.agent.guards import Conclusion, GuardContext
from waymark.host.agent.guards.conclusion import says_failed
from waymark.host.agent.run_state import RunState
from waymark.host.agent.verifier import CheckResult, key, parse_predicates
from waymark.host.core.actions import Done
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot, SnapshotElement

E = SnapshotElement


def page(url: str = "https://site.example/", *elements: SnapshotElement, title: str = "", text: str = "", **extra: Any) -> Snapshot:
    return Snapshot(url=url, title=title, elements=list(elements), text=text or "\n".join(f'[{e.ref}] {e.role} "{e.name}"' for e in elements),
                    **extra)


def action(decision: dict[str, Any], snapshot: Snapshot) -> Any:
    return validate_decision({"action": decision}, snapshot).action


def held(decision: dict[str, Any], snapshot: Snapshot, state: RunState | None = None) -> guards.Finding | None:
    """The finding that holds the decision back before dispatch, or None when it is dispatched."""
    return (state or RunState("t")).before_dispatch(action(decision, snapshot), snapshot)[0]


# ------------------------------------------------------------------ page_at_edge (refusal)


def _scrolled_to(scroll_y: float) -> Snapshot:
    return page("https://shop.example/", E(ref=1, role="button", name="Add to cart"),
                viewport={"width": 1280, "height": 800, "scroll_x": 0, "scroll_y": scroll_y, "page_width": 1280, "page_height": 2000})


def test_page_at_edge_refuses_scrolling_down_at_the_foot_of_a_page_scrolled_six_times():
    found = held({"type": "scroll", "direction": "down"}, _scrolled_to(1200))
    assert (found.guard, found.strength, found.code) == ("page_at_edge", "refusal", "already_done")
    assert found.message.startswith("the page is already scrolled to its end")
    assert held({"type": "scroll", "direction": "up"}, _scrolled_to(0)).guard == "page_at_edge"


def test_page_at_edge_is_quiet_where_the_page_has_more_or_a_list_is_scrolled():
    assert held({"type": "scroll", "direction": "down"}, _scrolled_to(0)) is None
    assert held({"type": "scroll", "direction": "up"}, _scrolled_to(1200)) is None
    assert held({"type": "scroll", "direction": "down", "ref": 1}, _scrolled_to(1200)) is None


# ------------------------------------------------------------------ secret_refill (refusal)


def _sign_in() -> Snapshot:
    return page("https://ledger.example/login", E(ref=2, role="textbox", name="Password", states={"has_value": True}, type="password"))


def test_secret_refill_refuses_filling_a_password_ten_times_over_with_the_same_secret():
    snap, state = _sign_in(), RunState("t")
    state.secret_fills.note(snap.url, snap.find(2), "{{secret:pw}}")
    found = held({"type": "fill", "ref": 2, "text": "{{secret:pw}}"}, snap, state)
    assert (found.guard, found.strength) == ("secret_refill", "refusal")


def test_secret_refill_is_quiet_for_another_secret_or_a_field_this_run_never_filled():
    snap, state = _sign_in(), RunState("t")
    state.secret_fills.note(snap.url, snap.find(2), "{{secret:old}}")
    assert held({"type": "fill", "ref": 2, "text": "{{secret:new}}"}, snap, state) is None
    assert held({"type": "fill", "ref": 2, "text": "{{secret:pw}}"}, snap) is None


# ------------------------------------------------------------------ already_so (advisory)


def _login_form() -> Snapshot:
    return page("https://ledger.example/login", E(ref=1, role="textbox", name="Username", value="ada"),
                E(ref=2, role="checkbox", name="Keep me signed in", states={"checked": True}))


def test_already_so_advises_once_against_filling_the_same_username_six_times_and_the_same_answer_again_is_dispatched():
    snap, state = _login_form(), RunState("t")
    fill = action({"type": "fill", "ref": 1, "text": "ada"}, snap)
    first, _ = state.before_dispatch(fill, snap)
    assert (first.guard, first.strength, first.message) == (
        "already_so", "advisory", '[1] textbox "Username" already holds "ada"; go on with the next part of the task')
    again, findings = state.before_dispatch(fill, snap)
    assert again is None and findings[0].overruled


def test_already_so_advises_against_checking_a_checked_box():
    assert held({"type": "check", "ref": 2}, _login_form()).guard == "already_so"


def test_already_so_is_quiet_for_new_text_or_a_state_that_changes():
    assert held({"type": "fill", "ref": 1, "text": "ada l"}, _login_form()) is None
    assert held({"type": "uncheck", "ref": 2}, _login_form()) is None


# ------------------------------------------------------------------ counter-pages where no guard fires


def test_no_guard_fires_on_a_click_into_an_already_focused_date_field_that_opens_its_picker():
    booking = page("https://trains.example/book", E(ref=3, role="textbox", name="Departure date", states={"focused": True}),
                   E(ref=4, role="button", name="Search trains", form=0))
    assert held({"type": "click", "ref": 3}, booking) is None


def test_no_guard_fires_on_a_click_on_the_backdrop_that_closes_a_newsletter_pop_up():
    popup = page("https://blog.example/post", E(ref=4, role="generic", name="", states={"occluding": 2}, bbox=[0, 0, 1280, 800]),
                 E(ref=5, role="button", name="Subscribe", bbox=[560, 380, 160, 40]))
    assert held({"type": "click", "ref": 4}, popup) is None


def test_no_guard_fires_on_enter_on_a_keyboard_driven_page_that_lists_no_control():
    slideshow = page("https://slides.example/deck", title="Press Enter to start")
    assert held({"type": "press", "key": "Enter"}, slideshow) is None


# ------------------------------------------------------------------ not_a_control (advisory)


def test_not_a_control_advises_against_clicking_a_cookie_dialog_to_close_it_and_names_its_buttons():
    snap = page("https://news.example/", E(ref=1, role="dialog", name="We value your privacy", bbox=[0, 0, 1280, 800]),
                E(ref=2, role="button", name="Accept all", bbox=[430, 455, 90, 35]),
                E(ref=3, role="button", name="Reject non-essential", bbox=[528, 455, 153, 35]),
                E(ref=4, role="link", name="In another frame", bbox=[10, 10, 50, 20], frame=3))
    found = held({"type": "click", "ref": 1}, snap)
    assert (found.guard, found.strength) == ("not_a_control", "advisory")
    assert '[2] button "Accept all", [3] button "Reject non-essential"' in found.message and "[4]" not in found.message


def test_not_a_control_is_quiet_for_a_hover_on_a_dialog_and_a_click_on_its_button():
    snap = page("https://news.example/", E(ref=1, role="dialog", name="Offer", bbox=[0, 0, 600, 400]),
                E(ref=2, role="button", name="No thanks", bbox=[10, 10, 90, 35]))
    assert held({"type": "hover", "ref": 1}, snap) is None
    assert held({"type": "click", "ref": 2}, snap) is None


# ------------------------------------------------------------------ repeated_after_effect (refusal)


def _product(toast: str = "") -> Snapshot:
    add = E(ref=3, role="button", name="Add to basket")
    return page("https://shop.example/scarf", add, text='[3] button "Add to basket"' + (f"\nstatus \"{toast}\"" if toast else ""))


def _sent(state: RunState, decision: dict[str, Any], before: Snapshot, after: Snapshot, sent: bool = False) -> None:
    """What the step judge records of an action that was sent on `before` and left `after`."""
    done = action(decision, before)
    effect = effect_of(done, ActionResult(ok=True, action=done.type, sent=sent), before, after)
    if effect is not None:
        state.changed(done, before, effect)


def test_repeated_after_effect_refuses_add_to_basket_again_once_it_sent_a_request_and_a_toast_showed():
    state = RunState("t")
    added = _product("Wool scarf has been added to your basket.")
    _sent(state, {"type": "click", "ref": 3}, _product(), added, sent=True)
    found = held({"type": "click", "ref": 3}, added, state)
    assert (found.guard, found.strength, found.code) == ("repeated_after_effect", "refusal", "already_changed")
    assert "the page sent a request or a form to its site" in found.message
    assert 'text appeared: "status "Wool scarf has been added to your basket.""' in found.message


def test_repeated_after_effect_refuses_a_sort_link_followed_again_on_the_page_it_led_to():
    state = RunState("t")
    start = page("https://admin.example/members", E(ref=2, role="link", name="Name", href="?o=name"))
    sorted_page = page("https://admin.example/members?o=name", E(ref=1, role="link", name="Name", href="?o=-name"))
    _sent(state, {"type": "click", "ref": 2}, start, sorted_page)
    assert held({"type": "click", "ref": 1}, sorted_page, state).guard == "repeated_after_effect"


def test_repeated_after_effect_refuses_an_opened_folder_clicked_again_whose_name_now_takes_in_its_files():
    state = RunState("t")
    shut = page("https://files.example/", E(ref=5, role="treeitem", name="src", states={"expanded": False}))
    opened = page("https://files.example/", E(ref=5, role="treeitem", name="src main.py", states={"expanded": True}))
    _sent(state, {"type": "click", "ref": 5}, shut, opened)
    found = held({"type": "click", "ref": 5}, opened, state)
    assert found.guard == "repeated_after_effect" and 'text appeared: "[5] treeitem "src main.py""' in found.message


def test_repeated_after_effect_is_quiet_when_an_effect_in_the_page_is_gone_and_the_page_is_back_as_before():
    state = RunState("t")
    _sent(state, {"type": "click", "ref": 3}, _product(), _product("Added."))
    assert held({"type": "click", "ref": 3}, _product(), state) is None


def test_repeated_after_effect_still_refuses_when_the_first_send_went_to_the_server_though_the_page_looks_as_before():
    # The toast is gone, but the request that added the scarf was sent: the basket holds it.
    state = RunState("t")
    _sent(state, {"type": "click", "ref": 3}, _product(), _product("Added."), sent=True)
    assert held({"type": "click", "ref": 3}, _product(), state).guard == "repeated_after_effect"


def test_repeated_after_effect_is_quiet_for_an_action_that_changed_nothing_or_only_moved_the_focus_or_the_view():
    state = RunState("t")
    field = page("https://site.example/", E(ref=1, role="button", name="Save"), text='[1] button "Save"')
    focused = page("https://site.example/", E(ref=1, role="button", name="Save"), text='[1] button "Save" focused=true')
    _sent(state, {"type": "click", "ref": 1}, field, focused)
    scrolled = page("https://site.example/", E(ref=1, role="button", name="Save"),
                    text='viewport 1280x800 scroll=0,300 page=1280x2000\n[1] button "Save"')
    _sent(state, {"type": "click", "ref": 1}, page("https://site.example/", E(ref=1, role="button", name="Save"),
                                                     text='viewport 1280x800 scroll=0,0 page=1280x2000\n[1] button "Save"'), scrolled)
    assert not state.view().effects, "where the keyboard is and where the view is scrolled are not the page"
    assert held({"type": "click", "ref": 1}, focused, state) is None


def test_repeated_after_effect_is_quiet_for_another_element_and_for_actions_a_repeat_cannot_double():
    state = RunState("t")
    two = page("https://shop.example/", E(ref=3, role="button", name="Add to basket"), E(ref=4, role="button", name="Add to wishlist"))
    after = page("https://shop.example/", E(ref=3, role="button", name="Add to basket"), E(ref=4, role="button", name="Add to wishlist"),
                 text="Added")
    _sent(state, {"type": "click", "ref": 3}, two, after, sent=True)
    assert held({"type": "click", "ref": 4}, after, state) is None
    _sent(state, {"type": "scroll", "direction": "down"}, two, after)
    assert held({"type": "hover", "ref": 3}, after, state) is None


# ------------------------------------------------------------------ repeated_without_effect (advisory)


def test_repeated_without_effect_advises_against_clicking_a_cart_drawers_backdrop_again_after_it_closed_nothing():
    drawer = page("https://shop.example/product", E(ref=4, role="generic", name="", states={"occluding": 2}, bbox=[0, 0, 1280, 800]),
                  E(ref=7, role="button", name="No thanks", bbox=[928, 275, 324, 44]))
    state = RunState("t")
    state.left_as_it_was(action({"type": "click", "ref": 4}, drawer), drawer)
    found = held({"type": "click", "ref": 4}, drawer, state)
    assert (found.guard, found.strength, found.code) == ("repeated_without_effect", "advisory", "no_effect")


def test_repeated_without_effect_advises_against_enter_again_on_an_order_confirmation_it_changed_nothing_on():
    confirmed = page("https://shop.example/confirmed", title="Order confirmed")
    state = RunState("t")
    state.left_as_it_was(action({"type": "press", "key": "Enter"}, confirmed), confirmed)
    assert held({"type": "press", "key": "Enter"}, confirmed, state).guard == "repeated_without_effect"


def test_repeated_without_effect_is_quiet_once_the_page_changed_between_the_two():
    quiz = page("https://quiz.example/", title="Question 1")
    state = RunState("t")
    state.left_as_it_was(action({"type": "press", "key": "Enter"}, quiz), quiz)
    assert held({"type": "press", "key": "Enter"}, page("https://quiz.example/", title="Question 2", text="Question 2 of 10"), state) is None


# ------------------------------------------------------------------ form_incomplete (advisory)

NEWSLETTER_TASK = "Subscribe ada@example.com to The Daily Loop newsletter"


def _newsletter(value: str = "") -> Snapshot:
    return page("https://news.example/", E(ref=5, role="textbox", name="Email address", value=value, form=0),
                E(ref=6, role="button", name="Subscribe", form=0), E(ref=7, role="button", name="Search", form=1))


def test_form_incomplete_advises_against_subscribing_while_the_tasks_address_is_not_in_the_empty_email_field():
    state = RunState(NEWSLETTER_TASK, ["ada@example.com"])
    found = held({"type": "click", "ref": 6}, _newsletter(), state)
    assert (found.guard, found.strength, found.code) == ("form_incomplete", "advisory", "value_missing")
    assert found.message.startswith('the task gives ada@example.com, which this run has not typed, and [5] textbox "Email address" is empty')
    assert held({"type": "press", "key": "Enter", "ref": 5}, _newsletter(), RunState(NEWSLETTER_TASK, ["ada@example.com"]))


def test_form_incomplete_advises_against_sending_a_form_whose_required_field_is_empty():
    signup = page("https://app.example/signup", E(ref=1, role="textbox", name="Full name", states={"required": True}, form=0),
                  E(ref=2, role="textbox", name="Company", form=0), E(ref=3, role="button", name="Create account", form=0))
    found = held({"type": "click", "ref": 3}, signup)
    assert found.message == '[1] textbox "Full name" is required and empty: fill it before you send the form with [3] button "Create account"'


def test_form_incomplete_advises_against_sending_a_field_the_page_marks_invalid():
    signup = page("https://app.example/signup", E(ref=1, role="textbox", name="Email", value="ada@", states={"invalid": True}, form=0),
                  E(ref=3, role="button", name="Create account", form=0))
    assert "holds a value the page marks invalid" in held({"type": "click", "ref": 3}, signup).message


def test_form_incomplete_is_quiet_on_a_reply_form_with_the_to_prefilled_and_an_optional_cc():
    reply = page("https://mail.example/reply", E(ref=1, role="textbox", name="To", value="bob@example.com", form=0),
                 E(ref=2, role="textbox", name="Cc", form=0, type="email"), E(ref=3, role="textbox", name="Message", value="Thanks!", form=0),
                 E(ref=4, role="button", name="Send", form=0))
    state = RunState("Reply to bob@example.com saying thanks", ["bob@example.com"])
    assert held({"type": "click", "ref": 4}, reply, state) is None


def test_form_incomplete_is_quiet_for_a_button_of_another_form_and_once_the_address_is_typed():
    state = RunState(NEWSLETTER_TASK, ["ada@example.com"])
    assert held({"type": "click", "ref": 7}, _newsletter(), state) is None
    assert held({"type": "click", "ref": 6}, _newsletter("ada@example.com"), state) is None


# ------------------------------------------------------------------ made_up_url (advisory)


def _shop() -> Snapshot:
    return page("https://shop.example/index.html", E(ref=1, role="link", name="Orders", href="/orders/1041"),
                E(ref=2, role="link", name="Page 2", href="/index.html?page=2"))


def test_made_up_url_advises_against_a_contact_page_no_link_leads_to_and_lets_the_same_navigate_through_when_repeated():
    state = RunState("Send a message to the shop")
    snap = _shop()
    go = action({"type": "navigate", "url": "/contactus"}, snap)
    found, _ = state.before_dispatch(go, snap)
    assert (found.guard, found.strength) == ("made_up_url", "advisory")
    assert found.message.startswith("no link on this page leads to /contactus")
    assert state.before_dispatch(go, snap)[0] is None


@pytest.mark.parametrize("url", ["/robots.txt", "/index.html?page=3", "/orders/1042", "/.well-known/security.txt",
                                 "https://elsewhere.example/help"])
def test_made_up_url_is_quiet_for_well_known_addresses_other_pages_of_a_listed_path_and_other_sites(url):
    assert held({"type": "navigate", "url": url}, _shop()) is None


def test_made_up_url_is_quiet_for_an_address_the_task_gives_or_the_run_has_been_to():
    assert held({"type": "navigate", "url": "/faq"}, _shop(), RunState("Read https://shop.example/faq")) is None
    assert held({"type": "navigate", "url": "/faq"}, _shop(), _visited("https://shop.example/faq")) is None


# ------------------------------------------------------------------ after dispatch


def test_scroll_moved_nothing_refuses_a_scroll_the_browser_says_moved_nothing_on_a_page_that_fits():
    snap = page("https://ledger.example/login", E(ref=2, role="textbox", name="Password"))
    scroll = action({"type": "scroll", "direction": "down", "ref": 2}, snap)
    found = guards.after_dispatch(GuardContext(task="t"), scroll, snap,
                                  ActionResult(ok=True, action="scroll", scroll={"at_edge": True, "target": "page"}))
    assert (found.guard, found.strength) == ("scroll_moved_nothing", "refusal")
    assert "act on [2] textbox \"Password\" directly by its ref" in found.message


def test_scroll_moved_nothing_is_quiet_when_the_scroll_moved():
    snap = page("https://ledger.example/terms", E(ref=2, role="region", name="Terms"))
    moved = ActionResult(ok=True, action="scroll", scroll={"at_edge": False, "target": "element"})
    assert guards.after_dispatch(GuardContext(task="t"), action({"type": "scroll", "direction": "down", "ref": 2}, snap), snap, moved) is None


def test_unreachable_check_drops_a_url_check_no_link_leads_to_instead_of_failing_a_right_consent_click():
    checks = parse_predicates([{"url_contains": "/consent-saved"}, {"absent": {"role": "dialog"}}])
    after = page("https://news.example/", E(ref=1, role="link", name="Home", href="/"))
    unreachable = {key(checks[0].to_json())}
    kept, found = guards.UNREACHABLE_CHECK.dropped(checks, unreachable, unreachable, after)
    assert [p.name for p in kept] == ["absent"]
    assert (found.guard, found.stage, found.strength) == ("unreachable_check", "after_dispatch", "advisory")


def test_unreachable_check_keeps_a_url_check_a_link_of_the_page_leads_to():
    checks = parse_predicates([{"url_contains": "/cart"}])
    after = page("https://shop.example/", E(ref=1, role="link", name="Cart", href="/cart"))
    everything = {key(checks[0].to_json())}
    assert guards.UNREACHABLE_CHECK.dropped(checks, everything, everything, after) == (checks, None)


# ------------------------------------------------------------------ conclusion


def _result(predicate: dict[str, Any], ok: bool = True) -> CheckResult:
    return CheckResult(predicate=predicate, ok=ok, detail="")


def judge(final: Snapshot, final_text: str = "", **fields: Any) -> tuple[str | None, list[guards.Finding]]:
    fields.setdefault("task", "t")
    refused, findings = guards.conclude(Conclusion(final_text=final_text, **fields), None, final)
    return (refused.outcome if refused else None), findings


def test_missing_value_fails_a_newsletter_subscribed_with_no_address():
    start = page("https://news.example/", E(ref=5, role="textbox", name="Email address"))
    done = page("https://news.example/subscribed.html?email=", title="Subscribed")
    outcome, findings = judge(done, task=NEWSLETTER_TASK, task_values=["ada@example.com"], start=start,
                              criteria=[_result({"title_contains": "Subscribed"})])
    assert outcome == "failed" and findings[0].guard == "missing_value"


def test_missing_value_is_quiet_when_the_task_removes_an_address_the_start_page_listed():
    contacts = page("https://crm.example/contacts", E(ref=3, role="button", name="Remove bob@example.com"))
    after = page("https://crm.example/contacts", title="Contacts", text="No contacts")
    outcome, findings = judge(after, task="Remove bob@example.com from my contacts", task_values=["bob@example.com"], start=contacts,
                              criteria=[_result({"absent": {"name_contains": "bob@example.com"}})])
    assert (outcome, findings) == (None, [])


def test_criteria_fail_fails_a_done_the_final_page_contradicts():
    outcome, findings = judge(page(title="Sign in"), criteria=[_result({"title_contains": "Dashboard"}, ok=False)])
    assert outcome == "failed" and findings[0].guard == "criteria_fail"


def test_criteria_fail_does_not_count_a_title_that_named_the_page_the_run_began_on_and_tells_of_it():
    # Kanbanish spa-help: the plan's only criterion was the board's own title; the run opened Help
    # as asked, and the title that held on the board failed there.
    board = {"title_contains": "Board · Kanbanish"}
    outcome, findings = judge(page("https://kanban.example/#/help", title="Help · Kanbanish"), criteria=[_result(board, ok=False)],
                              held_before={key(board)}, held_on_start_page={key(board)}, plan_proven=True)
    assert outcome is None
    assert [(f.guard, f.strength) for f in findings] == [("left_start_page", "advisory")]


def test_criteria_fail_still_fails_a_start_page_title_where_nothing_proves_the_task():
    board = {"title_contains": "Board · Kanbanish"}
    outcome, findings = judge(page("https://kanban.example/#/help", title="Help · Kanbanish"), criteria=[_result(board, ok=False)],
                              held_before={key(board)}, held_on_start_page={key(board)})
    assert outcome == "unproven" and findings[-1].guard == "nothing_proves"


def test_left_named_page_leaves_unproven_a_run_whose_failing_title_named_the_page_its_replan_was_made_on():
    # Ledger login-forgot-password (ff549a0): the replan made on the reset form named the form's
    # own title; the form sent, the tab at reset-sent.html; the run the judge passed was `failed`.
    form = {"title_contains": "Reset password · Ledger"}
    outcome, findings = judge(page("https://ledger.example/reset-sent.html", title="Reset link sent · Ledger"),
                              criteria=[_result(form, ok=False)], held_before={key(form)}, held_when_written={key(form)}, plan_proven=True)
    assert outcome == "unproven"
    assert [(f.guard, f.strength) for f in findings] == [("left_named_page", "refusal")]
    assert findings[0].message.startswith("nothing proves the task was done, nor that it failed") and "title_contains" in findings[0].message


def test_left_named_page_never_makes_a_success_of_a_run_that_left_the_page_the_task_asked_for():
    # Another shape: the replan was made on the Help page the task asked for, named its title, and
    # its proven step went back to the board. The criterion cannot tell the goal from a page passed
    # through, so the run is not failed by it, and never a success.
    help_page = {"title_contains": "Help · Kanbanish"}
    outcome, findings = judge(page("https://kanban.example/#/board", title="Board · Kanbanish"), criteria=[_result(help_page, ok=False)],
                              held_before={key(help_page)}, held_when_written={key(help_page)}, plan_proven=True, steps_verified=1)
    assert outcome == "unproven" and findings[-1].guard == "left_named_page"


def test_left_named_page_is_quiet_where_another_criterion_fails_the_task():
    form = {"title_contains": "Reset password · Ledger"}
    sent = {"text_present": "Check your inbox"}
    outcome, findings = judge(page("https://ledger.example/reset-sent.html", title="Reset link sent · Ledger"),
                              criteria=[_result(form, ok=False), _result(sent, ok=False)], held_before={key(form)},
                              held_when_written={key(form)}, plan_proven=True)
    assert outcome == "failed" and [f.guard for f in findings] == ["criteria_fail"]
    assert "text_present" in findings[0].message and "title_contains" not in findings[0].message


def test_criteria_fail_counts_a_state_that_held_at_the_start_and_a_title_that_did_not():
    # Another shape: a box the task keeps ticked, unticked by the run; a title guessed for the
    # page reached (Orbit longpage-contact: "Contact us" on a page titled "Contact · Orbit").
    kept = {"checked": {"target": {"role": "checkbox", "name": "Terms"}}}
    outcome, findings = judge(page(title="Settings"), criteria=[_result(kept, ok=False)], held_before={key(kept)},
                              held_on_start_page={key(kept)}, plan_proven=True)
    assert outcome == "failed" and findings[0].guard == "criteria_fail"
    guessed = {"title_contains": "Contact us"}
    outcome, findings = judge(page(title="Contact · Orbit"), criteria=[_result(guessed, ok=False)], plan_proven=True)
    assert outcome == "failed" and findings[0].guard == "criteria_fail"


def _support_chat(log: str) -> Snapshot:
    return page("https://help.example/chat", E(ref=2, role="textbox", name="Your message", value="Where is my order?"),
                E(ref=3, role="button", name="Send"), title="Support chat", text=log)


CHAT_CRITERIA = [{"text_present": "Where is my order?"},
                 {"value_equals": {"target": {"role": "textbox", "name": "Your message"}, "value": "Where is my order?"}}]


def test_own_typing_makes_a_support_message_typed_but_never_sent_unproven():
    # The real model typed the message, answered done without sending, and both criteria held
    # because of its own typing: the run reported SUCCESS while nothing was sent.
    outcome, findings = judge(_support_chat(""), "Support chat\nHow can we help?", task="Send 'Where is my order?' to support",
                              typed=["Where is my order?"], criteria=[_result(c) for c in CHAT_CRITERIA])
    assert outcome == "unproven"
    assert [f.guard for f in findings] == ["own_typing", "nothing_proves"]


def test_own_typing_is_quiet_once_the_message_shows_in_the_chat_log_outside_the_field():
    outcome, findings = judge(_support_chat(""), "Support chat\nYou: Where is my order?\nHow can we help?",
                              task="Send 'Where is my order?' to support", typed=["Where is my order?"],
                              criteria=[_result(CHAT_CRITERIA[0])], steps_verified=1)
    assert (outcome, findings) == (None, [])


def test_nothing_proves_a_task_whose_criteria_all_held_when_the_run_began():
    criterion = {"title_contains": "Ledger"}
    outcome, findings = judge(page(title="Ledger"), criteria=[_result(criterion)], held_before={key(criterion)},
                              held_on_start_page={key(criterion)}, steps_verified=1)
    assert outcome == "unproven" and findings[0].message == ("nothing proves the task was done: every success criterion already "
                                                             "held when the run began (1 step(s) verified)")


def test_nothing_proves_says_a_criterion_held_when_its_plan_was_made_if_it_did_not_hold_at_the_start():
    # A replan read "Saved" off the page it was on; the page the run began on did not show it.
    criterion = {"text_present": "Saved"}
    outcome, findings = judge(page(title="Settings"), criteria=[_result(criterion)], held_before={key(criterion)}, steps_verified=1)
    assert outcome == "unproven" and findings[0].message == ("nothing proves the task was done: every success criterion already "
                                                             "held when the plan that named it was made (1 step(s) verified)")


def test_nothing_proves_a_task_whose_criteria_held_from_the_start_even_after_a_plan_whose_every_step_the_page_proved():
    # Issue 56: the plan's only criterion already held on the start page and a step the page proved
    # made it a success. A criterion that held before the run began says nothing of what it did.
    criterion = {"text_present": "endpoint"}
    outcome, findings = judge(page(title="Docs"), criteria=[_result(criterion)], held_before={key(criterion)},
                              held_on_start_page={key(criterion)}, steps_verified=1, steps_proving=1, plan_proven=True)
    assert outcome == "unproven" and findings[-1].message == ("nothing proves the task was done: every success criterion already "
                                                              "held when the run began (1 step(s) verified)")


def test_nothing_proves_a_task_whose_only_changed_criterion_is_an_address_that_changed():
    # Issue 56: any navigation makes `url_changed` hold, a click on the Login link as much as a ticket created.
    outcome, findings = judge(page("https://tracker.example/login", title="Login"), criteria=[_result({"url_changed": True})],
                              steps_verified=2)
    assert outcome == "unproven"
    assert findings[-1].message == ("nothing proves the task was done: the success criteria that changed say only that the address "
                                    "changed, as any navigation does (2 step(s) verified)")


def test_nothing_proves_is_quiet_for_an_address_that_changed_beside_a_criterion_on_the_outcome():
    created = {"text_present": "Ticket #12 created"}
    outcome, findings = judge(page("https://tracker.example/tickets/12", title="Ticket #12"),
                              criteria=[_result({"url_changed": True}), _result(created)], steps_verified=2)
    assert (outcome, findings) == (None, [])


def test_nothing_proves_a_plan_without_criteria_whose_only_verified_step_is_a_fill_its_own_typing_proved():
    # Issue 56: a comment typed, Post pressed, and the page refused it with an alert; the fill's
    # check held only through the text the run typed, and the run ended `done`.
    outcome, findings = judge(page(title="Field notes"), steps_verified=1, steps_proving=0, steps_unproven=1)
    assert outcome == "unproven" and findings[-1].message == (
        "nothing proves the task was done: the plan has no success criteria, and its steps were proven only by what the run typed "
        "or by the address changing (1 step(s) verified)")


def test_nothing_proves_is_quiet_for_a_plan_without_criteria_with_a_step_proven_by_a_check_on_the_outcome():
    assert judge(page(title="Field notes"), steps_verified=2, steps_proving=1) == (None, [])


def test_nothing_proves_is_quiet_where_the_only_criterion_named_the_start_page_and_the_plan_was_proven():
    # Kanbanish spa-help: the board's title named the page the run began on; the Help link the
    # page proved is the task.
    board = {"title_contains": "Board · Kanbanish"}
    outcome, findings = judge(page("https://kanban.example/#/help", title="Help · Kanbanish"), criteria=[_result(board, ok=False)],
                              held_before={key(board)}, held_on_start_page={key(board)}, steps_verified=1, steps_proving=1,
                              plan_proven=True)
    assert outcome is None and [f.guard for f in findings] == ["left_start_page"]


def test_answer_says_failed_fails_a_done_whose_own_answer_is_false():
    # Issue 56: the model answered done with the result "false", and the run reported success.
    criterion = {"text_present": "Ticket #12 created"}
    refused, findings = guards.conclude(Conclusion(task="t", criteria=[_result(criterion)]), Done(result="false"), page(title="Tickets"))
    assert refused is not None and (refused.outcome, findings[0].guard) == ("failed", "answer_says_failed")


@pytest.mark.parametrize("answer", ["false", "Failed.", "Could not find the form to create a ticket", "I was unable to sign in"])
def test_an_answer_that_says_the_task_failed_is_read_as_one(answer):
    assert says_failed(answer)


@pytest.mark.parametrize("answer", ["The order number is 1042", "No results were found for 'zebra'", "Signed in as ada", ""])
def test_an_answer_that_gives_the_outcome_is_not_read_as_a_failure(answer):
    assert not says_failed(answer)


def test_the_conclusion_guards_are_those_attached_to_the_run():
    # A run judged by a list without nothing_proves has nothing refuse a success no criterion proves.
    view = Conclusion(task="t")
    assert guards.conclude(view, None, page(title="Field notes"))[0].name == "nothing_proves"
    assert guards.conclude(view, None, page(title="Field notes"), attached=()) == (None, [])


def test_the_conclusion_guards_read_a_view_of_the_run_they_cannot_write():
    view = Conclusion.of(GuardContext(task="t", typed=("Where is my order?",)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.typed = ()  # type: ignore[misc]
    assert view.typed == ("Where is my order?",)


def test_nothing_proves_a_plan_without_criteria_whose_only_proof_is_one_box_it_ticked():
    # The login plan that ticked a box (proven by its state, no check), and only hovered over Sign in.
    outcome, findings = judge(page(title="Sign in · Ledger"), steps_verified=0, steps_unproven=2)
    assert outcome == "unproven" and findings[0].message.startswith("nothing proves the task was done: no step was verified")


def test_nothing_proves_is_quiet_for_a_plan_without_criteria_whose_every_step_was_proven():
    assert judge(page(title="Click Dialog Task"), plan_proven=True) == (None, [])


def test_nothing_proves_is_quiet_for_a_criterion_that_changed():
    assert judge(page(title="Dashboard"), criteria=[_result({"title_contains": "Dashboard"})]) == (None, [])


SHOE_PAGE = {"title_contains": "Trail Runner 3"}
ADD_LABEL = {"text_present": "Add to Cart"}


def test_optional_steps_only_refuses_the_shop_add_to_cart_criteria_a_plan_of_one_optional_step_brought_about():
    # The real model's shop-add-to-cart run (d5740c7): the search step failed, the replan gave one
    # optional step, and its click on the product's link made both guessed criteria hold (the
    # product page's title, the label of its never-pressed button): a false success, the cart empty.
    outcome, findings = judge(page(title="Trail Runner 3 running shoes · Waymark Demo Shop"),
                              criteria=[_result(SHOE_PAGE), _result(ADD_LABEL)], held_since_optional_plan={key(SHOE_PAGE), key(ADD_LABEL)})
    assert outcome == "unproven" and [f.guard for f in findings] == ["optional_steps_only"]
    assert findings[0].message == ("nothing proves the task was done: the success criteria came to hold only while the last plan ran, "
                                   "and every step of it was optional, one the task can succeed without")


def test_optional_steps_only_is_quiet_when_a_proving_criterion_held_before_the_plan_of_optional_steps():
    # The cart link said "Cart (1)" once Add to cart was clicked; the optional step after it only
    # closed the offer, which showed the product's title again.
    cart = {"exists": {"role": "link", "name": "Cart (1)"}}
    outcome, findings = judge(page(title="Trail Runner 3 running shoes · Waymark Demo Shop"),
                              criteria=[_result(cart), _result(SHOE_PAGE)], held_since_optional_plan={key(SHOE_PAGE)})
    assert (outcome, findings) == (None, [])


def test_parts_unnamed_tells_of_a_dark_theme_the_site_calls_night_mode_and_never_withholds_the_success():
    outcome, findings = judge(page(title="Settings saved"), task="Choose the dark theme and save the settings",
                              criteria=[_result({"checked": {"target": {"role": "switch", "name": "Night mode"}}})])
    assert outcome is None
    assert [(f.guard, f.strength) for f in findings] == [("parts_unnamed", "advisory")]


def test_parts_unnamed_is_quiet_when_a_step_was_verified():
    outcome, findings = judge(page(title="Settings saved"), task="Choose the dark theme and save the settings", steps_verified=1,
                              criteria=[_result({"checked": {"target": {"role": "switch", "name": "Night mode"}}})])
    assert (outcome, findings) == (None, [])


def test_every_guard_has_a_name_a_stage_a_strength_and_a_rule():
    names = [g.name for g in guards.all_guards()]
    assert len(names) == len(set(names))
    for guard in guards.all_guards():
        assert guard.stage in ("before_dispatch", "after_dispatch", "conclusion") and guard.strength in ("refusal", "advisory")
        assert guard.__doc__ and len(guard.__doc__.split()) > 8


def test_the_docs_table_lists_every_guard_once_with_its_stage_and_strength():
    from pathlib import Path

    table = Path(__file__).resolve().parents[2] / "docs" / "guards.md"
    rows = {line.split("|")[1].strip(" `"): [c.strip() for c in line.split("|")[2:4]]
            for line in table.read_text(encoding="utf-8").splitlines() if line.startswith("| `")}
    assert rows == {g.name: [g.stage.replace("_", " "), g.strength] for g in guards.all_guards()}


def _visited(url: str) -> RunState:
    state = RunState("t")
    state.reached(url)
    return state


def test_a_guard_reads_a_frozen_view_of_the_run_that_it_cannot_change_and_later_steps_do_not_rewrite():
    state = RunState("Write to ada@example.com", ["ada@example.com"])
    snap = _login_form()
    state.typed_into(snap.url, snap.find(1), action({"type": "fill", "ref": 1, "text": "ada"}, snap), "ada", secret=False)
    state.reached(snap.url)
    view = state.view()
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.typed = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.visited.add("https://elsewhere.example/")  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        view.effects["k"] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        view.secret_fills.fills[("u", "d", 1)] = frozenset()  # type: ignore[index]
    state.typed_into(snap.url, snap.find(1), action({"type": "fill", "ref": 1, "text": "grace"}, snap), "grace", secret=False)
    state.left_as_it_was(action({"type": "click", "ref": 2}, snap), snap)
    assert (view.typed, view.visited, view.without_effect) == (("ada",), frozenset({snap.url}), frozenset())
    assert state.view().typed == ("ada", "grace")
