"""How the normalised request becomes each wire format: presets, JSON-in-text, tool history,
images and tool choice."""

from __future__ import annotations

import pytest

from waymark.providers import errors, registry
from waymark.providers.base import (
    CompletionRequest,
    ImagePart,
    Message,
    TextPart,
    Tool,
    ToolCall,
)

TOOLS = [Tool(name="click", description="Click a ref.", parameters={"type": "object", "properties": {"ref": {"type": "integer"}}})]
HISTORY = [
    Message.text("system", "Be careful."),
    Message.text("user", "Add the mug."),
    Message(role="assistant", tool_calls=[ToolCall(id="c1", name="click", arguments={"ref": 3, "thought": "add"})]),
    Message.text("tool", "clicked; url is /cart", tool_call_id="c1", name="click"),
]


def openai(preset: str = "openai", **kw: object):
    return registry.create("openai_compat", "m", preset=preset, api_key="k", **kw)


def test_native_preset_sends_tools_and_tool_history_natively() -> None:
    body = openai().body(CompletionRequest(messages=HISTORY, tools=TOOLS), stream=False)
    assert body["tools"][0]["function"]["name"] == "click"
    assert body["messages"][2]["tool_calls"][0]["function"] == {"name": "click", "arguments": '{"ref": 3, "thought": "add"}'}
    assert body["messages"][3] == {"role": "tool", "content": "clicked; url is /cart", "tool_call_id": "c1"}


@pytest.mark.parametrize("preset", ["vllm", "llamacpp"])
def test_text_mode_preset_describes_tools_in_the_prompt_and_sends_none(preset: str) -> None:
    body = openai(preset).body(CompletionRequest(messages=HISTORY, tools=TOOLS), stream=False)
    assert "tools" not in body
    assert "click: Click a ref." in body["messages"][0]["content"]
    assert body["messages"][2] == {"role": "assistant", "content": '{"thought": "add", "action": {"type": "click", "ref": 3}}'}
    assert body["messages"][3]["role"] == "user" and "clicked; url is /cart" in body["messages"][3]["content"]


def test_named_tool_choice_forces_that_function() -> None:
    body = openai().body(CompletionRequest(messages=HISTORY, tools=TOOLS, tool_choice="click"), stream=False)
    assert body["tool_choice"] == {"type": "function", "function": {"name": "click"}}


def test_images_go_as_data_urls() -> None:
    msg = Message(role="user", content=[TextPart(text="look"), ImagePart(data_b64="QUJD")])
    body = openai().body(CompletionRequest(messages=[msg]), stream=False)
    assert body["messages"][0]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}}


def test_text_only_preset_refuses_images_with_a_capability_error() -> None:
    msg = Message(role="user", content=[ImagePart(data_b64="QUJD")])
    with pytest.raises(errors.CapabilityError):
        openai("ollama").body(CompletionRequest(messages=[msg]), stream=False)


def test_streaming_asks_for_usage() -> None:
    assert openai().body(CompletionRequest(messages=HISTORY), stream=True)["stream_options"] == {"include_usage": True}


def test_cloud_preset_without_a_key_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with pytest.raises(errors.AuthError):
        registry.create("openai_compat", "m", preset="openrouter")


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(errors.ProviderNotConfigured):
        registry.create("openai_compat", "m", preset="nope")


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(errors.ProviderNotConfigured):
        registry.create("nope", "m")


def test_anthropic_puts_system_apart_and_tool_results_in_a_user_turn() -> None:
    body = registry.create("anthropic", "claude", api_key="k").body(CompletionRequest(messages=HISTORY, tools=TOOLS, tool_choice="required"), stream=False)
    assert body["system"] == "Be careful."
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [{"type": "tool_use", "id": "c1", "name": "click", "input": {"ref": 3, "thought": "add"}}]
    assert body["messages"][2]["content"][0]["type"] == "tool_result" and body["messages"][2]["content"][0]["tool_use_id"] == "c1"
    assert body["tool_choice"] == {"type": "any"}
    assert body["tools"][0]["input_schema"] == TOOLS[0].parameters


def test_gemini_sends_function_calls_back_with_their_signature() -> None:
    history = list(HISTORY)
    history[2] = Message(role="assistant", tool_calls=[ToolCall(id="c1", name="click", arguments={"ref": 3}, signature="c2ln")])
    gemini = registry.create("gemini", "gemini-x", api_key="k")
    contents = gemini.contents(CompletionRequest(messages=history, tools=TOOLS))
    assert [c.role for c in contents] == ["user", "model", "user"]
    call = contents[1].parts[0]
    assert call.function_call.name == "click" and call.thought_signature == b"sig"
    assert contents[2].parts[0].function_response.name == "click"
    config = gemini.config(CompletionRequest(messages=history, tools=TOOLS, response_schema={"type": "object"}))
    assert config.system_instruction == "Be careful." and config.response_mime_type == "application/json"
    assert config.automatic_function_calling.disable is True
