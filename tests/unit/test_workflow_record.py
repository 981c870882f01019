"""A recorded demonstration becomes a draft and then a workflow (host.workflows.record): targets
placed among their neighbours, checks proposed from what changed, typed values as parameters and
secrets as placeholders; the browser side is tested in tests/e2e/test_workflow_record.py."""

from __future__ import annotations

from typing import Any

import pytest

from waymark.host.core.snapshot import Snapshot
from waymark.host.workflows.model import validate
from waymark.host.workflows.record import (
    AnswerMark,
    Demonstration,
    NotACheck,
    RecordedSave,
    draft,
    edited_check,
    marked_answer,
    workflow_of,
)
from waymark.host.workflows.save import NotSaveable

SITE = "http://127.0.0.1:8000/site/login"


def _element(ref: int, role: str, name: str, **extra: Any) -> dict[str, Any]:
    return {"ref": ref, "order": ref, "role": role, "name": name, "doc": "d1", **extra}


SIGN_IN = {"url": f"{SITE}/index.html", "title": "Sign in", "text": "# Sign in to Ledger", "elements": [
    _element(1, "textbox", "Username"), _element(2, "textbox", "Password"), _element(3, "button", "Sign in")]}
ACCOUNT = {"url": f"{SITE}/account.html?user=ada", "title": "Account", "text": "# Welcome, ada",
           "elements": [_element(1, "link", "Sign out")]}


def _demo() -> Demonstration:
    return Demonstration(start_url=SIGN_IN["url"], snapshots=[Snapshot.model_validate(SIGN_IN), Snapshot.model_validate(ACCOUNT)], steps=[
        {"action": "fill", "role": "textbox", "name": "Username", "ref": 1, "value": "ada", "frame_origin": "http://127.0.0.1:8000",
         "before": 0, "after": 0},
        {"action": "fill", "role": "textbox", "name": "Password", "ref": 2, "secret": True, "secret_origin": "http://127.0.0.1:8000",
         "before": 0, "after": 0},
        {"action": "click", "role": "button", "name": "Sign in", "ref": 3, "before": 0, "after": 1}])


def _saved(**changes: Any) -> RecordedSave:
    drafted = draft(_demo())
    return RecordedSave.model_validate({"name": "sign-in", "start_url": drafted.start_url, "task": drafted.task,
                                        "steps": [s.model_dump() for s in drafted.steps], **changes})


def test_a_click_that_led_to_another_page_proposes_its_address_from_where_it_parts_and_the_heading_that_appeared():
    click = draft(_demo()).steps[2]
    assert click.changed and click.target is not None and click.target.before == ["Password", "Username"]
    assert [c.check for c in click.checks] == [{"url_contains": "/account.html"}, {"title_contains": "Account"},
                                               {"text_present": "Welcome, ada"}]


def test_a_typed_value_becomes_a_parameter_wherever_it_stands_and_the_password_a_bound_secret():
    workflow = workflow_of(_saved())
    validate(workflow.model_dump(mode="json"))
    assert [(p.name, p.default) for p in workflow.parameters] == [("username", "ada")]
    typed, secret, click = workflow.steps
    assert typed.action == {"type": "fill", "text": "{{param:username}}"}
    assert typed.checks == [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "{{param:username}}"}}]
    assert secret.action == {"type": "fill", "text": "{{secret:password}}"} and secret.secret_origin == "http://127.0.0.1:8000"
    assert {"text_present": "Welcome, {{param:username}}"} in click.checks


def test_a_step_that_changed_the_page_without_a_check_is_not_saveable_and_the_reason_names_it():
    save = _saved()
    save.steps[2].checks = []
    with pytest.raises(NotSaveable, match=r'step 3 \(Click button "Sign in"\) changed the page but has no check'):
        workflow_of(save)


def test_a_value_marked_secret_is_never_written_nor_any_check_that_quotes_it():
    save = _saved()
    save.steps[0].secret, save.steps[0].param, save.steps[0].secret_origin = "username", None, "http://127.0.0.1:8000"
    text = workflow_of(save).model_dump_json()
    assert "ada" not in text and "{{secret:username}}" in text


def test_the_draft_is_named_after_the_first_pages_title():
    assert draft(_demo()).name == "sign-in"


def test_a_check_changed_in_the_review_is_trimmed_and_said_in_the_proposals_words():
    made = edited_check({"text_present": "  € 1,204.50 "})
    assert (made.check, made.says) == ({"text_present": "€ 1,204.50"}, "the page shows '€ 1,204.50'")


@pytest.mark.parametrize("check, reason", [({"text_present": " "}, "text_present takes a non-empty string"),
                                           ({"count_at_least": {"target": {"role": "row"}, "n": "many"}}, "count_at_least: "),
                                           ({"shows": "x"}, "unknown predicate 'shows'")])
def test_a_check_the_verifier_cannot_prove_is_refused_saying_why(check: dict[str, Any], reason: str):
    with pytest.raises(NotACheck, match=reason):
        edited_check(check)


