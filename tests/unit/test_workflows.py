"""Workflows without a browser: the file format and its validation, saving from a trace, finding
a recorded element again on a changed page, parameters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.core.targets import element_place
from waymark.host.workflows import store
from waymark.host.workflows.locate import locate
from waymark.host.workflows.model import (
    ParamMissing,
    Workflow,
    WorkflowInvalid,
    bind,
    fill,
    validate,
)
from waymark.host.workflows.replay import rebase
from waymark.host.workflows.reread import bound, reread
from waymark.host.workflows.save import NotSaveable, recorded, workflow_from


def _el(ref: int, role: str, name: str, y: float = 0.0, order: int | None = None) -> SnapshotElement:
    return SnapshotElement(ref=ref, order=ref if order is None else order, role=role, name=name, bbox=[10.0, y, 100.0, 30.0])


def login_page(button: str = "Sign in", *, banner: bool = False) -> Snapshot:
    elements = [_el(1, "textbox", "Username", 100), _el(2, "textbox", "Password", 150), _el(3, "checkbox", "Keep me signed in", 200),
                _el(4, "button", button, 250), _el(5, "link", "Forgot password?", 300)]
    if banner:
        elements.insert(0, _el(9, "button", "Dismiss", 0, order=0))
        for e in elements[1:]:
            e.bbox = [e.bbox[0], e.bbox[1] + 60, e.bbox[2], e.bbox[3]]
    return Snapshot(url="http://127.0.0.1:1/login/index.html", elements=elements)


def minimal(**over: object) -> dict[str, object]:
    data: dict[str, object] = {"format": 1, "name": "sign-in", "task": "Sign in", "start_url": "http://127.0.0.1:1/login/",
                               "steps": [{"intent": "Sign in", "action": {"type": "click"},
                                          "target": {"role": "button", "name": "Sign in"}, "checks": [{"url_contains": "/account"}]}]}
    data.update(over)
    return data


# ------------------------------------------------------------------ the file format


def test_a_valid_workflow_file_loads():
    assert validate(minimal()).steps[0].target.name == "Sign in"  # type: ignore[union-attr]


def test_a_hand_edited_mistake_names_the_step_and_the_field():
    data = minimal()
    data["steps"] = [*data["steps"], {"intent": "Open the statement", "action": {"type": "click"}, "checks": "url_contains /statement"}]  # type: ignore[list-item]
    with pytest.raises(WorkflowInvalid, match=r"step 2, field checks: .* is not of type 'array'"):
        validate(data)


def test_a_step_without_an_intent_is_named_by_its_number():
    data = minimal(steps=[{"action": {"type": "click"}}])
    with pytest.raises(WorkflowInvalid, match=r"step 1: 'intent' is a required property"):
        validate(data)


def test_a_placeholder_naming_no_parameter_is_refused_with_its_step():
    data = minimal(steps=[{"intent": "Type", "action": {"type": "fill", "text": "{{param:month}}"}}])
    with pytest.raises(WorkflowInvalid, match=r"step 1, field action: \{\{param:month\}\} names no parameter"):
        validate(data)


def test_a_file_of_another_format_version_is_refused():
    with pytest.raises(WorkflowInvalid, match="format 2 is not supported"):
        validate(minimal(format=2))


def test_the_json_schema_is_generated_from_the_models():
    schema = Workflow.model_json_schema()
    assert "steps" in schema["required"] and schema["title"] == "Waymark workflow"


# ------------------------------------------------------------------ the store


def test_a_saved_workflow_is_listed_shown_and_deleted():
    workflow = validate(minimal(name="store-roundtrip"))
    path = store.write(workflow)
    assert path.stat().st_mode & 0o777 == 0o600
    assert store.load("store-roundtrip") == workflow
    assert "store-roundtrip" in [row["name"] for row in store.listing()]
    store.delete("store-roundtrip")
    with pytest.raises(store.WorkflowNotFound):
        store.load("store-roundtrip")


def test_saving_over_an_existing_workflow_needs_replace():
    workflow = validate(minimal(name="store-twice"))
    store.write(workflow)
    with pytest.raises(store.WorkflowExists):
        store.write(workflow)
    store.write(workflow, replace=True)
    store.delete("store-twice")


def test_a_name_that_would_leave_the_workflow_folder_is_refused():
    with pytest.raises(WorkflowInvalid, match="not a workflow name"):
        store.path_of("../settings")


def test_a_broken_file_in_the_folder_is_listed_with_its_error():
    store.write(validate(minimal(name="store-broken")))
    path = store.path_of("store-broken")
    path.write_text(path.read_text().replace('"intent": "Sign in"', '"intent": ""'))
    row = next(r for r in store.listing() if r["name"] == "store-broken")
    assert "step 1, field intent" in str(row["error"])
    store.delete("store-broken")


# ------------------------------------------------------------------ saving from a trace


def _trace(folder: Path, *, success: bool = True, task: str = "Sign in with the username ada and the password [redacted].",
           data: Any = None, grounding: dict[str, Any] | None = None) -> Path:
    page = login_page()
    events = [
        {"event": "run", "task": "Sign in with the username ada and the password lovelace.", "start_url": "http://127.0.0.1:1/login/index.html"},
        {"event": "plan", "steps": [], "success_criteria": [{"text_present": "Welcome, ada"}]},
        {"event": "step", "intent": "Enter the username", "verdict": "passed", "action": {"type": "fill", "ref": 1, "text": "ada"},
         "target": element_place(page, 1).model_dump(),  # type: ignore[union-attr]
         "changed": [{"value_equals": {"target": {"name": "Username"}, "value": "ada"}}]},
        {"event": "step", "intent": "Enter the password", "verdict": "retry", "action": {"type": "click", "ref": 3}},
        {"event": "step", "intent": "Enter the password", "verdict": "passed", "action": {"type": "fill", "ref": 2, "text": "[redacted]"},
         "target": element_place(page, 2).model_dump()},  # type: ignore[union-attr]
        {"event": "step", "intent": "Sign in", "verdict": "passed", "action": {"type": "click", "ref": 4},
         "target": element_place(page, 4).model_dump(), "changed": [{"url_contains": "/account"}]},  # type: ignore[union-attr]
        {"event": "step", "intent": "Finish", "verdict": "done", "action": {"type": "done", "success": True}},
    ]
    folder.mkdir()
    (folder / "trace.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    (folder / "summary.json").write_text(json.dumps({"success": success, "run_id": folder.name, "task": task,
                                                     "outcome": "done" if success else "failed", "data": data,
                                                     "grounding": grounding}))
    return folder


def test_a_saved_run_keeps_its_proven_steps_with_their_targets_and_proof(tmp_path):
    workflow = workflow_from(recorded(_trace(tmp_path / "run1")), "sign-in")
    assert [s.intent for s in workflow.steps] == ["Enter the username", "Enter the password", "Sign in"]
    assert workflow.steps[2].target.name == "Sign in" and "ref" not in workflow.steps[2].action  # type: ignore[union-attr]
    assert workflow.steps[2].checks == [{"url_contains": "/account"}]


def test_a_typed_value_the_task_gives_becomes_a_parameter_everywhere_it_stands(tmp_path):
    workflow = workflow_from(recorded(_trace(tmp_path / "run2")), "sign-in")
    assert [(p.name, p.default) for p in workflow.parameters] == [("username", "ada")]
    assert workflow.steps[0].action["text"] == "{{param:username}}"
    assert workflow.steps[0].checks[0]["value_equals"]["value"] == "{{param:username}}"
    assert workflow.success_criteria == [{"text_present": "Welcome, {{param:username}}"}]
    assert "{{param:username}}" in workflow.task


def test_a_password_never_reaches_the_workflow_file(tmp_path):
    workflow = workflow_from(recorded(_trace(tmp_path / "run3")), "sign-in")
    assert workflow.steps[1].action["text"] == "{{secret:password}}"
    text = json.dumps(workflow.model_dump(mode="json"))
    assert "lovelace" not in text and "[redacted]" not in text


def test_a_run_that_did_not_succeed_cannot_be_saved(tmp_path):
    with pytest.raises(NotSaveable, match="only a run that succeeded"):
        workflow_from(recorded(_trace(tmp_path / "run4", success=False)), "sign-in")


def test_a_run_that_answered_keeps_its_answer_with_the_words_around_each_value(tmp_path):
    source = {"url": "http://127.0.0.1:1/orders", "where": "page text", "written": "1,249.00", "before": "px-1042 9 march 2026 3 € ",
              "after": " delivered"}
    run = _trace(tmp_path / "run5", data={"total": 1249}, grounding={"values": [{"path": "$.total", "value": 1249, "status": "found",
                                                                                 "source": source}]})
    answer = workflow_from(recorded(run), "order-total").answer
    assert answer is not None and answer.data == {"total": 1249}
    assert [(v.path, v.written, v.before, v.after) for v in answer.values] == [("$.total", "1,249.00", source["before"], " delivered")]


def test_a_parameter_in_the_words_around_an_answer_is_read_with_the_value_the_replay_is_given(tmp_path):
    source = {"url": "http://127.0.0.1:1/account", "where": "page text", "written": "120.00", "before": "welcome, ada. your balance is € ",
              "after": " today"}
    run = _trace(tmp_path / "run7", task="Sign in with the username ada and tell me the balance.", data={"balance": 120},
                 grounding={"values": [{"path": "$.balance", "value": 120, "status": "found", "source": source}]})
    answer = workflow_from(recorded(run), "balance").answer
    assert answer is not None and answer.values[0].before == "welcome, {{param:username}}. your balance is € "
    page = "Welcome, Ada. Your balance is € 120.00 today\nWelcome, Grace. Your balance is € 75.00 today"
    assert reread(bound(answer, {"username": "Grace"}), [page]).data == {"balance": 75}


def test_an_answer_value_never_found_among_words_on_a_page_cannot_be_saved(tmp_path):
    run = _trace(tmp_path / "run6", data={"total": 1249}, grounding={"values": [{"path": "$.total", "value": 1249, "status": "ungrounded"}]})
    with pytest.raises(NotSaveable, match=r"\$\.total .*would not know where to read it again"):
        workflow_from(recorded(run), "order-total")


def test_a_value_inside_another_word_is_no_parameter(tmp_path):
    workflow = workflow_from(recorded(_trace(tmp_path / "run5", task="Sign in from Canada.")), "sign-in")
    assert workflow.parameters == [] and workflow.steps[0].action["text"] == "ada"


# ------------------------------------------------------------------ parameters


def test_a_run_gets_given_values_then_defaults():
    workflow = validate(minimal(parameters=[{"name": "month", "default": "May"}, {"name": "year"}]))
    assert bind(workflow, {"year": "2026"}) == {"month": "May", "year": "2026"}
    assert fill({"text": "{{param:month}} {{param:year}}"}, {"month": "May", "year": "2026"}) == {"text": "May 2026"}


def test_a_required_parameter_left_out_is_named():
    workflow = validate(minimal(parameters=[{"name": "year"}]))
    with pytest.raises(ParamMissing, match="needs the parameter 'year'"):
        bind(workflow, {})


def test_an_unknown_parameter_is_refused():
    with pytest.raises(ParamMissing, match="no parameter 'colour'"):
        bind(validate(minimal()), {"colour": "red"})


# ------------------------------------------------------------------ finding the element again


def test_the_recorded_element_is_found_by_role_and_name():
    place = element_place(login_page(), 4)
    found = locate(login_page(banner=True), place)  # type: ignore[arg-type]
    assert found is not None and (found.element.ref, found.by) == (4, "name")


def test_a_renamed_button_between_the_same_fields_is_found_by_its_nearby_text():
    place = element_place(login_page(), 4)
    found = locate(login_page("Log in", banner=True), place)  # type: ignore[arg-type]
    assert found is not None and (found.element.name, found.by) == ("Log in", "near")


def test_a_renamed_element_with_new_neighbours_is_found_where_it_stood():
    place = element_place(login_page(), 4)
    page = Snapshot(url="http://127.0.0.1:1/", elements=[_el(7, "button", "Continue", 250), _el(8, "button", "Back", 500)])
    found = locate(page, place)  # type: ignore[arg-type]
    assert found is not None and (found.element.ref, found.by) == (7, "position")


def test_nothing_is_taken_when_no_clue_picks_one_element():
    place = element_place(login_page(), 4)
    page = Snapshot(url="http://127.0.0.1:1/", elements=[_el(7, "button", "Continue", 600), _el(8, "button", "Back", 700)])
    assert locate(page, place) is None  # type: ignore[arg-type]


def test_of_two_elements_with_the_recorded_name_the_one_among_the_same_neighbours_is_taken():
    page = Snapshot(url="http://127.0.0.1:1/", elements=[
        _el(1, "heading", "Trail runner", 0), _el(2, "button", "Add to cart", 40),
        _el(3, "heading", "Road runner", 80), _el(4, "button", "Add to cart", 120)])
    place = element_place(page, 4)
    reordered = Snapshot(url="http://127.0.0.1:1/", elements=[
        _el(13, "heading", "Road runner", 0, order=1), _el(14, "button", "Add to cart", 40, order=2),
        _el(11, "heading", "Trail runner", 80, order=3), _el(12, "button", "Add to cart", 120, order=4)])
    found = locate(reordered, place)  # type: ignore[arg-type]
    assert found is not None and found.element.ref == 14


def test_start_url_moves_recorded_addresses_of_the_recorded_origin_only():
    assert rebase("http://127.0.0.1:1/shop/cart.html?x=1", "http://127.0.0.1:1/shop/", "http://localhost:9/shop/") == \
        "http://localhost:9/shop/cart.html?x=1"
    assert rebase("https://example.org/a", "http://127.0.0.1:1/shop/", "http://localhost:9/shop/") == "https://example.org/a"


def test_a_workflow_name_with_a_trailing_newline_is_refused():
    from waymark.host.workflows import store
    from waymark.host.workflows.model import WorkflowInvalid

    with pytest.raises(WorkflowInvalid):
        store.path_of("shop\n")
