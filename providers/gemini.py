"""Gemini through the google-genai SDK: native function calling, response schema, images,
streaming. `base_url` points the SDK elsewhere (a proxy, or the contract suite's loopback server)."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import time
import uuid
from typing import Any, AsyncIterator

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from waymark.host.core.actions import ACT_TOOL
from waymark.providers import errors
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    FinishReason,
    LLMProvider,
    Message,
    TextPart,
    ToolCall,
    Usage,
)
from waymark.providers.computer_use import GeminiScreen, screenshot_size
from waymark.providers.config import resolve_key
from waymark.providers.deadline import Deadline, with_retries
from waymark.providers.http import error_for_status, unreachable
from waymark.providers.retry import DEFAULT_POLICY, RetryPolicy, parse_retry_after

_BLOCKED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "MODEL_ARMOR"}


def _transport_classes() -> tuple[type[BaseException], ...]:
    """The transport errors of whichever HTTP library the SDK runs on: httpx, or aiohttp, which
    the SDK prefers for async calls whenever it is installed."""
    classes: list[type[BaseException]] = []
    for module, name in (("httpx", "TransportError"), ("httpx2", "TransportError"), ("aiohttp", "ClientError")):
        try:
            mod = __import__(module)
        except ImportError:
            continue
        classes.append(getattr(mod, name))
    return tuple(classes)


_TRANSPORT = _transport_classes()
#: Answers the SDK could not read (newer SDKs raise their own class for it).
_UNREADABLE: tuple[type[BaseException], ...] = (json.JSONDecodeError, *((genai_errors.UnknownApiResponseError,) if hasattr(genai_errors, "UnknownApiResponseError") else ()))


def _finish(raw: Any, has_tool_calls: bool) -> FinishReason:
    name = getattr(raw, "value", raw) or "STOP"
    if name in ("STOP", "FINISH_REASON_UNSPECIFIED"):
        return "tool_calls" if has_tool_calls else "stop"
    if name == "MAX_TOKENS":
        return "length"
    if name in _BLOCKED:
        return "blocked"
    return "error"


def _usage(meta: Any) -> Usage | None:
    """Tokens in and out; thinking tokens are output the API bills, and a count the API leaves
    out (no candidates after a block) is 0."""
    if meta is None or (meta.prompt_token_count is None and meta.candidates_token_count is None):
        return None
    thoughts = getattr(meta, "thoughts_token_count", None) or 0
    return Usage(input_tokens=meta.prompt_token_count or 0, output_tokens=(meta.candidates_token_count or 0) + thoughts)


def _retry_delay(details: Any) -> float | None:
    """Google's RetryInfo detail ("retryDelay": "12s") as seconds."""
    items = details.get("error", details).get("details", []) if isinstance(details, dict) else []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and "retryDelay" in item:
            m = re.match(r"^([\d.]+)s$", str(item["retryDelay"]))
            if m:
                return float(m.group(1))
    return None


def _error_reasons(details: Any) -> set[str]:
    """The `reason` of each google.rpc.ErrorInfo in an error body."""
    items = details.get("error", details).get("details", []) if isinstance(details, dict) else []
    return {str(item.get("reason")) for item in items if isinstance(item, dict) and item.get("reason")} if isinstance(items, list) else set()


def _api_error(exc: genai_errors.APIError) -> errors.ProviderError:
    if "API_KEY_INVALID" in _error_reasons(exc.details):
        # Google answers a wrong key with 400 INVALID_ARGUMENT: it is the key, not the request.
        return errors.AuthError(f"the API key was refused: {exc.message or 'API key not valid'}"[:300], provider="gemini", status=exc.code)
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    retry_after = parse_retry_after(headers.get("retry-after")) if hasattr(headers, "get") else None
    if retry_after is None:
        retry_after = _retry_delay(exc.details)
    return error_for_status(int(exc.code or 500), str(exc.message or exc.status or ""), provider="gemini", retry_after=retry_after)