ORDERS = {"url": "http://127.0.0.1:8000/site/orders/index.html", "title": "Orders", "text": "Order PX-1042 9 March 2026 3 € 1,249.00 Delivered",
          "elements": [_element(1, "cell", "PX-1042"), _element(2, "cell", "€ 1,249.00")]}


def test_an_answer_marked_in_the_review_is_read_as_its_number_on_the_final_page_under_a_name_not_yet_taken():
    step = marked_answer(AnswerMark(page=Snapshot.model_validate(ORDERS), text="€ 1,249.00", role="cell", name="€ 1,249.00", taken=["answer"]))
    assert step.action == {"type": "extract"} and step.answer is not None
    assert (step.answer.field, step.answer.value, step.answer.written) == ("answer_2", 1249, "1,249.00")


def test_an_answer_marked_in_the_review_that_the_final_page_did_not_show_is_not_saveable():
    with pytest.raises(NotSaveable, match="is not among words the page showed"):
        marked_answer(AnswerMark(page=Snapshot.model_validate(ORDERS), text="€ 9,999.00"))
CATEGORIES = {"url": "http://127.0.0.1:8000/site/categories.html", "title": "Categories", "text": "# Categories\nShoes 12",
              "elements": [_element(1, "button", "Rename"), _element(2, "button", "Delete")]}


def _dialog_demo(name: str, ref: int, dialogs: list[dict[str, Any]], text: str) -> Demonstration:
    after = {**CATEGORIES, "text": CATEGORIES["text"] + f"\nstatus \"{text}\"", "elements": [*CATEGORIES["elements"], _element(3, "status", text)]}
    return Demonstration(start_url=CATEGORIES["url"], snapshots=[Snapshot.model_validate(CATEGORIES), Snapshot.model_validate(after)], steps=[
        {"action": "click", "role": "button", "name": name, "ref": ref, "dialogs": dialogs, "before": 0, "after": 1}])


def test_a_click_on_a_delete_button_is_marked_destructive_as_a_run_would_ask_before_it():
    click = draft(_dialog_demo("Delete", 2, [], "Deleted")).steps[0]
    assert click.destructive == 'button "Delete" looks destructive (delete)'


def test_a_recorded_destructive_step_keeps_its_reason_in_the_workflow_as_a_saved_runs_step_does():
    drafted = draft(_dialog_demo("Delete", 2, [], "Deleted"))
    save = RecordedSave.model_validate({"name": "delete", "start_url": drafted.start_url, "steps": [s.model_dump() for s in drafted.steps]})
    assert workflow_of(save).steps[0].destructive == 'button "Delete" looks destructive (delete)'


def test_a_click_on_a_harmless_button_is_not_destructive():
    assert draft(_dialog_demo("Rename", 1, [], "Renamed")).steps[0].destructive is None


def test_a_confirm_the_user_answered_becomes_an_answer_step_after_the_click_that_raised_it():
    confirm = {"type": "confirm", "message": "Delete the category Shoes and all its 12 products?", "accepted": True}
    click, answer = draft(_dialog_demo("Delete", 2, [confirm], "Category and products deleted")).steps
    assert [c.check for c in click.checks] == [{"text_present": "Delete the category Shoes and all its 12 products?"}]
    assert answer.action == {"type": "answer_dialog", "accept": True}
    assert answer.intent == 'Answer OK to the confirm "Delete the category Shoes and all its 12 products?"'
    assert {"text_present": "Category and products deleted"} in [c.check for c in answer.checks]
    assert answer.destructive is not None and "OK on the confirm" in answer.destructive


def test_a_prompt_answered_with_text_makes_that_text_a_parameter_of_the_workflow():
    prompt = {"type": "prompt", "message": "New name for the category:", "accepted": True, "text": "Boots"}
    drafted = draft(_dialog_demo("Rename", 1, [prompt], "Renamed to Boots"))
    save = RecordedSave.model_validate({"name": "rename", "start_url": drafted.start_url, "steps": [s.model_dump() for s in drafted.steps]})
    workflow = workflow_of(save)
    assert [(p.name, p.default) for p in workflow.parameters] == [("new_name_for_the_category", "Boots")]
    assert workflow.steps[1].action == {"type": "answer_dialog", "accept": True, "text": "{{param:new_name_for_the_category}}"}
    assert {"text_present": "Renamed to {{param:new_name_for_the_category}}"} in workflow.steps[1].checks
    assert workflow.steps[1].destructive is None


def test_an_alert_the_click_raised_is_a_check_of_that_click_and_no_step_of_its_own():
    alert = {"type": "alert", "message": "Saved", "accepted": True}
    steps = draft(_dialog_demo("Rename", 1, [alert], "Renamed")).steps
    assert len(steps) == 1 and steps[0].checks[0].check == {"text_present": "Saved"}


def test_text_that_appeared_in_a_plain_paragraph_is_proposed_when_the_snapshot_lists_no_change():
    demo = _dialog_demo("Rename", 1, [], "unused")
    demo.snapshots[1] = demo.snapshots[0]
    demo.steps[0].appeared = ["Renamed to Boots"]
    click = draft(demo).steps[0]
    assert click.changed and [c.check for c in click.checks] == [{"text_present": "Renamed to Boots"}]
