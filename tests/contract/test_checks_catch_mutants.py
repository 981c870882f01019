"""A provider that changes what a return value means must fail the contract: each mutant below
wraps a real provider and bends one meaning; the contract's checks must reject it."""

from __future__ import annotations

import json
from typing import AsyncIterator, Callable

import pytest

from tests.contract.backends import ScriptedBackend
from tests.contract.checks import (
    check_joined,
    check_plain_text,
    check_tool_only,
    check_usage,
)
from tests.contract.fake_server import Reply
from tests.contract.test_contract import CLICK, CLICK_DECISION
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    LLMProvider,
    Usage,
)
from waymark.providers.streaming import join_deltas

Mutation = Callable[[Completion], Completion]


class Mutant(LLMProvider):
    """A real provider whose answers pass through `mutate`."""

    name = "mutant"

    def __init__(self, inner: LLMProvider, mutate: Mutation) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.mutate = mutate

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    async def complete(self, request: CompletionRequest) -> Completion:
        return self.mutate(await self.inner.complete(request))

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        async for delta in self.inner.stream(request):
            yield delta


async def _mutant(reply: Reply, mutate: Mutation) -> tuple[Mutant, ScriptedBackend]:
    backend = ScriptedBackend()
    return Mutant(await backend.make(reply), mutate), backend


async def test_tool_call_reported_as_stop_fails_the_contract() -> None:
    provider, backend = await _mutant(Reply(tool_calls=[CLICK]), lambda c: c.model_copy(update={"finish_reason": "stop"}))
    result = await provider.complete(backend.request(tools=True))
    with pytest.raises(AssertionError):
        check_tool_only(result, provider.capabilities(), CLICK_DECISION)


async def test_tool_call_moved_into_text_fails_the_contract_for_a_native_provider() -> None:
    def into_text(c: Completion) -> Completion:
        call = c.tool_calls[0]
        return c.model_copy(update={"text": json.dumps({"action": {"type": call.name, **call.arguments}}), "tool_calls": []})

    provider, backend = await _mutant(Reply(tool_calls=[CLICK]), into_text)
    result = await provider.complete(backend.request(tools=True))
    with pytest.raises(AssertionError):
        check_tool_only(result, provider.capabilities(), CLICK_DECISION)


async def test_invented_usage_fails_the_contract() -> None:
    reply = Reply(text="hello", usage=None)
    provider, backend = await _mutant(reply, lambda c: c.model_copy(update={"usage": Usage(input_tokens=0, output_tokens=0)}))
    result = await provider.complete(backend.request())
    with pytest.raises(AssertionError):
        check_usage(result, backend.expected_usage(reply))


async def test_trimmed_text_fails_the_contract() -> None:
    provider, backend = await _mutant(Reply(text="hello there"), lambda c: c.model_copy(update={"text": (c.text or "")[:5]}))
    result = await provider.complete(backend.request())
    with pytest.raises(AssertionError):
        check_plain_text(result, "hello there")


async def test_stream_that_drops_its_usage_fails_the_contract() -> None:
    provider, backend = await _mutant(Reply(text="hello there", usage=(3, 2)), lambda c: c)
    whole = await provider.complete(backend.request())
    deltas = [d.model_copy(update={"usage": None}) async for d in provider.stream(backend.request())]
    with pytest.raises(AssertionError):
        check_joined(join_deltas(deltas), whole)
