"""The fakes cannot lie: every answer the contract server sends passes through the official
SDK's own types, and a shape the real API would never send is refused."""

from __future__ import annotations

import pytest

from tests.contract.fake_server import Anthropic, OpenAI, Reply, wire

COMPLETION = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
              "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}]}


def test_a_field_the_api_never_sends_is_refused():
    from openai.types.chat import ChatCompletion

    with pytest.raises(AssertionError, match="never sends: \\['mood'\\]"):
        wire(ChatCompletion, {**COMPLETION, "choices": [{**COMPLETION["choices"][0], "mood": "happy"}]})


def test_a_field_the_api_always_sends_cannot_be_left_out():
    from openai.types.chat import ChatCompletion

    with pytest.raises(ValueError, match="created"):
        wire(ChatCompletion, {k: v for k, v in COMPLETION.items() if k != "created"})


def test_every_protocols_answers_pass_their_sdk_types():
    reply = Reply(text="Adding it now.", tool_calls=[("click", {"ref": 3})], usage=(11, 4))
    for protocol in (OpenAI(), Anthropic()):
        assert protocol.whole(reply, "m")
        assert protocol.events(reply, "m")
