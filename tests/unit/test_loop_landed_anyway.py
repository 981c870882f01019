"""An action that reports a failure may still have landed: before a retry the loop judges the
step's checks on the page it now sees, so work already done is neither redone nor refused."""

from __future__ import annotations

import asyncio
from typing import Any

from waymark.host.agent.human import NobodyHome
from waymark.host.agent.loop import AgentRun, RunOptions
from waymark.providers.scripted import ScriptedProvider

URL = "http://127.0.0.1:9/settings"
BOX = "Email me a daily digest"


def _snapshot(ref: int, checked: bool) -> dict[str, Any]:
    states = {"checked": checked}
    line = f'[{ref}] checkbox "{BOX}"' + (" checked" if checked else "")
    return {"url": URL, "title": "Settings", "tab_id": 7, "stats": {}, "text": line,
            "elements": [{"ref": ref, "role": "checkbox", "name": BOX, "in_viewport": True, "states": states}]}


class RerenderingPage:
    """A page that re-renders the box its click toggled: the browser reports the ref stale
    although the box is now checked, and hands over the fresh snapshot."""

    def __init__(self) -> None:
        self.current = _snapshot(1, checked=False)
        self.acts: list[dict[str, Any]] = []

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> dict[str, Any]:
        if method == "snapshot":
            return self.current
        if method == "act":
            action = (params or {})["action"]
            if action["type"] == "extract":
                return {"ok": True, "action": "extract", "url_before": URL, "url_after": URL, "tab_id": 7, "text": BOX}
            self.acts.append(action)
            self.current = _snapshot(2, checked=True)
            return {"ok": False, "action": action["type"], "url_before": URL, "url_after": URL, "tab_id": 7, "snapshot": self.current,
                    "error": {"code": "stale_ref", "message": "ref 1 no longer exists in the page (it was removed or re-rendered)"}}
        if method in ("tabs.active", "tabs.open"):
            return {"tab_id": 7}
        if method == "act.detach":
            return {"detached": True}
        raise ValueError(f"this page has no answer for {method!r}")


def test_a_check_that_landed_although_its_ref_went_stale_passes_its_step_without_acting_again(tmp_path, monkeypatch):
    monkeypatch.setenv("WAYMARK_RUNS_DIR", str(tmp_path))
    check = {"checked": {"target": {"role": "checkbox", "name": BOX}, "value": True}}
    script = {"steps": [{"intent": "Turn on the digest", "action": {"type": "check", "target": {"role": "checkbox", "name": BOX}},
                         "verify": [check]}], "result": "digest on"}
    provider = ScriptedProvider(script=script)
    page = RerenderingPage()
    events: list[tuple[str, dict[str, Any]]] = []
    options = RunOptions(task="Turn on the daily digest", screenshots=False, policy={"destructive": "allow"})
    run = AgentRun(options, page, provider, provider, NobodyHome(), emit=lambda kind, record: events.append((kind, record)))  # type: ignore[arg-type]
    summary = asyncio.run(run.run())
    assert summary.success, summary.reason
    assert len(page.acts) == 1, "the box was clicked once"
    steps = [record for kind, record in events if kind == "step"]
    assert [s["verdict"] for s in steps] == ["retry", "passed"]
    assert steps[1]["changed"] == [check] and "landed" in steps[1]["reason"]
    assert summary.retries == 0 and summary.replans == 0