class GeminiProvider(LLMProvider):
    """Gemini via google-genai's async client."""

    name = "gemini"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        context_tokens: int = 1_000_000,
        computer_use: bool = False,
        retry: RetryPolicy | None = None,
    ) -> None:
        super().__init__(model)
        key = resolve_key(self.name, None, api_key)
        if not key:
            raise errors.AuthError("no API key: set GEMINI_API_KEY", provider=self.name)
        # One attempt per SDK call: our retry policy is the only one (the SDK's own would retry
        # for seconds before ours even saw the failure).
        http_options = types.HttpOptions(base_url=base_url, retry_options=types.HttpRetryOptions(attempts=1))
        self._client = genai.Client(api_key=key, http_options=http_options)
        #: Where a failure below HTTP says it tried (the SDK's errors do not carry their URL).
        self._where = base_url or "the Gemini API (generativelanguage.googleapis.com)"
        self.retry = retry or DEFAULT_POLICY
        self.computer_use = computer_use
        self._caps = Capabilities(native_tools=True, json_schema=True, vision=True, streaming=True, context_tokens=context_tokens,
                                  screen=computer_use)

    def capabilities(self) -> Capabilities:
        return self._caps

    # -- request

    @staticmethod
    def _parts(msg: Message) -> list[types.Part]:
        parts = []
        for part in msg.content:
            if isinstance(part, TextPart):
                if part.text:
                    parts.append(types.Part(text=part.text))
            else:
                parts.append(types.Part.from_bytes(data=base64.b64decode(part.data_b64), mime_type=part.media_type))
        return parts

    def contents(self, request: CompletionRequest) -> list[types.Content]:
        """The conversation as Gemini contents (system messages go to the config)."""
        out: list[types.Content] = []
        names = {c.id: c.name for m in request.messages for c in m.tool_calls}
        for msg in request.messages:
            if msg.role == "system":
                continue
            if msg.role == "tool":
                name = msg.name or names.get(msg.tool_call_id or "", "tool")
                parts = [types.Part(function_response=types.FunctionResponse(name=name, response={"result": msg.plain_text()}))]
                role = "user"
            else:
                parts = self._parts(msg)
                for call in msg.tool_calls:
                    sig = base64.b64decode(call.signature) if call.signature else None
                    parts.append(types.Part(function_call=types.FunctionCall(name=call.name, args=call.arguments), thought_signature=sig))
                role = "model" if msg.role == "assistant" else "user"
            if out and out[-1].role == role:
                out[-1].parts = list(out[-1].parts or []) + parts
            else:
                out.append(types.Content(role=role, parts=parts))
        return out

    def config(self, request: CompletionRequest) -> types.GenerateContentConfig:
        """Generation settings: system text, tools, schema, limits; the SDK never calls functions itself."""
        system = "\n\n".join(m.plain_text() for m in request.messages if m.role == "system")
        cfg: dict[str, Any] = {
            "max_output_tokens": request.max_tokens,
            "automatic_function_calling": types.AutomaticFunctionCallingConfig(disable=True),
        }
        if system:
            cfg["system_instruction"] = system
        if request.temperature is not None:
            cfg["temperature"] = request.temperature
        if request.tools:
            cfg["tools"] = [types.Tool(function_declarations=[
                types.FunctionDeclaration(name=t.name, description=t.description, parameters_json_schema=t.parameters)
                for t in request.tools
            ])]
        if request.tools and self._screen(request):
            # The computer-use tool beside the request's own (the reference implementation's way);
            # its predefined functions are not named in a function-calling config.
            cfg["tools"].insert(0, types.Tool(computer_use=types.ComputerUse(environment=types.Environment.ENVIRONMENT_BROWSER)))
        elif request.tools:
            choice = request.tool_choice
            if choice in ("auto", "none", "required"):
                mode = {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice]
                fcc = types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode(mode))
            else:
                fcc = types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=[choice])
            cfg["tool_config"] = types.ToolConfig(function_calling_config=fcc)
        if request.response_schema is not None:
            cfg["response_mime_type"] = "application/json"
            cfg["response_json_schema"] = request.response_schema
        return types.GenerateContentConfig(**cfg)

    def _screen(self, request: CompletionRequest) -> GeminiScreen | None:
        """Computer-use mode for this request: on, and a screenshot to answer about."""
        size = screenshot_size(request) if self.computer_use else None
        return GeminiScreen(*size) if size else None

    def _as_actions(self, calls: list[ToolCall], request: CompletionRequest) -> list[ToolCall]:
        """Computer-use function calls as calls of the executor's `act` tool; calls of the request's own tools stay."""
        screen = self._screen(request)
        own = {t.name for t in request.tools}
        if screen is None or not own:
            return calls
        return [c if c.name in own else c.model_copy(update={"name": ACT_TOOL, "arguments": screen.action(c.name, c.arguments)}) for c in calls]

    # -- response

    @staticmethod
    def _pieces(response: types.GenerateContentResponse) -> tuple[str, list[ToolCall], Any]:
        """(text, tool calls, raw finish reason) of one response or chunk."""
        feedback = response.prompt_feedback
        if not response.candidates and feedback is not None and feedback.block_reason:
            raise errors.Blocked(f"the prompt was blocked ({getattr(feedback.block_reason, 'value', feedback.block_reason)})", provider="gemini")
        if not response.candidates:
            return "", [], None
        cand = response.candidates[0]
        text: list[str] = []
        calls: list[ToolCall] = []
        for part in (cand.content.parts if cand.content and cand.content.parts else []):
            if part.function_call is not None:
                fc = part.function_call
                sig = base64.b64encode(part.thought_signature).decode() if part.thought_signature else None
                calls.append(ToolCall(id=fc.id or f"call_{uuid.uuid4().hex[:12]}", name=fc.name or "", arguments=dict(fc.args or {}), signature=sig))
            elif part.text and not part.thought:
                text.append(part.text)
        return "".join(text), calls, cand.finish_reason

    def _map(self, exc: BaseException) -> errors.ProviderError | None:
        if isinstance(exc, genai_errors.APIError):
            return _api_error(exc)
        if _TRANSPORT and isinstance(exc, _TRANSPORT):
            return unreachable(self._where, exc, self.name)
        if isinstance(exc, _UNREADABLE):
            return errors.Unavailable(f"the backend's answer cannot be read: {exc}"[:300], provider=self.name)
        return None

    # -- interface

    async def complete(self, request: CompletionRequest) -> Completion:
        started = time.perf_counter()
        contents, config = self.contents(request), self.config(request)

        async def attempt() -> types.GenerateContentResponse:
            try:
                return await self._client.aio.models.generate_content(model=self.model, contents=contents, config=config)
            except Exception as exc:  # the SDK's and its transport's errors, mapped below
                mapped = self._map(exc)
                if mapped is None:
                    raise
                raise mapped from None

        response = await with_retries(self.retry, Deadline(request.timeout, self.name), attempt)
        text, calls, finish = self._pieces(response)
        calls = self._as_actions(calls, request)
        return Completion(
            text=text or None,
            tool_calls=calls,
            finish_reason=_finish(finish, bool(calls)),
            usage=_usage(response.usage_metadata),
            model=response.model_version or self.model,
            latency_ms=(time.perf_counter() - started) * 1000,
        )

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        deadline = Deadline(request.timeout, self.name)
        contents, config = self.contents(request), self.config(request)

        async def open_stream() -> AsyncIterator[types.GenerateContentResponse]:
            try:
                return await self._client.aio.models.generate_content_stream(model=self.model, contents=contents, config=config)
            except Exception as exc:
                mapped = self._map(exc)
                if mapped is None:
                    raise
                raise mapped from None

        chunks = (await with_retries(self.retry, deadline, open_stream)).__aiter__()
        try:
            async for delta in self._deltas(chunks, deadline):
                yield delta.model_copy(update={"tool_calls": self._as_actions(delta.tool_calls, request)}) if delta.tool_calls else delta
        finally:
            # Closing the SDK's generator closes its HTTP response now, not at garbage collection.
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _deltas(self, chunks: AsyncIterator[types.GenerateContentResponse], deadline: Deadline) -> AsyncIterator[Delta]:
        calls: list[ToolCall] = []
        finish: Any = None
        usage: Usage | None = None
        while True:
            remaining = deadline.remaining()
            if remaining <= 0:
                raise deadline.expired()
            try:
                chunk = await asyncio.wait_for(chunks.__anext__(), remaining)
            except StopAsyncIteration:
                break
            except TimeoutError:
                raise deadline.expired() from None
            except Exception as exc:
                mapped = self._map(exc)
                if mapped is None:
                    raise
                raise mapped from None
            text, chunk_calls, chunk_finish = self._pieces(chunk)
            calls += chunk_calls
            finish = chunk_finish or finish
            usage = _usage(chunk.usage_metadata) or usage
            if text:
                yield Delta(text=text)
        if finish is None:
            # Every complete Gemini stream ends with a finish reason; without one it broke off.
            raise errors.Unavailable("the stream ended before the answer did", provider=self.name)
        yield Delta(tool_calls=calls, finish_reason=_finish(finish, bool(calls)), usage=usage)

    async def ping(self, timeout: float = 3.0) -> str:
        started = time.monotonic()
        config = types.ListModelsConfig(page_size=1, http_options=types.HttpOptions(timeout=int(timeout * 1000)))

        async def attempt() -> None:
            try:
                pager = await self._client.aio.models.list(config=config)
                del pager
            except Exception as exc:
                mapped = self._map(exc)
                if mapped is None:
                    raise
                raise mapped from None

        await with_retries(RetryPolicy(attempts=1), Deadline(timeout, self.name), attempt)
        return f"answered in {(time.monotonic() - started) * 1000:.0f} ms"

    async def aclose(self) -> None:
        await self._client.aio.aclose()
