"""Answers of the real APIs the fakes never produced, built from the official SDKs' own types
(openai, anthropic) and served through httpx's MockTransport at the HTTP boundary: quota
errors, inline reasoning, paused turns, context-window stops, SSE error events, empty tool
results, and what llama.cpp servers accept."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from waymark.host.agent.parsing import parse_decision
from waymark.providers import errors, registry
from waymark.providers.base import CompletionRequest, Message, Tool
from waymark.providers.retry import RetryPolicy

REQUEST = CompletionRequest(messages=[Message.text("user", "Open the cart")], max_tokens=100, timeout=10)
ONE_TRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.01)


def mock(*responses: httpx.Response) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return responses[min(len(seen), len(responses)) - 1]

    return httpx.MockTransport(handler), seen


def openai(transport: httpx.MockTransport, preset: str = "openai"):
    return registry.create("openai_compat", "m", preset=preset, api_key="k", transport=transport, retry=ONE_TRY)


def anthropic(transport: httpx.MockTransport):
    return registry.create("anthropic", "claude-x", api_key="k", transport=transport, retry=ONE_TRY)


def chat_completion(content: str, **usage: Any) -> dict[str, Any]:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 30, "total_tokens": 40, **usage},
    }).model_dump(mode="json", exclude_unset=True)


def claude_message(content: list[dict[str, Any]], stop_reason: str, output_tokens: int = 5) -> dict[str, Any]:
    from anthropic.types import Message as ClaudeMessage

    return ClaudeMessage.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": content,
        "stop_reason": stop_reason, "stop_sequence": None, "usage": {"input_tokens": 20, "output_tokens": output_tokens},
    }).model_dump(mode="json", exclude_unset=True)


async def test_an_openai_account_out_of_quota_is_a_quota_error_asked_once():
    from openai.types.shared import ErrorObject

    body = {"error": ErrorObject(message="You exceeded your current quota, please check your plan and billing details.",
                                 type="insufficient_quota", param=None, code="insufficient_quota").model_dump(mode="json", exclude_unset=True)}
    transport, seen = mock(httpx.Response(429, json=body))
    with pytest.raises(errors.QuotaExceeded, match="billing"):
        await openai(transport).complete(REQUEST)
    assert len(seen) == 1  # a billing problem is not retried


@pytest.mark.parametrize("answer", [
    '<think>The cart is {probably} link 5, or {maybe} 4.</think>\n{"action": {"type": "click", "ref": 5}}',
    # Qwen3 and DeepSeek-R1 templates end the prompt with <think>: the answer holds only the close.
    'The cart is {probably} link 5.\n</think>\n\n{"action": {"type": "click", "ref": 5}}',
], ids=["whole block", "opened by the chat template"])
async def test_inline_reasoning_is_cut_before_the_answer_is_read(answer):
    transport, _ = mock(httpx.Response(200, json=chat_completion(answer)))
    completion = await openai(transport, "vllm").complete(REQUEST)
    assert completion.text == '{"action": {"type": "click", "ref": 5}}'
    assert parse_decision(answer) == {"action": {"type": "click", "ref": 5}}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])  # vLLM and DeepSeek; Ollama
async def test_reasoning_a_server_sends_in_its_own_field_is_not_the_answer(field):
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    # The openai types keep fields they do not know, as the SDK does with these servers' answers.
    whole = ChatCompletion.model_validate({
        "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Link 5.", field: "Maybe {4}."}}],
    }).model_dump(mode="json", exclude_unset=True)
    chunks = [ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                                  "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).model_dump(mode="json", exclude_unset=True)
              for delta, finish in (({field: "Maybe {4}."}, None), ({"content": "Link 5."}, None), ({}, "stop"))]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    transport, _ = mock(httpx.Response(200, json=whole), httpx.Response(200, headers={"content-type": "text/event-stream"}, content=sse.encode()))
    provider = openai(transport, "vllm")
    assert (await provider.complete(REQUEST)).text == "Link 5."
    assert "".join([d.text async for d in provider.stream(REQUEST)]) == "Link 5."


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
def test_reasoning_cut_from_a_stream_in_any_pieces_reads_as_the_whole_answer(size):
    from waymark.providers.textmode import ReasoningCutter, strip_reasoning

    answer = '<think>Maybe <b>4</b>, or {"ref": 4}?</think>\n\n{"action": {"type": "click", "ref": 5}} <'
    cutter = ReasoningCutter()
    streamed = "".join(cutter.feed(answer[i:i + size]) for i in range(0, len(answer), size)) + cutter.end()
    assert streamed == strip_reasoning(answer) == '{"action": {"type": "click", "ref": 5}} <'


async def test_reasoning_tokens_are_counted_in_the_output_tokens():
    data = chat_completion("Done.", completion_tokens_details={"reasoning_tokens": 24})
    transport, _ = mock(httpx.Response(200, json=data))
    completion = await openai(transport).complete(REQUEST)
    # OpenAI's completion_tokens already include the reasoning tokens the model billed.
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (10, 30)


def test_a_llamacpp_server_is_never_sent_tool_choice_required():
    provider = registry.create("openai_compat", "m", preset="llamacpp", native_tools=True)
    tools = [Tool(name="click", parameters={"type": "object", "properties": {"ref": {"type": "integer"}}})]
    body = provider.body(REQUEST.model_copy(update={"tools": tools, "tool_choice": "required"}), stream=False)
    assert body["tool_choice"] == "auto"


async def test_a_context_window_stop_is_a_length_finish():
    transport, _ = mock(httpx.Response(200, json=claude_message([{"type": "text", "text": "The order"}], "model_context_window_exceeded")))
    completion = await anthropic(transport).complete(REQUEST)
    assert completion.finish_reason == "length" and completion.text == "The order"


async def test_a_paused_turn_is_handed_back_and_continued():
    paused = claude_message([{"type": "text", "text": "Looking at the page. "}], "pause_turn", 7)
    done = claude_message([{"type": "text", "text": "The cart is link 5."}], "end_turn", 9)
    transport, seen = mock(httpx.Response(200, json=paused), httpx.Response(200, json=done))
    completion = await anthropic(transport).complete(REQUEST)
    assert completion.text == "Looking at the page. The cart is link 5." and completion.finish_reason == "stop"
    assert completion.usage.output_tokens == 16
    resumed = json.loads(seen[1].content)
    assert resumed["messages"][-1] == {"role": "assistant", "content": paused["content"]}


def test_an_empty_tool_result_is_sent_without_an_empty_text_block():
    provider = registry.create("anthropic", "claude-x", api_key="k")
    messages = [Message.text("user", "go"), Message(role="tool", content=[], tool_call_id="toolu_1")]
    body = provider.body(CompletionRequest(messages=messages), stream=False)
    result = body["messages"][-1]["content"][-1]
    assert result == {"type": "tool_result", "tool_use_id": "toolu_1"}


@pytest.mark.parametrize(("kind", "error"), [
    ("billing_error", errors.QuotaExceeded), ("timeout_error", errors.Timeout), ("overloaded_error", errors.Unavailable),
    ("rate_limit_error", errors.RateLimited), ("authentication_error", errors.AuthError),
])
async def test_an_sse_error_event_is_the_typed_error_it_names(kind, error):
    from anthropic.types import ErrorResponse

    failure = ErrorResponse.model_validate({"type": "error", "error": {"type": kind, "message": "stream failed"}}).model_dump(mode="json", exclude_unset=True)
    events = (f'event: message_start\ndata: {json.dumps({"type": "message_start", "message": claude_message([], "end_turn") | {"stop_reason": None}})}\n\n'
              f'event: error\ndata: {json.dumps(failure)}\n\n')
    transport, _ = mock(httpx.Response(200, headers={"content-type": "text/event-stream"}, content=events.encode()))
    with pytest.raises(error):
        async for _ in anthropic(transport).stream(REQUEST.model_copy(update={"timeout": 5})):
            pass
