"""Starting `agent.run` from the service worker exactly as the side panel does, and reading
what it streams and writes (its trace)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

_START = """(p) => {
  const g = globalThis;
  g.__faults = g.__faults || { runs: {}, events: {} };
  const key = 'f' + Object.keys(g.__faults.runs).length + '-' + Math.random().toString(36).slice(2);
  const events = [];
  g.__faults.events[key] = events;
  g.__faults.runs[key] = g.waymark.channel.call('agent.run', p, { onNotify: (name, data) => events.push({ name, data }) })
    .then((data) => ({ ok: true, data }), (e) => ({ ok: false, code: e.code, message: String(e.message) }));
  return key;
}"""


class AgentCall:
    """One `agent.run` call in flight in a service worker."""

    def __init__(self, sw: Any, key: str) -> None:
        self.sw = sw
        self.key = key

    async def reply(self, timeout_s: float = 90.0) -> dict[str, Any]:
        """{ok, data} or {ok: false, code, message}, as the side panel would see it."""
        return await asyncio.wait_for(self.sw.evaluate("(k) => globalThis.__faults.runs[k]", self.key), timeout_s)

    async def summary(self) -> dict[str, Any]:
        reply = await self.reply()
        assert reply["ok"], reply
        return reply["data"]

    async def events(self, name: str | None = None) -> list[dict[str, Any]]:
        events = await self.sw.evaluate("(k) => globalThis.__faults.events[k]", self.key)
        return [e["data"] for e in events if name is None or e["name"] == name]

    async def wait_for(self, name: str, timeout_s: float = 60.0) -> dict[str, Any]:
        for _ in range(int(timeout_s * 20)):
            found = await self.events(name)
            if found:
                return found[0]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no {name} event; got {await self.events()}")


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
