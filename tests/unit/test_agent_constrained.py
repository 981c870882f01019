"""Constrained output for servers that take a JSON Schema: the executor's answer in text mode is
held to a flat decision schema that every valid action fits and that grammar converters of
local servers (llama.cpp) can compile."""

from __future__ import annotations

import jsonschema
import pytest

from waymark.host.agent.executor import Executor
from waymark.host.agent.grammar import constrained_decision_schema
from waymark.host.core.actions import ACTION_TYPES, DIALOG_ACTIONS, EXAMPLES
from waymark.host.core.snapshot import Snapshot
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    LLMProvider,
)

REFS = sorted({e["ref"] for e in EXAMPLES.values() if "ref" in e} | {3})
PAGE = Snapshot(url="http://shop.test/", title="Shop", text="\n".join(f'[{r}] button "B{r}"' for r in REFS),
                elements=[{"ref": r, "role": "button", "name": f"B{r}"} for r in REFS])
#: A page that waits on a confirm: it lists no element and answers nothing else.
DIALOG_PAGE = Snapshot(url="http://shop.test/", title="Shop", text='dialog confirm "Empty the basket?" (open: the page waits for answer_dialog)',
                       dialog={"type": "confirm", "message": "Empty the basket?"})


class SchemaModel(LLMProvider):
    name = "schema"

    def __init__(self, json_schema: bool) -> None:
        super().__init__("m")
        self.json_schema = json_schema
        self.requests: list[CompletionRequest] = []

    def capabilities(self) -> Capabilities:
        return Capabilities(native_tools=False, json_schema=self.json_schema, vision=False, streaming=False, context_tokens=8000)

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        return Completion(text='{"thought": "t", "action": {"type": "click", "ref": 3}}')

    async def stream(self, request):  # pragma: no cover - not used
        yield


@pytest.mark.parametrize("kind", ACTION_TYPES)
def test_every_valid_action_fits_the_constraint(kind):
    page = DIALOG_PAGE if kind in DIALOG_ACTIONS else PAGE
    jsonschema.validate({"thought": "why", "action": EXAMPLES[kind]}, constrained_decision_schema(page))


def test_a_dialogs_answer_is_admitted_only_while_a_dialog_is_open_and_then_no_other_browser_action_is():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "answer_dialog", "accept": True}}, constrained_decision_schema(PAGE))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "scroll", "direction": "down"}}, constrained_decision_schema(DIALOG_PAGE))
    jsonschema.validate({"thought": "t", "action": {"type": "done", "result": "", "success": False}}, constrained_decision_schema(DIALOG_PAGE))


def test_the_constraint_allows_only_this_snapshots_refs_and_the_grammars_action_types():
    schema = constrained_decision_schema(PAGE)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "click", "ref": 999}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "search"}}, schema)


def test_on_a_page_with_no_elements_the_constraint_admits_no_ref_at_all():
    empty = Snapshot(url="http://news.test/subscribed.html", title="Subscribed", text="# Subscribed", elements=[])
    schema = constrained_decision_schema(empty)
    for action in ({"type": "click", "ref": 1}, {"type": "scroll", "direction": "down", "ref": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"thought": "t", "action": action}, schema)
    for action in ({"type": "back"}, {"type": "scroll", "direction": "down"}, {"type": "done", "result": "subscribed", "success": True}):
        jsonschema.validate({"thought": "t", "action": action}, schema)


def _at(scroll_y: int, page_height: int) -> Snapshot:
    viewport = {"scroll_x": 0, "scroll_y": scroll_y, "width": 1280, "height": 800, "page_width": 1280, "page_height": page_height}
    return PAGE.model_copy(update={"viewport": viewport})


def test_on_a_page_that_fits_the_window_the_constraint_scrolls_only_a_list_by_its_ref():
    # The real model asked to scroll a page that fits nine times for one step.
    schema = constrained_decision_schema(_at(0, 800))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "scroll", "direction": "down"}}, schema)
    jsonschema.validate({"thought": "t", "action": {"type": "scroll", "direction": "down", "ref": 3}}, schema)


def test_at_the_foot_of_a_page_the_constraint_scrolls_the_page_only_up():
    schema = constrained_decision_schema(_at(1200, 2000))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "scroll", "direction": "down"}}, schema)
    jsonschema.validate({"thought": "t", "action": {"type": "scroll", "direction": "up"}}, schema)


