"""A loopback HTTP server that speaks the three cloud wire protocols (OpenAI chat completions,
Anthropic messages, Gemini generateContent / streamGenerateContent), scripted per test with
protocol-neutral `Reply` objects. Plain asyncio streams, bound to 127.0.0.1.

Every answer and stream event is built through the official SDK's own types (openai,
anthropic, google-genai) before it is sent: a field the real API never sends, or a required
one it always sends left out, fails the test instead of teaching the providers a fake shape."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    """What the backend answers, independent of protocol.

    `finish` is the neutral reason ("stop" | "length"); a reply with tool calls is labelled the
    protocol's tool-call reason unless `label_tool_calls_as_stop` (some servers do that).
    `status` != 200 answers an error with `retry_after` as the Retry-After header.
    `delay` waits before answering; `chunk_delay` between streamed events; `chunks` streamed pieces."""

    text: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    usage: tuple[int, int] | None = None
    finish: str = "stop"
    label_tool_calls_as_stop: bool = False
    status: int = 200
    retry_after: str | None = None
    #: The backend's error message for a failure status.
    message: str = ""
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunks: int = 3
    #: Close the connection after this many streamed events (a stream that breaks off).
    cut_after: int | None = None
    #: The model declines, saying this (OpenAI's `refusal`, Anthropic's "refusal" stop, Gemini's
    #: SAFETY stop with no content). `finish="blocked"` is a safety filter stopping the answer.
    refusal: str | None = None
    #: Reasoning written before the answer: Anthropic thinking and redacted_thinking blocks,
    #: Gemini thought parts (and thoughtSignature on its function calls), inline <think> on
    #: OpenAI-compatible servers.
    thinking: str | None = None
    #: After the streamed text, the stream carries an error of this HTTP status's kind.
    stream_error: int | None = None
    #: Google's RetryInfo delay ("7s") in a 429's body; the other protocols have no such field.
    retry_delay: str | None = None
    #: Gemini: the prompt itself is blocked (promptFeedback.blockReason, no candidates).
    prompt_blocked: bool = False


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


def pieces(text: str, n: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, n)))
    return [text[i:i + size] for i in range(0, len(text), size)]


def _no_extras(value: Any, path: str) -> None:
    """The SDKs accept unknown fields quietly: here they are an error."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        extra = getattr(value, "model_extra", None) or {}
        if extra:
            raise AssertionError(f"{path} ({type(value).__name__}) has fields the API never sends: {sorted(extra)}")
        for name in type(value).model_fields:
            _no_extras(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _no_extras(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_extras(item, f"{path}.{key}")


def wire(sdk_type: Any, data: dict[str, Any]) -> dict[str, Any]:
    """`data` read by the official SDK's type (a model class or a TypeAdapter) and written back
    as the JSON the API sends; raises when the SDK would not accept it as a real answer."""
    from pydantic import TypeAdapter

    adapter = sdk_type if isinstance(sdk_type, TypeAdapter) else TypeAdapter(sdk_type)
    value = adapter.validate_python(data)
    _no_extras(value, getattr(sdk_type, "__name__", "answer"))
    return adapter.dump_python(value, mode="json", exclude_unset=True, by_alias=True)


def computer_input(action: str, **fields: Any) -> dict[str, Any]:
    """One input of Anthropic's computer tool as the API sends it: `action` and its fields, the
    fields read by the SDK's own type for that action (BetaComputerLeftClickInput, ...)."""
    from anthropic.types import beta

    sdk_type = getattr(beta, "BetaComputer" + "".join(p.capitalize() for p in action.split("_")) + "Input")
    return {"action": action, **wire(sdk_type, fields)}


def _openai(kind: str) -> Any:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    return {"whole": ChatCompletion, "chunk": ChatCompletionChunk}[kind]


def _anthropic(kind: str) -> Any:
    from anthropic.types import Message, RawMessageStreamEvent
    from pydantic import TypeAdapter

    return Message if kind == "whole" else TypeAdapter(RawMessageStreamEvent)


def _gemini() -> Any:
    from google.genai import types

    return types.GenerateContentResponse


_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
_ANTHROPIC_TYPE = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


class Protocol:
    """Renders a Reply in one wire protocol."""

    def error(self, reply: Reply, status: int | None = None) -> dict[str, Any]:
        """The error body for the reply's status (or `status`, for an error inside a stream)."""
        raise NotImplementedError

    def status(self, reply: Reply) -> int:
        """The HTTP status the API answers the reply's failure with."""
        return reply.status

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        raise NotImplementedError

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        raise NotImplementedError


#: Each status as OpenAI's error object says it: (type, code).
_OPENAI_ERROR = {401: ("invalid_request_error", "invalid_api_key"), 429: ("requests", "rate_limit_exceeded"),
                 400: ("invalid_request_error", None), 500: ("server_error", None)}


class OpenAI(Protocol):
    def error(self, reply: Reply, status: int | None = None) -> dict[str, Any]:
        from openai.types.shared import ErrorObject

        status = status or reply.status
        kind, code = _OPENAI_ERROR.get(status, ("server_error", None))
        return {"error": wire(ErrorObject, {"message": reply.message or f"fake error {status}", "type": kind, "param": None, "code": code})}

    def _finish(self, reply: Reply) -> str:
        if reply.finish == "blocked":
            return "content_filter"
        return "tool_calls" if reply.tool_calls and not reply.label_tool_calls_as_stop else reply.finish

    def _usage(self, reply: Reply) -> dict[str, int]:
        assert reply.usage is not None
        return {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1], "total_tokens": sum(reply.usage)}

    @staticmethod
    def _content(reply: Reply) -> str | None:
        """The text as a local reasoning model writes it: its thinking inline before the answer."""
        if reply.thinking is None:
            return reply.text
        return f"<think>{reply.thinking}</think>\n{reply.text or ''}"

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self._content(reply)}
        if reply.refusal is not None:
            message["refusal"] = reply.refusal
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in enumerate(reply.tool_calls)
            ]
        out: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": model,
                               "choices": [{"index": 0, "message": message, "finish_reason": self._finish(reply)}]}
        if reply.usage:
            out["usage"] = self._usage(reply)
        return wire(_openai("whole"), out)

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        base: dict[str, Any] = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model}
        if reply.usage:
            # Asked to include usage, the API sends `usage: null` on every chunk but the last.
            base["usage"] = None

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        chunks = [chunk({"role": "assistant"})]
        chunks += [chunk({"content": piece}) for piece in pieces(self._content(reply) or "", reply.chunks)]
        chunks += [chunk({"refusal": piece}) for piece in pieces(reply.refusal or "", reply.chunks)]
        for i, (name, args) in enumerate(reply.tool_calls):
            chunks.append(chunk({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": ""}}]}))
            chunks += [chunk({"tool_calls": [{"index": i, "function": {"arguments": frag}}]}) for frag in pieces(json.dumps(args), 3)]
        typed = [(None, json.dumps(wire(_openai("chunk"), c))) for c in chunks]
        if reply.stream_error:
            # The API reports a failure after the stream began as a data line of its own.
            return typed + [(None, json.dumps(self.error(reply, reply.stream_error)))]
        last = [chunk({}, self._finish(reply))]
        if reply.usage:
            # With include_usage, the last chunk carries the usage and no choices.
            last.append({**base, "choices": [], "usage": self._usage(reply)})
        return typed + [(None, json.dumps(wire(_openai("chunk"), c))) for c in last] + [(None, "[DONE]")]


class OpenAIResponses(Protocol):
    """OpenAI's Responses API (`POST /responses`), answered whole. A tool call named
    `computer_call` is a computer call whose fields (action, pending_safety_checks) are its
    arguments; any other is a function call."""

    def error(self, reply: Reply, status: int | None = None) -> dict[str, Any]:
        return OpenAI().error(reply, status)

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        from openai.types.responses import Response

        output: list[dict[str, Any]] = []
        if reply.text is not None or reply.refusal is not None:
            part = ({"type": "refusal", "refusal": reply.refusal} if reply.refusal is not None
                    else {"type": "output_text", "text": reply.text, "annotations": []})
            output.append({"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed", "content": [part]})
        for i, (name, args) in enumerate(reply.tool_calls):
            if name == "computer_call":
                output.append({"type": "computer_call", "id": f"cu_{i}", "call_id": f"call_{i}", "status": "completed",
                               "pending_safety_checks": [], **args})
            else:
                output.append({"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": name,
                               "arguments": json.dumps(args), "status": "completed"})
        out: dict[str, Any] = {"id": "resp_fake", "object": "response", "created_at": 1700000000, "model": model, "output": output,
                               "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "status": "completed"}
        if reply.finish == "length":
            out.update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
        if reply.usage:
            out["usage"] = {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1], "total_tokens": sum(reply.usage),
                            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}
        return wire(Response, out)

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        raise NotImplementedError("the computer-use model is asked for whole answers")


#: What the Messages API counts when a test scripts no usage: it always reports some.
ANTHROPIC_DEFAULT_USAGE = (9, 3)


class Anthropic(Protocol):
    def error(self, reply: Reply, status: int | None = None) -> dict[str, Any]:
        from anthropic.types import ErrorResponse

        status = status or reply.status
        return wire(ErrorResponse, {"type": "error", "request_id": "req_fake",
                                    "error": {"type": _ANTHROPIC_TYPE.get(status, "api_error"), "message": reply.message or f"fake error {status}"}})

    def _stop(self, reply: Reply) -> str:
        if reply.refusal is not None or reply.finish == "blocked":
            return "refusal"
        if reply.tool_calls and not reply.label_tool_calls_as_stop:
            return "tool_use"
        return {"stop": "end_turn", "length": "max_tokens"}[reply.finish]

    @staticmethod
    def _text(reply: Reply) -> str | None:
        return reply.refusal if reply.refusal is not None else reply.text

    @staticmethod
    def _thinking_blocks(reply: Reply) -> list[dict[str, Any]]:
        if reply.thinking is None:
            return []
        return [{"type": "thinking", "thinking": reply.thinking, "signature": "c2lnbmF0dXJl"},
                {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}]

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        content = self._thinking_blocks(reply)
        if self._text(reply) is not None:
            content.append({"type": "text", "text": self._text(reply)})
        content += [{"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a} for i, (n, a) in enumerate(reply.tool_calls)]
        usage = reply.usage or ANTHROPIC_DEFAULT_USAGE
        out: dict[str, Any] = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                               "content": content, "stop_reason": self._stop(reply), "stop_sequence": None,
                               "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}
        return wire(_anthropic("whole"), out)

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        message: dict[str, Any] = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [],
                                   "stop_reason": None, "stop_sequence": None}
        usage = reply.usage or ANTHROPIC_DEFAULT_USAGE
        message["usage"] = {"input_tokens": usage[0], "output_tokens": 1}
        evs: list[dict[str, Any]] = [{"type": "message_start", "message": message}]

        def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
            index = sum(1 for e in evs if e["type"] == "content_block_start")
            evs.append({"type": "content_block_start", "index": index, "content_block": start})
            evs.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
            evs.append({"type": "content_block_stop", "index": index})

        if reply.thinking is not None:
            block({"type": "thinking", "thinking": "", "signature": ""},
                  [{"type": "thinking_delta", "thinking": p} for p in pieces(reply.thinking, reply.chunks)]
                  + [{"type": "signature_delta", "signature": "c2lnbmF0dXJl"}])
            block({"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}, [])
        if self._text(reply) is not None:
            block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces(self._text(reply) or "", reply.chunks)])
        for i, (name, args) in enumerate(reply.tool_calls):
            # The API's first input_json_delta of a tool call carries an empty partial_json.
            block({"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {}},
                  [{"type": "input_json_delta", "partial_json": p} for p in ["", *pieces(json.dumps(args), 3)]])
        if reply.stream_error:
            # Over SSE the error event has no request_id (that is an HTTP error body's).
            evs.append({k: v for k, v in self.error(reply, reply.stream_error).items() if k != "request_id"})
        else:
            evs += [{"type": "message_delta", "delta": {"stop_reason": self._stop(reply), "stop_sequence": None},
                     "usage": {"output_tokens": usage[1]}}, {"type": "message_stop"}]
        if len(evs) > 2:
            evs.insert(2, {"type": "ping"})  # where the API sends it: after the first block starts
        # `ping` is an SSE keep-alive and `error` an ErrorResponse (typed above): neither is one
        # of the SDK's stream event types.
        return [(e["type"], json.dumps(e if e["type"] in ("ping", "error") else wire(_anthropic("event"), e))) for e in evs]


def google_error(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """A Google error body, read back by the google-genai SDK's own error class: its status and
    message must come through as the API's would."""
    from google.genai import errors as genai_errors

    read = genai_errors.APIError(status, body)
    assert (read.code, read.status, read.message) == (body["error"]["code"], body["error"]["status"], body["error"]["message"]), read
    return body


class Gemini(Protocol):
    def error(self, reply: Reply, status: int | None = None) -> dict[str, Any]:
        status = status or reply.status
        details: list[dict[str, Any]] = []
        message = reply.message or f"fake error {status}"
        if status == 401:
            # Google answers a wrong API key with 400 INVALID_ARGUMENT and ErrorInfo API_KEY_INVALID.
            status, message = 400, reply.message or "API key not valid. Please pass a valid API key."
            details.append({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                            "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}})
        if reply.retry_delay is not None:
            details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": reply.retry_delay})
        err: dict[str, Any] = {"code": status, "message": message, "status": _GOOGLE_STATUS.get(status, "UNKNOWN")}
        if details:
            err["details"] = details
        return google_error(status, {"error": err})

    def status(self, reply: Reply) -> int:
        return 400 if reply.status == 401 else reply.status

    def _response(self, parts: list[dict[str, Any]] | None, finish: str | None, usage: tuple[int, int] | None, model: str) -> dict[str, Any]:
        cand: dict[str, Any] = {"index": 0}
        if parts is not None:
            cand["content"] = {"role": "model", "parts": parts}
        if finish:
            cand["finishReason"] = finish
        out: dict[str, Any] = {"candidates": [cand], "modelVersion": model}
        if usage:
            out["usageMetadata"] = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1], "totalTokenCount": sum(usage)}
        return wire(_gemini(), out)

    def _blocked_prompt(self, reply: Reply, model: str) -> dict[str, Any]:
        out: dict[str, Any] = {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": model}
        if reply.usage:
            out["usageMetadata"] = {"promptTokenCount": reply.usage[0], "totalTokenCount": reply.usage[0]}
        return wire(_gemini(), out)

    def _finish(self, reply: Reply) -> str:
        # Gemini labels a function call "STOP" itself; a refusal or a filtered answer is a SAFETY stop.
        if reply.refusal is not None or reply.finish == "blocked":
            return "SAFETY"
        return {"stop": "STOP", "length": "MAX_TOKENS"}[reply.finish]

    def _calls(self, reply: Reply) -> list[dict[str, Any]]:
        # The Gemini API gives function calls no id; after thinking, each carries a thought signature.
        signature = {"thoughtSignature": "c2lnbmF0dXJl"} if reply.thinking is not None else {}
        return [{"functionCall": {"name": n, "args": a}, **signature} for n, a in reply.tool_calls]

    def _thought(self, reply: Reply) -> list[dict[str, Any]]:
        return [{"text": reply.thinking, "thought": True}] if reply.thinking is not None else []

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        if reply.prompt_blocked:
            return self._blocked_prompt(reply, model)
        if reply.refusal is not None:
            return self._response(None, self._finish(reply), reply.usage, model)
        parts = self._thought(reply) + ([{"text": reply.text}] if reply.text is not None else []) + self._calls(reply)
        return self._response(parts, self._finish(reply), reply.usage, model)

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        if reply.prompt_blocked:
            return [(None, json.dumps(self._blocked_prompt(reply, model)))]
        chunks = [self._response(self._thought(reply), None, None, model)] if reply.thinking is not None else []
        chunks += [self._response([{"text": t}], None, None, model) for t in pieces(reply.text or "", reply.chunks)]
        if reply.stream_error:
            return [(None, json.dumps(c)) for c in chunks] + [(None, json.dumps(self.error(reply, reply.stream_error)))]
        last = None if reply.refusal is not None else self._calls(reply)
        chunks.append(self._response(last, self._finish(reply), reply.usage, model))
        return [(None, json.dumps(c)) for c in chunks]


class FakeServer:
    """Answers each request with the next scripted Reply (the last one repeats)."""

    def __init__(self) -> None:
        self.replies: list[Reply] = [Reply(text="ok")]
        self.seen: list[Seen] = []
        self.aborted = 0
        self.completed = 0
        #: Scripted replies the official SDK types refused to take as a real answer.
        self.unrealistic: list[str] = []
        self._server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self) -> "FakeServer":
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order; the last one repeats."""
        self.replies = list(replies)
        self.seen.clear()
        self.aborted = 0
        self.completed = 0
        #: Scripted replies the official SDK types refused to take as a real answer.
        self.unrealistic: list[str] = []

    def _next(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    @staticmethod
    def _protocol(path: str) -> Protocol:
        if path.endswith("/chat/completions"):
            return OpenAI()
        if path.endswith("/responses"):
            return OpenAIResponses()
        if path.endswith("/v1/messages"):
            return Anthropic()
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return Gemini()
        raise ValueError(f"no protocol serves {path}")

    @staticmethod
    def _lister(path: str, headers: dict[str, str]) -> Protocol:
        """The protocol of a model listing: Gemini's under /v1beta, Anthropic's by its key header."""
        if "/v1beta/" in path:
            return Gemini()
        return Anthropic() if "x-api-key" in headers else OpenAI()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode()
            if not request_line:
                return
            method, target, _ = request_line.split(" ", 2)
            headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                key, _, value = line.decode().partition(":")
                headers[key.strip().lower()] = value.strip()
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            parts = urlsplit(target)
            body = json.loads(raw) if raw else None
            self.seen.append(Seen(method, parts.path, parse_qs(parts.query), headers, body))
            reply = self._next()
            if method == "GET":  # a model listing: what `ping` asks for
                if reply.status != 200:
                    lister = self._lister(parts.path, headers)
                    await self._send_json(writer, lister.status(reply), lister.error(reply), {})
                else:
                    await self._send_json(writer, 200, {"object": "list", "data": [], "models": []}, {})
                self.completed += 1
                return
            protocol = self._protocol(parts.path)
            model = parts.path.rsplit("/", 1)[-1].split(":")[0] if isinstance(protocol, Gemini) else (body or {}).get("model", "")
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.status != 200:
                extra = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
                await self._send_json(writer, protocol.status(reply), protocol.error(reply), extra)
            else:
                try:
                    streamed = ":streamGenerateContent" in parts.path or (isinstance(body, dict) and body.get("stream"))
                    answer: Any = protocol.events(reply, model)[:reply.cut_after] if streamed else protocol.whole(reply, model)
                except Exception as exc:  # a fake answer the SDK's types refuse: say why, loudly
                    self.unrealistic.append(f"{type(exc).__name__}: {exc}")
                    raise
                if streamed:
                    await self._send_events(writer, answer, reply.chunk_delay)
                else:
                    await self._send_json(writer, 200, answer, {})
            self.completed += 1
        except (ConnectionError, asyncio.IncompleteReadError):
            self.aborted += 1
        finally:
            writer.close()

    @staticmethod
    async def _send_json(writer: asyncio.StreamWriter, status: int, payload: Any, extra: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        head = [f"HTTP/1.1 {status} Fake", "Content-Type: application/json", f"Content-Length: {len(data)}", "Connection: close"]
        head += [f"{k}: {v}" for k, v in extra.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await writer.drain()

    @staticmethod
    async def _send_events(writer: asyncio.StreamWriter, events: list[tuple[str | None, str]], delay: float) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
        await writer.drain()
        for name, data in events:
            if delay:
                await asyncio.sleep(delay)
            if writer.is_closing():
                raise ConnectionResetError("the client went away mid-stream")
            frame = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
            writer.write(frame.encode())
            await writer.drain()
