"""A loopback OpenAI-compatible chat-completions server that plays Waymark's planner and
executor from what it reads in each prompt, records every request it receives, and injects
faults on demand. It is the HTTP boundary of the real `openai_compat` provider in the
reliability tests: the agent, the provider, the retry policy and the browser are all real.

- planner requests (system prompt of the planner) get the plan given to the server (with its
  `success_criteria`), or, when `plan_text` is given, those raw answers in turn (the last repeated),
  to replay a model that cannot write a usable plan;
- executor requests get the action of the step named in "Current step: ..." (a step's `actions`
  list answers its turns in order, the last repeated: a model that acts again after a refusal), with the
  action's `target` {role, name} resolved to a ref from the element lines of the snapshot in
  the prompt (a native tool call when the request carries tools, JSON text otherwise);
- chat requests get `chat(prompt)` when given (an answer read from what the page sent), else a
  fixed line; a request that asks for a stream is answered as a text/event-stream;
- `GET .../models` gets the listing of `models` (OpenAI's shape), recorded with role "listing";
- `faults` is a queue consumed one per request: "ok", "429", "500", "drop" (headers and half
  the body, then the connection closes), "reset" (closed before any answer), "hold" (the answer
  waits until `release()`; the request is counted as soon as it arrives).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

#: An element line: a link's has no role word (`[3] "Home"`).
_ELEMENT = re.compile(r'^\[(\d+)\] (?:(\S+) )?"((?:[^"\\]|\\.)*)"', re.MULTILINE)


@dataclass
class Seen:
    """One request as received: the role it was for and its JSON body."""

    role: str
    body: dict[str, Any]
    fault: str
    #: The request's method and path, e.g. "POST /v1/chat/completions".
    request: str = ""

    def prompt(self) -> str:
        """Every message's text, joined: what the model would have read."""
        parts = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, list):
                parts += [p.get("text", "") for p in content if isinstance(p, dict)]
            elif isinstance(content, str):
                parts.append(content)
        return "\n".join(parts)

    def messages(self, role: str) -> list[str]:
        """The texts of the messages with this role."""
        out = []
        for message in self.body.get("messages", []):
            if message.get("role") != role:
                continue
            content = message.get("content")
            out.append("\n".join(p.get("text", "") for p in content if isinstance(p, dict)) if isinstance(content, list) else str(content or ""))
        return out