def test_a_ref_on_a_page_with_no_elements_is_refused_with_what_can_be_done_there():
    from waymark.host.agent.grammar import DecisionRejected, validate_decision

    empty = Snapshot(url="http://news.test/subscribed.html", title="Subscribed", text="# Subscribed", elements=[])
    with pytest.raises(DecisionRejected) as refused:
        validate_decision({"action": {"type": "click", "ref": 7}}, empty)
    assert refused.value.kind == "unknown_ref"
    assert refused.value.message == "this page lists no element to act on (ref 7 is not one): go back, open another page, scroll, or answer done"


def test_the_constraint_holds_each_action_to_its_own_required_fields():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"thought": "t", "action": {"type": "click", "value": "link 'Cart'"}}, constrained_decision_schema(PAGE))


def test_the_constraint_uses_only_what_a_grammar_converter_compiles():
    schema = constrained_decision_schema(PAGE)
    text = str(schema)
    for construct in ("oneOf", "$ref", "$defs", "minimum", "maximum", "const", "'null'"):
        assert construct not in text
    assert all(set(v) == {"type", "properties", "required", "additionalProperties"} for v in schema["properties"]["action"]["anyOf"])


async def _decide(model: SchemaModel) -> None:
    await Executor(model).decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p", snapshot=PAGE,
                                 step_index=0, attempt=1, reminders=0)


async def test_the_executor_sends_the_constraint_to_a_server_that_takes_a_schema():
    model = SchemaModel(json_schema=True)
    await _decide(model)
    assert model.requests[0].response_schema == constrained_decision_schema(PAGE)


async def test_the_executor_sends_no_schema_to_a_server_that_takes_none():
    model = SchemaModel(json_schema=False)
    await _decide(model)
    assert model.requests[0].response_schema is None


async def test_with_one_tab_the_executor_offers_no_tab_switching_or_closing():
    from waymark.host.core.actions import SINGLE_TAB_ACTIONS

    model = SchemaModel(json_schema=True)
    await Executor(model).decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p", snapshot=PAGE,
                                 step_index=0, attempt=1, reminders=0, allowed=SINGLE_TAB_ACTIONS)
    offered = {v["properties"]["type"]["enum"][0] for v in model.requests[0].response_schema["properties"]["action"]["anyOf"]}
    assert "close_tab" not in offered and "switch_tab" not in offered and "click" in offered


async def test_an_action_that_is_not_offered_is_refused_with_what_is():
    from waymark.host.core.actions import SINGLE_TAB_ACTIONS

    class ClosesTabs(SchemaModel):
        async def complete(self, request: CompletionRequest) -> Completion:
            self.requests.append(request)
            return Completion(text='{"thought": "close the popup", "action": {"type": "close_tab", "tab_id": 7}}')

    model = ClosesTabs(json_schema=False)
    turn = await Executor(model).decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p", snapshot=PAGE,
                                        step_index=0, attempt=1, reminders=0, allowed=SINGLE_TAB_ACTIONS)
    assert turn.decision is None
    assert turn.problems[0].kind == "not_offered" and "this task has one tab" in turn.problems[0].detail
    assert "close_tab" not in model.requests[0].messages[-1].plain_text().split("Actions:")[-1]


TOTAL = {"type": "object", "properties": {"total": {"type": "number", "x-waymark-computed": True}}, "required": ["total"]}


def _done_variant(schema: dict) -> dict:
    return next(v for v in schema["properties"]["action"]["anyOf"] if v["properties"]["type"]["enum"] == ["done"])


def test_asked_for_no_answer_the_constrained_done_has_no_data():
    assert "data" not in _done_variant(constrained_decision_schema(PAGE))["properties"]


def test_asked_for_an_answer_the_constrained_done_must_carry_data_of_its_shape():
    done = _done_variant(constrained_decision_schema(PAGE, data_schema={"type": "object", "properties": {"total": {"type": "number"}}}))
    assert done["properties"]["data"] == {"type": "object", "properties": {"total": {"type": "number"}}} and "data" in done["required"]


async def test_the_executor_tells_the_model_the_answers_schema_and_constrains_done_to_it():
    model = SchemaModel(json_schema=True)
    await Executor(model, output_schema=TOTAL).decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p",
                                                      snapshot=PAGE, step_index=0, attempt=1, reminders=0)
    request = model.requests[0]
    assert '"x-waymark-computed":true' in request.messages[-1].plain_text()
    assert _done_variant(request.response_schema)["properties"]["data"] == {"type": "object", "properties": {"total": {"type": "number"}},
                                                                             "required": ["total"]}
