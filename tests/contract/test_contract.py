"""The behavioural contract every provider must meet: same answers, same meanings, same typed
errors, whatever the backend. Parametrised over every provider in the registry (conftest.py)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import re

import pytest

from tests.contract.backends import TINY_JPEG, Backend, HTTPBackend, needs_http
from tests.contract.checks import (
    check_joined,
    check_plain_text,
    check_tool_and_text,
    check_tool_only,
    check_usage,
)
from tests.contract.fake_server import Reply
from waymark.host.agent.parsing import ParseFailure, parse_decision
from waymark.providers import errors
from waymark.providers.base import Delta
from waymark.providers.retry import RetryPolicy
from waymark.providers.streaming import join_deltas

CLICK = ("click", {"ref": 3, "thought": "add the item"})
CLICK_DECISION = {"thought": "add the item", "action": {"type": "click", "ref": 3}}

MALFORMED = {
    "no_json": "I would click the Add to cart button.",
    "truncated": '{"thought": "the cart button is visible so I will click',
    "malformed": "{'action': {'type': 'click', 'ref': 3}}",
    "multi_root": '{"action": {"type": "click", "ref": 3}} {"action": {"type": "done"}}',
    "shape": '{"action": {"type": "fly", "ref": 3}}',
}


# ------------------------------------------------------------------ answers


async def test_plain_text_reply_is_returned_as_text(backend: Backend) -> None:
    provider = await backend.make(Reply(text="The page sells one item: a red mug."))
    result = await provider.complete(backend.request())
    check_plain_text(result, "The page sells one item: a red mug.")


async def test_tool_only_reply_carries_the_decision(backend: Backend) -> None:
    provider = await backend.make(Reply(tool_calls=[CLICK]))
    result = await provider.complete(backend.request(tools=True))
    check_tool_only(result, provider.capabilities(), CLICK_DECISION)


async def test_tool_call_with_text_keeps_both(backend: Backend) -> None:
    provider = await backend.make(Reply(text="I will add it.", tool_calls=[CLICK]))
    result = await provider.complete(backend.request(tools=True))
    check_tool_and_text(result, provider.capabilities(), "I will add it.", CLICK_DECISION)


async def test_tool_call_the_backend_labels_stop_is_still_a_tool_call(backend: Backend) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(tool_calls=[CLICK], label_tool_calls_as_stop=True))
    result = await provider.complete(backend.request(tools=True))
    check_tool_only(result, provider.capabilities(), CLICK_DECISION)


async def test_reply_cut_by_max_tokens_finishes_with_length(backend: Backend) -> None:
    if backend.name == "scripted":
        pytest.skip("a script has no token limit")
    provider = await backend.make(Reply(text="Some words", finish="length"))
    result = await provider.complete(backend.request(max_tokens=8))
    assert result.finish_reason == "length"
    assert result.text and result.text.startswith("Some words")


@pytest.mark.parametrize("kind", list(MALFORMED))
async def test_malformed_json_in_text_comes_back_verbatim_and_fails_with_its_kind(backend: Backend, kind: str) -> None:
    provider = await backend.make(Reply(text=MALFORMED[kind]))
    result = await provider.complete(backend.request())
    assert result.text == MALFORMED[kind]
    with pytest.raises(ParseFailure) as failure:
        parse_decision(result.text)
    assert failure.value.kind == kind


async def test_tools_reach_the_backend(backend: Backend) -> None:
    needs_http(backend)
    assert isinstance(backend, HTTPBackend)
    provider = await backend.make(Reply(text="ok"))
    await provider.complete(backend.request(tools=True))
    body = str(backend.server.seen[-1].body)
    assert "click" in body and "Click the element with this ref." in body


# ------------------------------------------------------------------ usage


async def test_usage_is_reported_as_counted(backend: Backend) -> None:
    reply = Reply(text="Counted.", usage=(42, 7))
    provider = await backend.make(reply)
    result = await provider.complete(backend.request())
    check_usage(result, backend.expected_usage(reply))


async def test_usage_is_none_when_the_backend_reports_none(backend: Backend) -> None:
    reply = Reply(text="Not counted.", usage=None)
    provider = await backend.make(reply)
    result = await provider.complete(backend.request())
    check_usage(result, backend.expected_usage(reply))


# ------------------------------------------------------------------ streaming


@pytest.mark.parametrize(
    "reply",
    [
        Reply(text="A streamed answer in several pieces.", usage=(10, 6)),
        Reply(text="Adding it now.", tool_calls=[CLICK], usage=(11, 4)),
        Reply(tool_calls=[CLICK]),
    ],
    ids=["text", "tool+text", "tool"],
)
async def test_streamed_deltas_join_to_the_complete_result(backend: Backend, reply: Reply) -> None:
    provider = await backend.make(reply)
    whole = await provider.complete(backend.request(tools=bool(reply.tool_calls)))
    deltas = [d async for d in provider.stream(backend.request(tools=bool(reply.tool_calls)))]
    check_joined(join_deltas(deltas), whole)
    assert sum(1 for d in deltas if d.finish_reason is not None) == 1, "exactly one delta finishes the stream"
    assert deltas[-1].finish_reason is not None


async def test_text_streams_in_more_than_one_delta(backend: Backend) -> None:
    provider = await backend.make(Reply(text="One, two, three, four, five pieces.", chunks=4))
    deltas = [d async for d in provider.stream(backend.request())]
    assert len([d for d in deltas if d.text]) > 1


async def test_cancelling_a_stream_ends_it_cleanly(backend: Backend) -> None:
    long_text = " ".join(f"w{i}" for i in range(120))
    provider = await backend.make(Reply(text=long_text, chunks=40, chunk_delay=0.05, finish="length"))
    first = asyncio.Event()
    received: list[Delta] = []

    async def consume() -> None:
        async with contextlib.aclosing(provider.stream(backend.request(max_tokens=4000))) as stream:
            async for delta in stream:
                received.append(delta)
                first.set()
                await asyncio.sleep(0.05)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(d.finish_reason for d in received), "the stream was cut before it finished"
    # The same provider answers the next request normally.
    result = await provider.complete(backend.request(max_tokens=20))
    assert result.text is not None and result.text.startswith("w0 w1")


# ------------------------------------------------------------------ images


async def test_image_part_is_accepted_or_refused_with_capability_error(backend: Backend) -> None:
    provider = await backend.make(Reply(text="I see an image."))
    if provider.capabilities().vision:
        result = await provider.complete(backend.request(image=True))
        assert result.text == "I see an image."
        if isinstance(backend, HTTPBackend):
            body = str(backend.server.seen[-1].body)
            sent = {TINY_JPEG, base64.urlsafe_b64encode(base64.b64decode(TINY_JPEG)).decode()}
            assert any(b64 in body for b64 in sent), "the image reached the backend"
    else:
        with pytest.raises(errors.CapabilityError):
            await provider.complete(backend.request(image=True))


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(status=401), errors.AuthError),
        (Reply(status=429, retry_after="7"), errors.RateLimited),
        (Reply(status=500), errors.Unavailable),
        (Reply(text="late", delay=3.0), errors.Timeout),
    ],
    ids=["401", "429", "500", "timeout"],
)
async def test_backend_failures_become_the_same_typed_errors(backend: Backend, reply: Reply, error: type[errors.ProviderError]) -> None:
    if backend.name == "mlx":
        pytest.skip("mlx runs in-process: no HTTP failures (its timeout has its own test)")
    provider = await backend.make(reply)
    # Only the late reply is meant to meet the deadline; a loaded machine must not turn a 401 into a timeout.
    with pytest.raises(error) as raised:
        await provider.complete(backend.request(timeout=0.5 if reply.delay else 60.0))
    if isinstance(raised.value, errors.RateLimited):
        assert raised.value.retry_after == 7


async def test_failure_while_opening_a_stream_is_the_same_typed_error(backend: Backend) -> None:
    if backend.name == "mlx":
        pytest.skip("mlx runs in-process: no HTTP failures")
    provider = await backend.make(Reply(status=401))
    with pytest.raises(errors.AuthError):
        async for _ in provider.stream(backend.request()):
            pass


async def test_refused_connection_is_unavailable_and_names_the_address_tried(backend: Backend) -> None:
    needs_http(backend)
    assert isinstance(backend, HTTPBackend)
    provider = await backend.unreachable()
    with pytest.raises(errors.Unavailable) as raised:
        await provider.complete(backend.request(timeout=60))
    assert re.search(r"cannot connect to http://127\.0\.0\.1:\d+\S*\. Is the server running there\?", str(raised.value)), str(raised.value)


async def test_generation_past_the_timeout_is_a_timeout(backend: Backend) -> None:
    if backend.name != "mlx":
        pytest.skip("the HTTP providers' timeout is a backend failure case above")
    provider = await backend.make(Reply(text="again and again", finish="length"))
    with pytest.raises(errors.Timeout):
        await provider.complete(backend.request(max_tokens=1_000_000, timeout=0.3))


async def test_rate_limit_is_retried_after_the_servers_delay_and_then_succeeds(backend: Backend) -> None:
    if backend.name == "mlx":
        pytest.skip("mlx runs in-process: nothing rate-limits it")
    policy = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
    provider = await backend.make(Reply(status=429, retry_after="0"), Reply(text="second time lucky"), retry=policy)
    result = await provider.complete(backend.request())
    assert result.text == "second time lucky"
    if isinstance(backend, HTTPBackend):
        assert len(backend.server.seen) == 2


async def test_auth_error_is_not_retried(backend: Backend) -> None:
    needs_http(backend)
    assert isinstance(backend, HTTPBackend)
    provider = await backend.make(Reply(status=401), Reply(text="never reached"), retry=RetryPolicy(attempts=3, base_delay=0.01))
    with pytest.raises(errors.AuthError):
        await provider.complete(backend.request())
    assert len(backend.server.seen) == 1


# ------------------------------------------------------------------ reachability (`waymark providers`)


async def test_ping_reaches_the_backend_with_the_key(backend: Backend) -> None:
    provider = await backend.make(Reply(text="unused"))
    answer = await provider.ping(5)
    if isinstance(backend, HTTPBackend):
        assert answer.startswith("answered")
        seen = backend.server.seen[-1]
        assert seen.method == "GET" and "test-key" in " ".join(seen.headers.values())
    else:
        assert answer == "in-process"


async def test_ping_with_a_refused_key_is_an_auth_error(backend: Backend) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(status=401))
    with pytest.raises(errors.AuthError):
        await provider.ping(5)


async def test_ping_of_an_unreachable_backend_is_unavailable(backend: Backend) -> None:
    needs_http(backend)
    assert isinstance(backend, HTTPBackend)
    with pytest.raises(errors.Unavailable):
        await (await backend.unreachable()).ping(5)


async def test_stream_that_breaks_off_is_unavailable_not_a_short_answer(backend: Backend) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(text="A long answer that will not arrive whole.", chunks=6, cut_after=3))
    with pytest.raises(errors.Unavailable):
        async for _ in provider.stream(backend.request()):
            pass


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("This model's maximum context length is 8192 tokens, you asked for 9000", errors.ContextTooLong),
        ("tools[0].name must match ^[a-z_]+$", errors.BadRequest),
    ],
    ids=["context", "other"],
)
async def test_rejected_request_is_bad_request_or_context_too_long(backend: Backend, message: str, error: type[errors.ProviderError]) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(status=400, message=message))
    with pytest.raises(error) as raised:
        await provider.complete(backend.request())
    assert type(raised.value) is error


async def test_stream_that_stalls_past_the_timeout_is_a_timeout(backend: Backend) -> None:
    needs_http(backend)
    provider = await backend.make(Reply(text="slow pieces of text", chunks=5, chunk_delay=1.0))
    with pytest.raises(errors.Timeout):
        async for _ in provider.stream(backend.request(timeout=0.5)):
            pass