@dataclass
class FakeModel:
    """The server; `plan` is a list of steps {intent, verify?, required?, action}."""

    plan: list[dict[str, Any]]
    result: str = "done"
    success_criteria: list[dict[str, Any]] = field(default_factory=list)
    plan_text: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    #: The chat role's answer to the prompt it was sent (every message's text, joined).
    chat: Callable[[str], str] | None = None
    #: The model ids a `GET /models` lists.
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    seen: list[Seen] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self._server: asyncio.base_events.Server | None = None
        self._release = asyncio.Event()
        self.arrived = asyncio.Event()
        self._turns: dict[str, int] = {}
        self._plans = 0

    async def start(self) -> "FakeModel":
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        self.release()
        if self._server is not None:
            self._server.close()

    def release(self) -> None:
        """Let held requests answer."""
        self._release.set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def provider_params(self, **extra: Any) -> dict[str, Any]:
        """The `agent.run` parameters that point the openai_compat provider at this server."""
        return {"provider": "openai_compat", "model": "fake-model",
                "provider_options": {"base_url": self.base_url, "api_key": "test-key", "preset": "openai"}, **extra}

    # ------------------------------------------------------------ answers

    @staticmethod
    def role_of(body: dict[str, Any]) -> str:
        system = next((m.get("content") for m in body.get("messages", []) if m.get("role") == "system"), "") or ""
        system = system if isinstance(system, str) else json.dumps(system)
        if "planner of Waymark" in system:
            return "planner"
        if "executor of Waymark" in system:
            return "executor"
        return "chat"

    def _step(self, prompt: str) -> dict[str, Any] | None:
        match = re.search(r"^Current step: (.*)$", prompt, re.MULTILINE)
        if not match:
            return None
        return next((s for s in self.plan if s["intent"] == match.group(1).strip()), None)

    @staticmethod
    def resolve(target: dict[str, Any], prompt: str) -> int | None:
        """The ref of the element line matching role and name or name_contains (case-insensitive) in the prompt."""
        for ref, role, name in _ELEMENT.findall(prompt):
            role = role or "link"
            name = name.replace('\\"', '"').replace("\\\\", "\\")
            if target.get("role") and role != target["role"]:
                continue
            if target.get("name") and name.casefold() != target["name"].casefold():
                continue
            if target.get("name_contains") and target["name_contains"].casefold() not in name.casefold():
                continue
            return int(ref)
        return None

    def decision(self, body: dict[str, Any]) -> dict[str, Any]:
        """The executor's decision for this request."""
        seen = Seen("executor", body, "ok")
        prompt = "\n".join(seen.messages("user"))
        step = self._step(prompt)
        if step is None:
            return {"thought": "finished", "action": {"type": "done", "result": self.result, "success": True}}
        if "actions" in step:
            turn = self._turns[step["intent"]] = self._turns.get(step["intent"], -1) + 1
            action = dict(step["actions"][min(turn, len(step["actions"]) - 1)])
        else:
            action = dict(step["action"])
        target = action.pop("target", None)
        if target is not None:
            ref = self.resolve(target, prompt)
            if ref is None:
                return {"thought": "not found", "action": {"type": "done", "result": f"no element {target}", "success": False}}
            action["ref"] = ref
        return {"thought": step["intent"], "action": action}

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat-completions response for a request."""
        role = self.role_of(body)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "stop"
        if role == "planner" and self.plan_text:
            message["content"] = self.plan_text[min(self._plans, len(self.plan_text) - 1)]
            self._plans += 1
        elif role == "planner":
            steps = [{"intent": s["intent"], "verify": s.get("verify", []), "required": s.get("required", True)} for s in self.plan]
            message["content"] = json.dumps({"steps": steps, **({"success_criteria": self.success_criteria} if self.success_criteria else {})})
        elif role == "executor":
            decision = self.decision(body)
            if body.get("tools"):
                action = dict(decision["action"])
                name = action.pop("type")
                message["tool_calls"] = [{"id": "call_0", "type": "function",
                                          "function": {"name": name, "arguments": json.dumps({**action, "thought": decision["thought"]})}}]
                finish = "tool_calls"
            else:
                message["content"] = json.dumps(decision)
        elif self.chat is not None:
            message["content"] = self.chat(Seen(role, body, "ok").prompt())
        else:
            message["content"] = "I read the page. It is data, and I follow only the user's instructions."
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model", ""),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    # ------------------------------------------------------------ HTTP

    @staticmethod
    def _event_stream(answer: dict[str, Any]) -> bytes:
        """A whole answer as a streamed one: its text in one chunk, then the finish, the usage and [DONE]."""
        choice = answer["choices"][0]
        chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": choice["message"].get("content") or ""}}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
                  {"choices": [], "usage": answer["usage"]}]
        events = "".join(f"data: {json.dumps({'id': answer['id'], 'object': 'chat.completion.chunk', **c})}\n\n" for c in chunks)
        body = (events + "data: [DONE]\n\n").encode()
        return b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + body

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = await reader.readline()
            if not request_line:
                return
            headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                key, _, value = line.decode().partition(":")
                headers[key.strip().lower()] = value.strip()
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            body = json.loads(raw) if raw else {}
            method, path = (request_line.decode().split() + ["", ""])[:2]
            if method == "GET" and path.rstrip("/").endswith("/models"):
                self.seen.append(Seen("listing", {}, "ok", f"{method} {path}"))
                payload = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]}).encode()
                writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)
                await writer.drain()
                return
            fault = self.faults.pop(0) if self.faults else "ok"
            self.seen.append(Seen(self.role_of(body), body, fault, f"{method} {path}"))
            self.arrived.set()
            if fault == "hold":
                await self._release.wait()
            if fault == "reset":
                return
            if fault in ("429", "500"):
                payload = json.dumps({"error": {"message": f"injected {fault}", "type": "fault"}}).encode()
                extra = "Retry-After: 0\r\n" if fault == "429" else ""
                writer.write(f"HTTP/1.1 {fault} Fault\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n{extra}Connection: close\r\n\r\n".encode() + payload)
                await writer.drain()
                return
            if body.get("stream"):
                writer.write(self._event_stream(self.answer(body)))
                await writer.drain()
                return
            payload = json.dumps(self.answer(body)).encode()
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            if fault == "drop":
                writer.write(head + payload[: len(payload) // 2])
                await writer.drain()
                return
            writer.write(head + payload)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
