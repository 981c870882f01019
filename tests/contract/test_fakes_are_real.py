"""The fakes cannot lie: every answer the contract server sends passes through the official
SDK's own types, and a shape the real API would never send is refused."""

from __future__ import annotations

import pytest

from tests.contract.fake_server import Anthropic, Gemini, OpenAI, Reply, wire

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


@pytest.mark.parametrize("reply", [
    Reply(text="Adding it now.", tool_calls=[("click", {"ref": 3})], usage=(11, 4)),
    Reply(thinking="The cart is link 5.", text="Done.", tool_calls=[("click", {"ref": 5})], usage=(11, 4)),
    Reply(refusal="I can't help with that."),
    Reply(text="Here is how", finish="blocked"),
    Reply(text="Partial", stream_error=500),
    Reply(prompt_blocked=True),
], ids=["tool+text", "thinking", "refusal", "filtered", "stream_error", "prompt_blocked"])
def test_every_protocols_answers_pass_their_sdk_types(reply):
    for protocol in (OpenAI(), Anthropic(), Gemini()):
        assert protocol.whole(reply, "m")
        assert protocol.events(reply, "m")


def test_a_refused_key_is_answered_as_each_api_answers_it():
    bad_key = Reply(status=401)
    assert OpenAI().error(bad_key)["error"]["code"] == "invalid_api_key"
    assert Anthropic().error(bad_key)["error"]["type"] == "authentication_error"
    # Google answers a wrong key with 400 INVALID_ARGUMENT, the reason in an ErrorInfo detail.
    google = Gemini().error(bad_key)["error"]
    assert (Gemini().status(bad_key), google["status"], google["details"][0]["reason"]) == (400, "INVALID_ARGUMENT", "API_KEY_INVALID")
