"""The planner and the executor against the scripted provider, in-process (no browser)."""

import json

import pytest

from waymark.host.agent.executor import Executor
from waymark.host.agent.planner import Planner, PlannerFailed
from waymark.host.core.snapshot import Snapshot
from waymark.providers import errors
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    LLMProvider,
)
from waymark.providers.scripted import ScriptedProvider

PAGE = Snapshot(url="http://shop.test/", title="Shop", text='[4] button "Search"\n[5] link "Cart"',
                elements=[{"ref": 4, "role": "button", "name": "Search"}, {"ref": 5, "role": "link", "name": "Cart"}])


def scripted(*steps, **extra):
    return ScriptedProvider(script={"steps": list(steps), **extra})


async def decide(provider, reminders=2, **kw):
    executor = Executor(provider)
    return await executor.decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p", snapshot=PAGE,
                                 step_index=0, attempt=1, reminders=reminders, **kw)


async def test_a_native_tool_call_becomes_a_decision_whose_ref_is_in_the_snapshot():
    turn = await decide(scripted({"intent": "search", "action": {"type": "click", "target": {"name": "Search"}}}))
    assert turn.native and turn.decision.action.ref == 4 and turn.problems == []


class _Recording(ScriptedProvider):
    """The scripted provider, keeping every request it was sent."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.requests: list[CompletionRequest] = []

    async def complete(self, request):
        self.requests.append(request)
        return await super().complete(request)


async def test_the_tools_are_the_same_for_every_snapshot_so_a_server_can_reuse_its_prompt_cache():
    step = {"intent": "search", "action": {"type": "click", "target": {"name": "Search"}}}
    provider = _Recording(script={"steps": [step]})
    other = Snapshot(url="http://shop.test/b", elements=[{"ref": 40 + i, "role": "button", "name": "Search"} for i in range(30)])
    for snapshot in (PAGE, other):
        await Executor(provider).decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p", snapshot=snapshot,
                                        step_index=0, attempt=1, reminders=0)
    first, second = (r.tools for r in provider.requests)
    assert first and first == second


async def test_no_model_request_carries_the_snapshot_yet_the_scripted_provider_resolves_its_target():
    step = {"intent": "search", "action": {"type": "click", "target": {"name": "Cart"}}}
    provider = _Recording(script={"steps": [step]})
    turn = await Executor(provider).decide(task="t", intent="i", verify=[], history=[], feedback=None, page="p", snapshot=PAGE,
                                           step_index=0, attempt=1, reminders=0)
    assert turn.decision.action.ref == 5
    assert [r.metadata.get("snapshot") for r in provider.requests] == [None]


def test_tool_schemas_carry_no_ref_lists_bounds_or_null_branches_and_stay_small():
    from waymark.host.agent.grammar import executor_tools

    tools = executor_tools()
    sent = json.dumps([{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools])
    assert not any(word in sent for word in ('"anyOf"', '"maxLength"', '"minimum"', '"maximum"', '"default": null'))
    assert all("enum" not in t.parameters["properties"].get("ref", {}) for t in tools)
    # 21 tools were 9,587 characters with 50 refs listed in each ref-taking tool, 7,310 without.
    assert len(sent) < 6000


def test_one_act_tool_offers_exactly_the_allowed_actions_with_their_fields():
    from waymark.host.agent.grammar import executor_tools

    (tool,) = executor_tools(("click", "fill", "done"))
    assert tool.name == "act" and tool.parameters["properties"]["action"]["enum"] == ["click", "fill", "done"]
    assert {"ref", "text", "result", "success", "thought"} <= set(tool.parameters["properties"])
    assert "fill{ref,text}" in tool.description and "navigate" not in tool.description


async def test_each_unusable_answer_gets_a_reminder_naming_its_kind():
    provider = scripted({"intent": "search", "action": {"type": "click", "target": {"name": "Cart"}},
                         "decision_text": ['{"action": {"type": "click", "ref": 4', "no json here", '{"action": {"type": "click", "ref": 99}}']})
    turn = await decide(provider, reminders=3)
    assert [p.kind for p in turn.problems] == ["truncated", "no_json", "unknown_ref"]
    assert "[no_json]" in turn.problems[1].reminder
    assert turn.decision.action.ref == 5 and turn.calls == 4


async def test_the_executor_gives_up_after_its_reminders():
    provider = scripted({"intent": "search", "action": {"type": "click", "target": {"name": "Cart"}}, "decision_text": ["x", "y", "z"]})
    turn = await decide(provider, reminders=1)
    assert turn.decision is None and turn.calls == 2


async def test_tokens_are_summed_over_every_call_of_a_turn():
    provider = scripted({"intent": "s", "action": {"type": "click", "target": {"name": "Cart"}}, "decision_text": "nope"},
                        usage={"input_tokens": 10, "output_tokens": 5})
    turn = await decide(provider)
    assert turn.tokens == 30


async def test_the_planner_returns_the_validated_plan():
    provider = scripted({"intent": "Open the cart", "action": {"type": "click", "target": {"name": "Cart"}}, "verify": [{"url_contains": "/cart"}]})
    result = await Planner(provider).plan("t", "page")
    assert [s.intent for s in result.plan.steps] == ["Open the cart"]
    assert result.plan.steps[0].verify == [{"url_contains": "/cart"}]


class _BadPlanner(LLMProvider):
    """Always answers a plan with an unknown predicate."""

    name = "bad"

    def capabilities(self):
        return Capabilities(native_tools=False, json_schema=False, vision=False, streaming=False, context_tokens=1000)

    async def complete(self, request: CompletionRequest):
        self.last = request
        return Completion(text='{"steps": [{"intent": "x", "verify": [{"css": "#buy"}]}]}')

    async def stream(self, request):  # pragma: no cover - not used
        yield


class _Answering(_BadPlanner):
    """Answers every request with the same text."""

    def __init__(self, text: str) -> None:
        super().__init__("m")
        self.text = text

    async def complete(self, request: CompletionRequest):
        self.last = request
        return Completion(text=self.text)


async def test_a_replan_with_no_steps_says_the_task_is_already_done():
    answer = '{"steps": [], "success_criteria": [{"text_present": "Welcome, ada"}]}'
    result = await Planner(_Answering(answer)).plan("t", "page", evidence={"failed_step": "Sign in"})
    assert result.plan.steps == [] and result.plan.success_criteria == [{"text_present": "Welcome, ada"}]


async def test_a_first_plan_with_no_steps_is_refused_after_reminders():
    provider = _Answering('{"steps": []}')
    with pytest.raises(PlannerFailed, match="a first plan needs at least one step"):
        await Planner(provider).plan("t", "page")


async def test_a_replan_is_told_what_the_run_has_done():
    provider = _Answering('{"steps": []}')
    history = ['- did: click [4] button "Sign in"', "- step: Click the Sign in button -> failed"]
    await Planner(provider).plan("t", "page", evidence={"failed_step": "Sign in"}, history=history)
    told = provider.last.messages[-1].plain_text()
    assert 'What this run has done so far:' in told and '- did: click [4] button "Sign in"' in told
    assert "never a step the history shows was done" in told


class _Refusing(_BadPlanner):
    """Declines every request, as a model's refusal arrives: a blocked answer with its text."""

    async def complete(self, request: CompletionRequest):
        return Completion(text="I can't help with buying that.", finish_reason="blocked")


