"""The scripted provider: plans, decisions resolved against the snapshot, recovery paths, chat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from waymark.host.agent.parsing import decision_from_tool_call, parse_decision
from waymark.host.core.page_in_view import showing
from waymark.host.core.snapshot import Snapshot
from waymark.providers import errors, registry
from waymark.providers.base import CompletionRequest, Message, Tool
from waymark.providers.retry import RetryPolicy
from waymark.providers.scripted import resolve_target

SNAPSHOT = Snapshot.model_validate({
    "url": "http://127.0.0.1/shop",
    "title": "Fake shop",
    "elements": [
        {"ref": 2, "role": "button", "name": "Add  to\ncart"},
        {"ref": 4, "role": "button", "name": "Add to cart"},
        {"ref": 6, "role": "textbox", "name": "Search", "value": "blue mugs"},
        {"ref": 9, "role": "link", "name": "Checkout now"},
    ],
})
NO_RETRY = RetryPolicy(attempts=1)


def provider(script: dict[str, Any]) -> Any:
    return registry.create("scripted", "scripted", script=script, retry=NO_RETRY)


def executor(step: int = 0, *, tools: bool = False) -> CompletionRequest:
    return CompletionRequest(
        messages=[Message.text("user", "act")],
        tools=[Tool(name="click")] if tools else [],
        metadata={"role": "executor", "step_index": step},
    )


async def complete(p: Any, request: CompletionRequest) -> Any:
    """A model call made, as the agent makes it, with the fake shop as the page in view."""
    with showing(SNAPSHOT):
        return await p.complete(request)


def planner() -> CompletionRequest:
    return CompletionRequest(messages=[Message.text("user", "plan")], metadata={"role": "planner"})


async def decide(p: Any, step: int = 0, *, tools: bool = False) -> dict[str, Any]:
    result = await complete(p, executor(step, tools=tools))
    if result.tool_calls:
        return decision_from_tool_call(result.tool_calls[0].name, result.tool_calls[0].arguments)
    return parse_decision(result.text)


STEPS = [
    {"intent": "add the mug", "action": {"type": "click", "target": {"role": "button", "name": "add to cart", "nth": 1}},
     "verify": [{"url_contains": "/cart"}]},
    {"intent": "check out", "action": {"type": "click", "target": {"name_contains": "checkout"}}, "required": False},
]


async def test_planner_gets_the_scripted_plan_as_json_text() -> None:
    result = await provider({"steps": STEPS}).complete(planner())
    assert json.loads(result.text) == {"steps": [
        {"intent": "add the mug", "verify": [{"url_contains": "/cart"}], "required": True},
        {"intent": "check out", "verify": [], "required": False},
    ]}


async def test_replan_serves_the_alternative_plan() -> None:
    p = provider({"steps": STEPS, "replan": {"steps": [{"intent": "search instead"}]}})
    await p.complete(planner())
    second = await p.complete(planner())
    assert [s["intent"] for s in json.loads(second.text)["steps"]] == ["search instead"]


async def test_executor_resolves_the_target_against_the_snapshot() -> None:
    p = provider({"steps": STEPS})
    assert (await decide(p, 0))["action"] == {"type": "click", "ref": 4}
    assert (await decide(p, 1))["action"] == {"type": "click", "ref": 9}


async def test_executor_answers_a_native_tool_call_when_tools_are_offered() -> None:
    result = await complete(provider({"steps": STEPS}), executor(0, tools=True))
    assert result.text is None and result.finish_reason == "tool_calls"
    assert result.tool_calls[0].name == "click" and result.tool_calls[0].arguments == {"ref": 4, "thought": "add the mug"}


async def test_target_matching_nothing_answers_done_unsuccessful_with_the_reason() -> None:
    p = provider({"steps": [{"intent": "x", "action": {"type": "click", "target": {"name": "Buy"}}}]})
    decision = await decide(p)
    assert decision["action"]["type"] == "done" and decision["action"]["success"] is False
    assert "matched nothing" in decision["action"]["result"]


@pytest.mark.parametrize(
    ("target", "ref"),
    [
        ({"role": "button", "name": "ADD TO CART"}, 2),
        ({"role": "button", "name": "add to cart", "nth": 1}, 4),
        ({"name_contains": "checkout"}, 9),
        ({"text_contains": "blue mug"}, 6),
        ({"role": "link", "name": "Add to cart"}, None),
        ({"role": "button", "name": "add to cart", "nth": 2}, None),
    ],
)
def test_target_resolution(target: dict[str, Any], ref: int | None) -> None:
    assert resolve_target(target, SNAPSHOT) == ref


async def test_decision_text_then_wrong_action_then_the_scripted_action() -> None:
    p = provider({"steps": [dict(STEPS[0], decision_text="{oops", fail_first=1)]})
    assert (await complete(p, executor())).text == "{oops"
    assert (await decide(p))["action"] == {"type": "wait", "ms": 0, "timeout_ms": 5000}
    assert (await decide(p))["action"] == {"type": "click", "ref": 4}


async def test_scripted_error_raises_the_typed_error_then_recovers() -> None:
    p = provider({"steps": [dict(STEPS[0], error={"kind": "rate_limited", "retry_after": 2})]})
    with pytest.raises(errors.RateLimited) as raised:
        await complete(p, executor())
    assert raised.value.retry_after == 2
    assert (await decide(p))["action"] == {"type": "click", "ref": 4}


async def test_past_the_last_step_the_answer_is_done_with_the_scripted_result() -> None:
    decision = await decide(provider({"steps": STEPS, "result": "ordered"}), 5)
    assert decision["action"] == {"type": "done", "result": "ordered", "success": True}


async def test_chat_answers_come_from_the_script_in_order() -> None:
    p = provider({"steps": [], "chat": ["first", "second"]})
    req = CompletionRequest(messages=[Message.text("user", "hi")], metadata={"role": "chat"})
    assert [(await p.complete(req)).text for _ in range(3)] == ["first", "second", "second"]


async def test_chat_without_answers_echoes_the_page_title_and_question() -> None:
    req = CompletionRequest(messages=[Message.text("user", "what is this?")], metadata={"role": "chat"})
    text = (await complete(provider({"steps": []}), req)).text
    assert "Fake shop" in text and "what is this?" in text


async def test_usage_is_none_unless_the_script_gives_it() -> None:
    assert (await provider({"steps": STEPS}).complete(planner())).usage is None
    given = await provider({"steps": STEPS, "usage": {"input_tokens": 5, "output_tokens": 2}}).complete(planner())
    assert given.usage is not None and given.usage.input_tokens == 5


def test_script_is_read_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"steps": STEPS}))
    assert len(registry.create("scripted", "scripted", script=str(path)).script.steps) == 2


def test_invalid_script_is_a_bad_request() -> None:
    with pytest.raises(errors.BadRequest):
        provider({"steps": [{"action": {"type": "click"}}]})


async def test_planner_retry_that_is_not_a_replan_gets_the_first_plan_again() -> None:
    p = provider({"steps": STEPS, "replan": {"steps": [{"intent": "search instead"}]}})
    req = CompletionRequest(messages=[Message.text("user", "plan")], metadata={"role": "planner", "replan": False})
    await p.complete(req)
    again = await p.complete(req)
    assert [s["intent"] for s in json.loads(again.text)["steps"]] == ["add the mug", "check out"]
    replan = CompletionRequest(messages=[Message.text("user", "plan")], metadata={"role": "planner", "replan": True})
    assert [s["intent"] for s in json.loads((await p.complete(replan)).text)["steps"]] == ["search instead"]


async def test_a_drags_to_target_resolves_to_its_to_ref_like_its_target() -> None:
    action = {"type": "drag", "target": {"role": "button", "nth": 1}, "to_target": {"role": "link", "name": "Checkout now"}}
    decision = await decide(provider({"steps": [{"intent": "drag the second button onto checkout", "action": action}]}))
    assert decision["action"] == {"type": "drag", "ref": 4, "to_ref": 9}


async def test_past_its_steps_the_script_answers_done_with_its_data_beside_its_result() -> None:
    decision = await decide(provider({"steps": [], "result": "Total € 12", "data": {"total": 12}}))
    assert decision["action"] == {"type": "done", "result": "Total € 12", "success": True, "data": {"total": 12}}
