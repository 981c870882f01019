"""Any OpenAI-compatible chat-completions server over httpx: OpenAI, OpenRouter, Ollama,
LM Studio, vLLM, llama.cpp server. Native tool calls where the preset supports them,
JSON-in-text otherwise; SSE streaming."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator

from waymark.providers import errors, openai_responses
from waymark.providers.base import (
    RAW_ARGUMENTS_KEY,
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    FinishReason,
    ImagePart,
    Message,
    TextPart,
    ToolCall,
    Usage,
)
from waymark.providers.computer_use import screenshot_size
from waymark.providers.config import resolve_key
from waymark.providers.deadline import Deadline
from waymark.providers.http import HTTPProvider, error_for_status
from waymark.providers.retry import RetryPolicy
from waymark.providers.textmode import (
    ReasoningCutter,
    flatten_messages,
    strip_reasoning,
)


@dataclass(frozen=True)
class Preset:
    """A known server: where it listens and what it supports by default."""

    base_url: str
    native_tools: bool
    json_schema: bool
    vision: bool
    context_tokens: int
    needs_key: bool


#: vLLM and llama.cpp answer tool calls only when started with extra flags, so they default to JSON-in-text.
#: Ollama (0.5 and later) reads `response_format` json_schema on its OpenAI-compatible endpoint
#: as its own `format` (grammar-constrained output); a top-level `format` there is ignored.
PRESETS: dict[str, Preset] = {
    "openai": Preset("https://api.openai.com/v1", True, True, True, 128_000, True),
    "openrouter": Preset("https://openrouter.ai/api/v1", True, True, True, 128_000, True),
    "ollama": Preset("http://127.0.0.1:11434/v1", True, True, False, 8_192, False),
    "lmstudio": Preset("http://127.0.0.1:1234/v1", True, True, False, 8_192, False),
    "vllm": Preset("http://127.0.0.1:8000/v1", False, True, False, 8_192, False),
    "llamacpp": Preset("http://127.0.0.1:8080/v1", False, True, False, 8_192, False),
}

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "blocked",
}


def _finish(raw: str | None, has_tool_calls: bool) -> FinishReason:
    """Normalised finish reason. Some servers (Ollama) say "stop" for a tool call: a reply
    that carries tool calls finished for them, unless it was cut off."""
    reason = _FINISH.get(raw or "stop", "error")
    if has_tool_calls and reason == "stop":
        return "tool_calls"
    return reason


def _arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments arrive as a JSON string; unparseable ones are kept for the parser to name."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {RAW_ARGUMENTS_KEY: raw}
    return value if isinstance(value, dict) else {RAW_ARGUMENTS_KEY: raw}


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict) or raw.get("prompt_tokens") is None or raw.get("completion_tokens") is None:
        return None
    return Usage(input_tokens=int(raw["prompt_tokens"]), output_tokens=int(raw["completion_tokens"]))


#: An error inside a stream has no HTTP status: its code or type says which one it stands for.
_STREAM_ERROR_STATUS = {"rate_limit_exceeded": 429, "requests": 429, "tokens": 429, "invalid_api_key": 401,
                        "context_length_exceeded": 400, "invalid_request_error": 400}


def _stream_error(err: Any, provider: str) -> errors.ProviderError:
    """The typed error for `{"error": {...}}` sent after a stream began (a server failure unless it says otherwise)."""
    if not isinstance(err, dict):
        return errors.Unavailable(f"the stream failed: {err}"[:300], provider=provider)
    code, kind = str(err.get("code") or ""), str(err.get("type") or "")
    status = _STREAM_ERROR_STATUS.get(code) or _STREAM_ERROR_STATUS.get(kind) or 500
    return error_for_status(status, f"the stream failed: {err.get('message') or kind or 'error'}"[:300], provider=provider, code=code or kind)


class OpenAICompatProvider(HTTPProvider):
    """Chat completions against `base_url` (default: the preset's)."""

    name = "openai_compat"

    def __init__(
        self,
        model: str,
        *,
        preset: str = "openai",
        base_url: str | None = None,
        api_key: str | None = None,
        native_tools: bool | None = None,
        json_schema: bool | None = None,
        vision: bool | None = None,
        context_tokens: int | None = None,
        computer_use: bool = False,
        retry: RetryPolicy | None = None,
        **kw: Any,
    ) -> None:
        if preset not in PRESETS:
            raise errors.ProviderNotConfigured(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}", provider=self.name)
        if computer_use and preset != "openai":
            raise errors.ProviderNotConfigured(f"computer_use needs OpenAI's Responses API (preset openai), not {preset}", provider=self.name)
        p = PRESETS[preset]
        super().__init__(model, base_url=base_url or p.base_url, retry=retry, **kw)
        self.preset = preset
        self.api_key = resolve_key(self.name, preset, api_key)
        if p.needs_key and not self.api_key and base_url is None:
            raise errors.AuthError(f"no API key for {preset}: set {preset.upper()}_API_KEY", provider=self.name)
        self._caps = Capabilities(
            native_tools=p.native_tools if native_tools is None else native_tools,
            json_schema=p.json_schema if json_schema is None else json_schema,
            vision=p.vision if vision is None else vision,
            streaming=True,
            context_tokens=context_tokens or p.context_tokens,
            screen=computer_use,
        )
        self.computer_use = computer_use

    def capabilities(self) -> Capabilities:
        return self._caps

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    # -- request

    def _content(self, msg: Message) -> Any:
        if all(isinstance(p, TextPart) for p in msg.content):
            return msg.plain_text()
        parts: list[dict[str, Any]] = []
        for part in msg.content:
            if isinstance(part, TextPart):
                parts.append({"type": "text", "text": part.text})
            else:
                parts.append({"type": "image_url", "image_url": {"url": f"data:{part.media_type};base64,{part.data_b64}"}})
        return parts

    def _message(self, msg: Message) -> dict[str, Any]:
        out: dict[str, Any] = {"role": msg.role, "content": self._content(msg)}
        if msg.role == "assistant" and msg.tool_calls:
            out["content"] = msg.plain_text() or None
            out["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in msg.tool_calls
            ]
        if msg.role == "tool":
            out["tool_call_id"] = msg.tool_call_id
            out["content"] = msg.plain_text()
        return out

    def body(self, request: CompletionRequest, *, stream: bool) -> dict[str, Any]:
        """The chat-completions request body."""
        if not self._caps.vision and any(isinstance(p, ImagePart) for m in request.messages for p in m.content):
            raise errors.CapabilityError(f"{self.model} via {self.preset} takes no images (set vision=True if it does)", provider=self.name)
        native = self._caps.native_tools and bool(request.tools)
        messages = request.messages if native or not request.tools else flatten_messages(request.messages, request.tools, request.tool_choice)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [self._message(m) for m in messages],
        }
        # OpenAI's reasoning models refuse `max_tokens`; local servers know only that name.
        body["max_completion_tokens" if self.preset == "openai" else "max_tokens"] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if native:
            body["tools"] = [
                {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in request.tools
            ]
            choice = request.tool_choice
            if choice == "required" and self.preset == "llamacpp":
                choice = "auto"  # llama-cpp-python's server answers "required" with HTTP 500 and an empty message
            body["tool_choice"] = choice if choice in ("auto", "none", "required") else {"type": "function", "function": {"name": choice}}
        if request.response_schema is not None and self._caps.json_schema:
            if self.preset == "llamacpp":
                # llama-cpp-python's server refuses "json_schema" (HTTP 500); both llama.cpp servers
                # constrain output to a schema given this way.
                body["response_format"] = {"type": "json_object", "schema": request.response_schema}
            else:
                body["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": request.response_schema}}
        if self.preset == "llamacpp":
            # llama.cpp's server keeps a slot's processed prompt for the next request that starts
            # the same way (the executor's prompt puts what holds for the run first);
            # llama-cpp-python's server reuses the longest common prefix by itself and ignores it.
            body["cache_prompt"] = True
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    # -- interface

    def _display(self, request: CompletionRequest) -> tuple[int, int] | None:
        """Computer-use mode for this request: on, the executor's tools, and a screenshot's size."""
        return screenshot_size(request) if self.computer_use and request.tools else None

    async def _complete_on_screen(self, request: CompletionRequest, display: tuple[int, int]) -> Completion:
        """The computer-use model through the Responses API (chat completions have no computer tool)."""
        started = time.perf_counter()
        body = openai_responses.body(request, self.model, display)
        data = await self.post_json("/responses", body, Deadline(request.timeout, self.name))
        if not isinstance(data, dict) or not isinstance(data.get("output"), list):
            raise errors.Unavailable("the answer has no output", provider=self.name)
        return openai_responses.completion(data, self.model, (time.perf_counter() - started) * 1000)

    async def complete(self, request: CompletionRequest) -> Completion:
        display = self._display(request)
        if display:
            return await self._complete_on_screen(request, display)
        started = time.perf_counter()
        body = self.body(request, stream=False)
        data = await self.post_json("/chat/completions", body, Deadline(request.timeout, self.name))
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError):
            raise errors.Unavailable("the answer has no choices", provider=self.name) from None
        calls = [
            ToolCall(id=c.get("id") or f"call_{i}", name=c["function"]["name"], arguments=_arguments(c["function"].get("arguments")))
            for i, c in enumerate(message.get("tool_calls") or [])
        ]
        refusal = message.get("refusal")
        return Completion(
            # Reasoning comes as `reasoning_content` (ignored) or inline <think> blocks (cut).
            text=refusal or strip_reasoning(message.get("content") or "") or None,
            tool_calls=calls,
            # A refusal arrives with finish "stop": it is the model declining, not an answer.
            finish_reason="blocked" if refusal else _finish(choice.get("finish_reason"), bool(calls)),
            usage=_usage(data.get("usage")),
            model=data.get("model") or self.model,
            latency_ms=(time.perf_counter() - started) * 1000,
        )

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        display = self._display(request)
        if display:
            # A computer-use turn is one action: it is answered whole, as one delta.
            whole = await self._complete_on_screen(request, display)
            yield Delta(text=whole.text or "", tool_calls=whole.tool_calls, finish_reason=whole.finish_reason, usage=whole.usage)
            return
        body = self.body(request, stream=True)
        deadline = Deadline(request.timeout, self.name)
        response = await self.open_stream("/chat/completions", body, deadline)
        # Tool calls arrive as fragments keyed by index; they are emitted whole at the end.
        pending: dict[int, dict[str, Any]] = {}
        raw_finish: str | None = None
        usage: Usage | None = None
        done = False
        refused = False
        reasoning = ReasoningCutter()
        async with contextlib.aclosing(self.events(response, deadline)) as events:
            async for _event, data in events:
                if data.strip() == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise errors.Unavailable("the stream sent something that is not JSON", provider=self.name) from None
                if isinstance(chunk, dict) and "error" in chunk:
                    raise _stream_error(chunk["error"], self.name)
                usage = _usage(chunk.get("usage")) or usage
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    for frag in delta.get("tool_calls") or []:
                        slot = pending.setdefault(int(frag.get("index", 0)), {"id": None, "name": "", "arguments": ""})
                        slot["id"] = frag.get("id") or slot["id"]
                        fn = frag.get("function") or {}
                        slot["name"] += fn.get("name") or ""
                        args = fn.get("arguments")
                        slot["arguments"] += args if isinstance(args, str) else (json.dumps(args) if args else "")
                    if choice.get("finish_reason"):
                        raw_finish = choice["finish_reason"]
                    visible = reasoning.feed(delta.get("content") or "")
                    if visible:
                        yield Delta(text=visible)
                    if delta.get("refusal"):
                        refused = True
                        yield Delta(text=delta["refusal"])
        if not done and raw_finish is None:
            raise errors.Unavailable("the stream ended before the answer did", provider=self.name)
        calls = [
            ToolCall(id=slot["id"] or f"call_{i}", name=slot["name"], arguments=_arguments(slot["arguments"]))
            for i, slot in sorted(pending.items())
        ]
        held = reasoning.end()
        if held:
            yield Delta(text=held)
        yield Delta(tool_calls=calls, finish_reason="blocked" if refused else _finish(raw_finish, bool(calls)), usage=usage)