async def test_a_refused_decision_ends_the_turn_as_blocked_with_the_refusals_text():
    with pytest.raises(errors.Blocked, match="I can't help with buying that"):
        await decide(_Refusing("m"))


async def test_a_refused_plan_is_blocked_with_the_refusals_text():
    with pytest.raises(errors.Blocked, match="I can't help with buying that"):
        await Planner(_Refusing("m")).plan("t", "page")


async def test_a_plan_with_an_unknown_predicate_is_refused_after_reminders():
    provider = _BadPlanner("m")
    with pytest.raises(PlannerFailed, match="unknown predicate"):
        await Planner(provider).plan("t", "page")
    assert "could not be used [shape]" in provider.last.messages[-1].plain_text()


def test_a_plans_success_criteria_are_validated_like_step_checks():
    from pydantic import ValidationError

    from waymark.host.agent.planner import Plan

    plan = Plan.model_validate({"steps": [{"intent": "Sign in"}], "success_criteria": [{"url_contains": "/account"}]})
    assert plan.success_criteria == [{"url_contains": "/account"}]
    with pytest.raises(ValidationError, match="unknown predicate 'page_is'"):
        Plan.model_validate({"steps": [{"intent": "Sign in"}], "success_criteria": [{"page_is": "account"}]})


async def test_a_plan_quoting_angle_bracket_words_of_the_task_is_accepted_and_the_formats_own_are_refused():
    # A task about a template's `<name>` field: the placeholder check refused every plan, then the
    # fallback plan too, and the run ended as `error: internal error`.
    task = "Replace <name> with Ada in the greeting template and save it."
    answer = json.dumps({"steps": [{"intent": "Replace <name> with Ada", "verify": [{"text_present": "Hello Ada"}]}]})
    assert (await Planner(_Answering(answer)).plan(task, "page")).plan.steps[0].intent == "Replace <name> with Ada"
    copied = json.dumps({"steps": [{"intent": "Click <text>", "verify": []}]})
    with pytest.raises(PlannerFailed, match="<text> is a placeholder of the format"):
        await Planner(_Answering(copied)).plan(task, "page")


async def test_a_plan_may_quote_angle_bracket_words_the_page_shows():
    answer = json.dumps({"steps": [{"intent": "Fill the field labelled <text>", "verify": []}]})
    result = await Planner(_Answering(answer)).plan("Fill the first field with hello", 'page\n[3] textbox "<text>"')
    assert result.plan.steps[0].intent == "Fill the field labelled <text>"


def test_the_plan_without_a_planner_keeps_a_task_with_angle_bracket_words_as_its_one_step():
    from waymark.host.agent.planner import fallback_plan

    assert fallback_plan("Type <text> into the search box").steps[0].intent == "Type <text> into the search box"


async def test_an_optional_step_that_sends_what_the_task_asks_to_send_is_made_required():
    # The support chat: the planner marked the Send click optional, the model typed the message
    # and answered done, and nothing was sent.
    answer = json.dumps({"steps": [{"intent": "Type the message", "required": True},
                                   {"intent": "Click Send", "required": False},
                                   {"intent": "Close the tips banner", "required": False}]})
    result = await Planner(_Answering(answer)).plan("Send the message 'Where is my order?' to support", "page")
    assert [s.required for s in result.plan.steps] == [True, True, False]
    assert result.coercions == ["required_main_verb"]
