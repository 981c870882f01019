"""Anthropic's Messages API over httpx: native tool use, images, SSE streaming."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any, AsyncIterator

from waymark.host.core.actions import ACT_TOOL
from waymark.providers import errors
from waymark.providers.base import (
    RAW_ARGUMENTS_KEY,
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    FinishReason,
    Message,
    TextPart,
    ToolCall,
    Usage,
)
from waymark.providers.computer_use import (
    ANTHROPIC_TOOL_BETAS,
    ANTHROPIC_TOOL_NAME,
    DEFAULT_ANTHROPIC_TOOL,
    AnthropicScreen,
    anthropic_action,
    fit_image,
    screenshot_size,
)
from waymark.providers.config import resolve_key
from waymark.providers.deadline import Deadline
from waymark.providers.http import HTTPProvider, error_for_status
from waymark.providers.retry import RetryPolicy

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"

_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    # The prompt and answer filled the model's whole window: cut short like max_tokens.
    "model_context_window_exceeded": "length",
    # A streamed turn the server paused is incomplete (complete() hands it back to continue).
    "pause_turn": "length",
    "tool_use": "tool_calls",
    "refusal": "blocked",
}

#: The error types of Anthropic's SSE `error` event, as the HTTP status they stand for.
_STREAM_ERROR_STATUS = {
    "overloaded_error": 529,
    "api_error": 500,
    "rate_limit_error": 429,
    "authentication_error": 401,
    "permission_error": 403,
    "invalid_request_error": 400,
    "not_found_error": 404,
    "request_too_large": 413,
    "timeout_error": 504,
    "billing_error": 402,
}
#: How often a paused turn (`pause_turn`) is handed back for the model to continue.
MAX_TURN_RESUMES = 3


def _finish(raw: str | None, has_tool_calls: bool) -> FinishReason:
    reason = _FINISH.get(raw or "end_turn", "error")
    return "tool_calls" if has_tool_calls and reason == "stop" else reason


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict) or raw.get("input_tokens") is None or raw.get("output_tokens") is None:
        return None
    return Usage(input_tokens=int(raw["input_tokens"]), output_tokens=int(raw["output_tokens"]))


def _blocks(msg: Message, fit: bool = False) -> list[dict[str, Any]]:
    """A message's content blocks; `fit`: images scaled down to what the model sees unscaled."""
    out: list[dict[str, Any]] = []
    for part in msg.content:
        if isinstance(part, TextPart):
            if part.text:
                out.append({"type": "text", "text": part.text})
        else:
            part = fit_image(part) if fit else part
            out.append({"type": "image", "source": {"type": "base64", "media_type": part.media_type, "data": part.data_b64}})
    return out


