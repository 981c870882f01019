"""Starting `agent.run` from the service worker exactly as the side panel does, answering its
questions, stopping it, and reading what it streams and writes (its trace)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

_START = """(p) => {
  const g = globalThis;
  g.__agent = g.__agent || { runs: {}, events: {} };
  const key = 'r' + Object.keys(g.__agent.runs).length + '-' + Math.random().toString(36).slice(2);
  const events = [];
  const ctrl = new AbortController();
  g.__agent.events[key] = events;
  g.__agent.runs[key] = {
    ctrl,
    promise: g.waymark.channel.call('agent.run', p, { onNotify: (name, data) => events.push({ name, data }), signal: ctrl.signal })
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


async def start_run(sw: Any, params: dict[str, Any]) -> AgentCall:
    """Start `agent.run` with these parameters once the extension is connected."""
    from tests.conftest import wait_connected

    await wait_connected(sw)
    return AgentCall(sw, await sw.evaluate(_START, params))


def trace_events(trace_dir: str | Path, kind: str | None = None) -> list[dict[str, Any]]:
    """The events of a run's trace.jsonl, optionally of one kind."""
    lines = (Path(trace_dir) / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines if line.strip()]
    return [e for e in events if kind is None or e["event"] == kind]
