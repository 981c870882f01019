"""OpenAI-compatible answers the fakes never produced before: reasoning models' token limit,
refusals (whole and streamed), and schema-constrained output on llama.cpp servers. The cloud
answers come through httpx's MockTransport, at the HTTP boundary."""

from __future__ import annotations

import json

import httpx

from providers import registry
from providers.base import CompletionRequest, Message

REQUEST = CompletionRequest(messages=[Message.text("user", "Pay the invoice.")], max_tokens=300)


def provider(preset: str, handler=None, **kw: object):
    transport = httpx.MockTransport(handler) if handler else None
    return registry.create("openai_compat", "m", preset=preset, api_key="k", transport=transport, **kw)


def test_openai_gets_max_completion_tokens_which_reasoning_models_accept() -> None:
    body = provider("openai").body(REQUEST, stream=False)
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body


def test_local_servers_keep_max_tokens() -> None:
    body = provider("llamacpp").body(REQUEST, stream=False)
    assert body["max_tokens"] == 300 and "max_completion_tokens" not in body


def test_llamacpp_constrains_output_with_the_schema_form_its_server_accepts() -> None:
    schema = {"type": "object", "properties": {"steps": {"type": "array"}}, "required": ["steps"]}
    body = provider("llamacpp").body(REQUEST.model_copy(update={"response_schema": schema}), stream=False)
    assert body["response_format"] == {"type": "json_object", "schema": schema}


def test_ollama_constrains_output_with_response_format_which_its_openai_endpoint_reads_as_format() -> None:
    # Ollama's /v1 endpoint turns response_format json_schema into its native `format` (the
    # schema itself) and ignores a top-level `format`: the schema goes where it is read.
    schema = {"type": "object", "properties": {"steps": {"type": "array"}}, "required": ["steps"]}
    ollama = provider("ollama")
    body = ollama.body(REQUEST.model_copy(update={"response_schema": schema}), stream=False)
    assert ollama.capabilities().json_schema
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    assert "format" not in body


async def test_a_refusal_is_a_blocked_answer_that_keeps_its_text() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={
            "id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-x",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": None, "refusal": "I can't help with that."}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 6, "total_tokens": 15},
        })

    answer = await provider("openai", handler).complete(REQUEST)
    assert answer.finish_reason == "blocked"
    assert answer.text == "I can't help with that."


async def test_a_streamed_refusal_is_a_blocked_answer_that_keeps_its_text() -> None:
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x", "usage": None,
         "choices": [{"index": 0, "delta": {"role": "assistant", "refusal": "I can't "}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x", "usage": None,
         "choices": [{"index": 0, "delta": {"refusal": "help with that."}, "finish_reason": "stop"}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-x", "choices": [],
         "usage": {"prompt_tokens": 9, "completion_tokens": 6, "total_tokens": 15}},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=sse.encode(), headers={"content-type": "text/event-stream"})

    deltas = [d async for d in provider("openai", handler).stream(REQUEST)]
    assert "".join(d.text for d in deltas) == "I can't help with that."
    assert deltas[-1].finish_reason == "blocked"
    assert deltas[-1].usage is not None and deltas[-1].usage.output_tokens == 6
