"""What the real APIs send and a friendly fake never did, answered alike by every provider behind
HTTP: refusals and content filters, reasoning before the answer, tool calls without ids, errors
inside a stream, a 429 that names its delay only in its body, and Gemini's blocked prompts and
signed function calls. Every shape is built through the official SDK's types (fake_server.py)."""

from __future__ import annotations

import pytest

from tests.contract.backends import Backend, HTTPBackend, needs_http
from tests.contract.checks import check_tool_only
from tests.contract.fake_server import Reply
from waymark.providers import errors
from waymark.providers.base import Completion, CompletionRequest, LLMProvider, Message
from waymark.providers.streaming import join_deltas

CLICK = ("click", {"ref": 3, "thought": "add the item"})
CLICK_DECISION = {"thought": "add the item", "action": {"type": "click", "ref": 3}}
#: Reasoning with the braces and tags that would confuse a parser if it leaked into the answer.
THINKING = 'The cart is {probably} link 5, not <b>4</b>; the answer is {"ref": 4}? No.'
REFUSAL = "I can't help with buying that."

pytestmark = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


async def answer(provider: LLMProvider, request: CompletionRequest, streamed: bool) -> Completion:
    """The provider's answer, as one completion or as its stream joined."""
    if streamed:
        return join_deltas([d async for d in provider.stream(request)])
    return await provider.complete(request)


async def test_a_refusal_is_a_blocked_answer_that_keeps_its_text(backend: Backend, streamed: bool) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(refusal=REFUSAL))
    result = await answer(provider, backend.request(), streamed)
    assert result.finish_reason == "blocked"
    # Gemini's refusal is a SAFETY stop with no content: there is no text to keep.
    assert result.text == (None if backend.name == "gemini" else REFUSAL)


async def test_an_answer_a_content_filter_stopped_is_blocked(backend: Backend, streamed: bool) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(text="Here is how to", finish="blocked"))
    result = await answer(provider, backend.request(), streamed)
    assert (result.finish_reason, result.text) == ("blocked", "Here is how to")


async def test_reasoning_before_the_answer_never_reaches_its_text(backend: Backend, streamed: bool) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(thinking=THINKING, text="The cart is link 5.", chunks=7, usage=(12, 40)))
    result = await answer(provider, backend.request(), streamed)
    assert (result.text, result.finish_reason) == ("The cart is link 5.", "stop")
    assert result.usage == backend.expected_usage(Reply(usage=(12, 40)))


async def test_reasoning_before_a_tool_call_leaves_the_decision_alone(backend: Backend, streamed: bool) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(thinking=THINKING, tool_calls=[CLICK], chunks=5))
    result = await answer(provider, backend.request(tools=True), streamed)
    check_tool_only(result, provider.capabilities(), CLICK_DECISION)


async def test_tool_calls_get_distinct_ids_even_when_the_backend_gives_none(backend: Backend, streamed: bool) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(tool_calls=[CLICK, ("done", {"result": "added"})]))
    result = await answer(provider, backend.request(tools=True), streamed)
    ids = [c.id for c in result.tool_calls]
    assert len(ids) == 2 and all(ids) and len(set(ids)) == 2


@pytest.mark.parametrize(("status", "error"), [(500, errors.Unavailable), (429, errors.RateLimited)], ids=["server", "rate"])
async def test_an_error_inside_a_stream_is_the_typed_error_it_names(backend: Backend, streamed: bool, status: int, error: type) -> None:
    needs_http(backend)
    if not streamed:
        pytest.skip("an error inside a stream needs a stream")
    provider = await backend.make(Reply(text="A partial answer that", chunks=3, stream_error=status))
    with pytest.raises(error):
        async for _ in provider.stream(backend.request()):
            pass


async def test_a_429_that_says_when_to_retry_only_in_its_body_is_rate_limited(backend: Backend, streamed: bool) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(status=429, retry_delay="7s"))
    with pytest.raises(errors.RateLimited) as limited:
        await answer(provider, backend.request(), streamed)
    # Only Google's errors carry a RetryInfo delay; without a Retry-After header the others have none.
    assert limited.value.retry_after == (7.0 if backend.name == "gemini" else None)


async def test_a_blocked_prompt_is_a_blocked_error(backend: Backend, streamed: bool) -> None:
    if backend.name != "gemini":
        pytest.skip("only Gemini answers a blocked prompt with promptFeedback and no candidates")
    provider = await backend.make(Reply(prompt_blocked=True, usage=(9, 0)))
    with pytest.raises(errors.Blocked, match="SAFETY"):
        await answer(provider, backend.request(), streamed)


async def test_a_function_call_made_while_thinking_goes_back_with_its_signature(backend: Backend, streamed: bool) -> None:
    if backend.name != "gemini":
        pytest.skip("only Gemini signs its function calls (thoughtSignature) and needs them back")
    assert isinstance(backend, HTTPBackend)
    provider = await backend.make(Reply(thinking=THINKING, tool_calls=[CLICK]), Reply(text="Added."))
    first = backend.request(tools=True)
    call = (await answer(provider, first, streamed)).tool_calls[0]
    assert call.signature
    follow_up = first.model_copy(update={"messages": [*first.messages, Message(role="assistant", tool_calls=[call]),
                                                      Message.text("tool", "clicked", tool_call_id=call.id, name=call.name)]})
    await answer(provider, follow_up, streamed)
    sent = backend.server.seen[-1].body["contents"]
    assert sent[1]["parts"][0]["thoughtSignature"] == call.signature
