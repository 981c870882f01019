"""What OpenAI-compatible servers are sent: reasoning models' token limit, and schema-constrained
output in the form each local server reads. (Refusals, whole and streamed, are in the contract
suite's tests/contract/test_real_shapes.py.)"""

from __future__ import annotations

from waymark.providers import registry
from waymark.providers.base import CompletionRequest, Message

REQUEST = CompletionRequest(messages=[Message.text("user", "Pay the invoice.")], max_tokens=300)


def provider(preset: str):
    return registry.create("openai_compat", "m", preset=preset, api_key="k")


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


def test_llamacpp_is_asked_to_keep_the_prompt_cache_and_other_servers_are_not() -> None:
    assert provider("llamacpp").body(REQUEST, stream=False)["cache_prompt"] is True
    assert "cache_prompt" not in provider("openai").body(REQUEST, stream=False)
    assert "cache_prompt" not in provider("ollama").body(REQUEST, stream=True)
