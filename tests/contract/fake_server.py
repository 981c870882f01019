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

    def error(self, reply: Reply) -> dict[str, Any]:
        raise NotImplementedError

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        raise NotImplementedError

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        raise NotImplementedError


class OpenAI(Protocol):
    def error(self, reply: Reply) -> dict[str, Any]:
        return {"error": {"message": reply.message or f"fake error {reply.status}", "type": "fake", "code": reply.status}}

    def _finish(self, reply: Reply) -> str:
        return "tool_calls" if reply.tool_calls and not reply.label_tool_calls_as_stop else reply.finish

    def _usage(self, reply: Reply) -> dict[str, int]:
        assert reply.usage is not None
        return {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1], "total_tokens": sum(reply.usage)}

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
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
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model}
        chunks: list[dict[str, Any]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]}]
        for piece in pieces(reply.text or "", reply.chunks):
            chunks.append({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        for i, (name, args) in enumerate(reply.tool_calls):
            chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": ""}}]}, "finish_reason": None}]})
            for frag in pieces(json.dumps(args), 3):
                chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": i, "function": {"arguments": frag}}]}, "finish_reason": None}]})
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": self._finish(reply)}]})
        if reply.usage:
            # With include_usage, the last chunk carries the usage and no choices.
            chunks.append({**base, "choices": [], "usage": self._usage(reply)})
        return [(None, json.dumps(wire(_openai("chunk"), c))) for c in chunks] + [(None, "[DONE]")]


#: What the Messages API counts when a test scripts no usage: it always reports some.
ANTHROPIC_DEFAULT_USAGE = (9, 3)


class Anthropic(Protocol):
    def error(self, reply: Reply) -> dict[str, Any]:
        return {"type": "error", "error": {"type": _ANTHROPIC_TYPE.get(reply.status, "api_error"), "message": reply.message or f"fake error {reply.status}"}}

    def _stop(self, reply: Reply) -> str:
        if reply.tool_calls and not reply.label_tool_calls_as_stop:
            return "tool_use"
        return {"stop": "end_turn", "length": "max_tokens"}[reply.finish]

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if reply.text is not None:
            content.append({"type": "text", "text": reply.text})
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
        index = 0
        if reply.text is not None:
            evs.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
            evs.append({"type": "ping"})
            for piece in pieces(reply.text, reply.chunks):
                evs.append({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}})
            evs.append({"type": "content_block_stop", "index": index})
            index += 1
        for i, (name, args) in enumerate(reply.tool_calls):
            evs.append({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {}}})
            for frag in pieces(json.dumps(args), 3):
                evs.append({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": frag}})
            evs.append({"type": "content_block_stop", "index": index})
            index += 1
        delta: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": self._stop(reply), "stop_sequence": None},
                                 "usage": {"output_tokens": usage[1]}}
        evs += [delta, {"type": "message_stop"}]
        # `ping` is an SSE keep-alive of the API, not one of the SDK's stream event types.
        return [(e["type"], json.dumps(e if e["type"] == "ping" else wire(_anthropic("event"), e))) for e in evs]


class Gemini(Protocol):
    def error(self, reply: Reply) -> dict[str, Any]:
        return {"error": {"code": reply.status, "message": reply.message or f"fake error {reply.status}", "status": _GOOGLE_STATUS.get(reply.status, "UNKNOWN")}}

    def _response(self, parts: list[dict[str, Any]], finish: str | None, usage: tuple[int, int] | None, model: str) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        out: dict[str, Any] = {"candidates": [cand], "modelVersion": model}
        if usage:
            out["usageMetadata"] = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1], "totalTokenCount": sum(usage)}
        return wire(_gemini(), out)

    def _finish(self, reply: Reply) -> str:
        # Gemini labels a function call "STOP" itself.
        return {"stop": "STOP", "length": "MAX_TOKENS"}[reply.finish]

    def _calls(self, reply: Reply) -> list[dict[str, Any]]:
        return [{"functionCall": {"id": f"fc_{i}", "name": n, "args": a}} for i, (n, a) in enumerate(reply.tool_calls)]

    def whole(self, reply: Reply, model: str) -> dict[str, Any]:
        parts = ([{"text": reply.text}] if reply.text is not None else []) + self._calls(reply)
        return self._response(parts, self._finish(reply), reply.usage, model)

    def events(self, reply: Reply, model: str) -> list[tuple[str | None, str]]:
        texts = pieces(reply.text or "", reply.chunks)
        chunks = [self._response([{"text": t}], None, None, model) for t in texts]
        chunks.append(self._response(self._calls(reply), self._finish(reply), reply.usage, model))
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
        if path.endswith("/v1/messages"):
            return Anthropic()
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return Gemini()
        raise ValueError(f"no protocol serves {path}")

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
                    await self._send_json(writer, reply.status, {"error": {"message": f"fake error {reply.status}"}}, {})
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
                await self._send_json(writer, reply.status, protocol.error(reply), extra)
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
