"""Starting `agent.run` from the service worker exactly as the side panel does, answering its
questions, stopping it, and reading what it streams and writes (its trace)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Callable

_START = """([method, p]) => {
  const g = globalThis;
  g.__agent = g.__agent || { runs: {}, events: {} };
  const key = 'r' + Object.keys(g.__agent.runs).length + '-' + Math.random().toString(36).slice(2);
  const events = [];
  const ctrl = new AbortController();
  g.__agent.events[key] = events;
  g.__agent.runs[key] = {
    ctrl,
    promise: g.waymark.channel.call(method, p, { onNotify: (name, data) => events.push({ name, data }), signal: ctrl.signal })
      .then((data) => ({ ok: true, data }), (e) => ({ ok: false, code: e.code, message: String(e.message) })),
  };
  return key;
}"""


class AgentCall:
    """One `agent.run` call in flight in a service worker."""

    def __init__(self, sw: Any, key: str) -> None:
        self.sw = sw
        self.key = key

    async def reply(self, timeout_s: float = 90.0) -> dict[str, Any]:
        """{ok, data} or {ok: false, code, message}, as the side panel would see it."""
        return await asyncio.wait_for(self.sw.evaluate("(k) => globalThis.__agent.runs[k].promise", self.key), timeout_s)

    async def summary(self) -> dict[str, Any]:
        """The run's summary; the call must have succeeded."""
        reply = await self.reply()
        assert reply["ok"], reply
        return reply["data"]

    async def events(self, name: str | None = None) -> list[dict[str, Any]]:
        """What the run streamed so far, optionally only events called `name`."""
        events = await self.sw.evaluate("(k) => globalThis.__agent.events[k]", self.key)
        return [e["data"] for e in events if name is None or e["name"] == name]

    async def wait_for(self, name: str, timeout_s: float = 60.0) -> dict[str, Any]:
        """The first event called `name`, waiting for it to arrive."""
        for _ in range(int(timeout_s * 20)):
            found = await self.events(name)
            if found:
                return found[0]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no {name} event; got {await self.events()}")

    async def answer(self, request: dict[str, Any], answer: Any) -> None:
        """Answer a `confirm` or `ask_user` request as the user."""
        params = {"run_id": request["run_id"], "request_id": request["request_id"], "answer": answer}
        await self.sw.evaluate("(p) => globalThis.waymark.call('agent.answer', p)", params)

    async def cancel(self) -> None:
        """Press stop: cancel the call."""
        await self.sw.evaluate("(k) => globalThis.__agent.runs[k].ctrl.abort()", self.key)


async def start_run(sw: Any, params: dict[str, Any], method: str = "agent.run") -> AgentCall:
    """Start `agent.run` (or `workflow.run`, which streams the same events) with these parameters
    once the extension is connected."""
    from tests.conftest import wait_connected

    await wait_connected(sw)
    return AgentCall(sw, await sw.evaluate(_START, [method, params]))


def trace_events(trace_dir: str | Path, kind: str | None = None) -> list[dict[str, Any]]:
    """The events of a run's trace.jsonl, optionally of one kind."""
    lines = (Path(trace_dir) / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines if line.strip()]
    return [e for e in events if kind is None or e["event"] == kind]


class RecordingModel:
    """An OpenAI-compatible chat endpoint on loopback that records every request body and answers
    like a model would: `respond(system, user)` gives the assistant message for the request whose
    system prompt and last user message these are (a plan's JSON for the planner, one tool call
    per executor turn). A run uses it with `provider_options()`."""

    def __init__(self, respond: Callable[[str, str], dict[str, Any]]) -> None:
        import http.server
        import threading

        self.bodies: list[bytes] = []
        self.respond = respond
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.bodies.append(body)
                reply = json.dumps(outer.answer(json.loads(body))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def provider_options(self) -> dict[str, Any]:
        """The `agent.run` parameters that send its model calls here."""
        return {"provider": "openai_compat", "model": "recorder", "provider_options": {"base_url": self.url, "api_key": "test-key"}}

    @staticmethod
    def text(message: dict[str, Any]) -> str:
        """A chat message's text, whether its content is a string or parts."""
        content = message.get("content") or ""
        return content if isinstance(content, str) else "".join(p.get("text", "") for p in content if isinstance(p, dict))

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        message = self.respond(self.text(body["messages"][0]), self.text(body["messages"][-1]))
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {"id": "x", "object": "chat.completion", "model": body.get("model", "m"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": None, **message}, "finish_reason": finish}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An assistant message calling one tool, as RecordingModel's `respond` returns it."""
    return {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