class AnthropicProvider(HTTPProvider):
    """Messages API at `base_url` (default Anthropic's)."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        context_tokens: int = 200_000,
        computer_use: bool = False,
        computer_tool: str = DEFAULT_ANTHROPIC_TOOL,
        retry: RetryPolicy | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(model, base_url=base_url or DEFAULT_BASE_URL, retry=retry, **kw)
        self.api_key = resolve_key(self.name, None, api_key)
        if not self.api_key:
            raise errors.AuthError("no API key: set ANTHROPIC_API_KEY", provider=self.name)
        if computer_tool not in ANTHROPIC_TOOL_BETAS:
            raise errors.ProviderNotConfigured(f"unknown computer tool {computer_tool!r}; known: {', '.join(ANTHROPIC_TOOL_BETAS)}", provider=self.name)
        self.computer_use = computer_use
        self.computer_tool = computer_tool
        self._caps = Capabilities(native_tools=True, json_schema=False, vision=True, streaming=True, context_tokens=context_tokens,
                                  screen=computer_use)

    ping_path = "/v1/models"

    def capabilities(self) -> Capabilities:
        return self._caps

    def headers(self) -> dict[str, str]:
        beta = {"anthropic-beta": ANTHROPIC_TOOL_BETAS[self.computer_tool]} if self.computer_use else {}
        return {"x-api-key": self.api_key or "", "anthropic-version": API_VERSION, **beta}

    def _screen(self, request: CompletionRequest) -> AnthropicScreen | None:
        """Computer-use mode for this request: on, and the screen of the screenshot to answer about."""
        size = screenshot_size(request) if self.computer_use and request.tools else None
        return AnthropicScreen(*size) if size else None

    def _call(self, index: int, call_id: str | None, name: str, arguments: dict[str, Any], screen: AnthropicScreen | None = None) -> ToolCall:
        """One tool_use block as a ToolCall; the computer tool's as the executor's `act`, its
        coordinates in the screenshot's pixels."""
        if self.computer_use and name == ANTHROPIC_TOOL_NAME:
            name, arguments = ACT_TOOL, screen.action(arguments) if screen else anthropic_action(arguments)
        return ToolCall(id=call_id or f"toolu_{index}", name=name, arguments=arguments)

    def body(self, request: CompletionRequest, *, stream: bool) -> dict[str, Any]:
        """The Messages request body: system apart, tool results as user blocks, same roles merged."""
        system = "\n\n".join(m.plain_text() for m in request.messages if m.role == "system")
        screen = self._screen(request)
        fit = bool(screen and screen.scaled)
        messages: list[dict[str, Any]] = []
        for msg in request.messages:
            if msg.role == "system":
                continue
            if msg.role == "tool":
                role = "user"
                # The API refuses an empty text block: a result with no content is sent without one.
                content = _blocks(msg, fit)
                blocks: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": msg.tool_call_id or "", **({"content": content} if content else {})}]
            else:
                role = msg.role
                blocks = _blocks(msg, fit)
                blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in msg.tool_calls]
            if messages and messages[-1]["role"] == role:
                messages[-1]["content"].extend(blocks)
            else:
                messages.append({"role": role, "content": blocks})
        body: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens, "messages": messages}
        if system:
            body["system"] = system
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in request.tools]
            if screen:
                # Declared the size of the screenshot as sent, the coordinates come back in its pixels.
                body["tools"].insert(0, {"type": self.computer_tool, "name": ANTHROPIC_TOOL_NAME,
                                         "display_width_px": screen.display[0], "display_height_px": screen.display[1]})
            choice = request.tool_choice
            body["tool_choice"] = {"type": {"auto": "auto", "none": "none", "required": "any"}[choice]} if choice in ("auto", "none", "required") else {"type": "tool", "name": choice}
        if stream:
            body["stream"] = True
        return body

    async def complete(self, request: CompletionRequest) -> Completion:
        started = time.perf_counter()
        deadline = Deadline(request.timeout, self.name)
        body = self.body(request, stream=False)
        screen = self._screen(request)
        content: list[dict[str, Any]] = []
        spent: list[Usage] = []
        for _ in range(MAX_TURN_RESUMES + 1):
            data = await self.post_json("/v1/messages", body, deadline)
            if not isinstance(data, dict) or not isinstance(data.get("content"), list):
                raise errors.Unavailable("the answer has no content", provider=self.name)
            content += data["content"]
            usage = _usage(data.get("usage"))
            if usage:
                spent.append(usage)
            if data.get("stop_reason") != "pause_turn":
                break
            # A paused turn goes back as it is, and the model continues it.
            body = {**body, "messages": [*body["messages"], {"role": "assistant", "content": data["content"]}]}
        texts = [b.get("text", "") for b in content if b.get("type") == "text"]
        calls = [
            self._call(i, b.get("id"), b["name"], b["input"] if isinstance(b.get("input"), dict) else {}, screen)
            for i, b in enumerate(content) if b.get("type") == "tool_use"
        ]
        stop = data.get("stop_reason")
        return Completion(
            text="".join(texts) or None,
            tool_calls=calls,
            # Still paused after the resumes: the answer is incomplete, like one cut at max_tokens.
            finish_reason="length" if stop == "pause_turn" else _finish(stop, bool(calls)),
            usage=Usage(input_tokens=sum(u.input_tokens for u in spent), output_tokens=sum(u.output_tokens for u in spent)) if spent else None,
            model=data.get("model") or self.model,
            latency_ms=(time.perf_counter() - started) * 1000,
        )

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        deadline = Deadline(request.timeout, self.name)
        response = await self.open_stream("/v1/messages", self.body(request, stream=True), deadline)
        screen = self._screen(request)
        tools: dict[int, dict[str, Any]] = {}
        stop_reason: str | None = None
        input_tokens: int | None = None
        output_tokens: int | None = None
        finished = False
        async with contextlib.aclosing(self.events(response, deadline)) as events:
            async for event, data in events:
                try:
                    payload = json.loads(data)
                except ValueError:
                    raise errors.Unavailable("the stream sent something that is not JSON", provider=self.name) from None
                kind = payload.get("type", event)
                if kind == "message_start":
                    usage = (payload.get("message") or {}).get("usage") or {}
                    input_tokens = usage.get("input_tokens", input_tokens)
                    output_tokens = usage.get("output_tokens", output_tokens)
                elif kind == "content_block_start":
                    block = payload.get("content_block") or {}
                    if block.get("type") == "tool_use":
                        tools[int(payload.get("index", 0))] = {"id": block.get("id"), "name": block.get("name", ""), "json": ""}
                    elif block.get("type") == "text" and block.get("text"):
                        yield Delta(text=block["text"])
                elif kind == "content_block_delta":
                    delta = payload.get("delta") or {}
                    if delta.get("type") == "text_delta" and delta.get("text"):
                        yield Delta(text=delta["text"])
                    elif delta.get("type") == "input_json_delta":
                        tools.setdefault(int(payload.get("index", 0)), {"id": None, "name": "", "json": ""})["json"] += delta.get("partial_json", "")
                elif kind == "message_delta":
                    stop_reason = (payload.get("delta") or {}).get("stop_reason") or stop_reason
                    usage = payload.get("usage") or {}
                    output_tokens = usage.get("output_tokens", output_tokens)
                    if usage.get("input_tokens") is not None:
                        input_tokens = usage["input_tokens"]
                elif kind == "message_stop":
                    finished = True
                    break
                elif kind == "error":
                    err = payload.get("error") or {}
                    kind = str(err.get("type", ""))
                    raise error_for_status(_STREAM_ERROR_STATUS.get(kind, 500), str(err.get("message", "stream error")), provider=self.name, code=kind)
        if not finished:
            raise errors.Unavailable("the stream ended before the answer did", provider=self.name)
        calls = []
        for i, slot in sorted(tools.items()):
            try:
                args = json.loads(slot["json"]) if slot["json"].strip() else {}
            except ValueError:
                args = {RAW_ARGUMENTS_KEY: slot["json"]}
            calls.append(self._call(i, slot["id"], slot["name"], args if isinstance(args, dict) else {RAW_ARGUMENTS_KEY: slot["json"]}, screen))
        usage = Usage(input_tokens=int(input_tokens), output_tokens=int(output_tokens)) if input_tokens is not None and output_tokens is not None else None
        yield Delta(tool_calls=calls, finish_reason=_finish(stop_reason, bool(calls)), usage=usage)
