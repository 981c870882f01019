"""Provider faults during a real agent run: Chromium with the extension, the real host, the
real openai_compat provider against a loopback model server that injects 429s, 500s, resets and
cut bodies. Transient faults are retried and the run succeeds; a lasting outage ends the run
with a clear error and a complete trace, and the host serves the next run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import AsyncIterator

import pytest_asyncio

from tests.agent_calls import start_run, trace_events
from tests.reliability.fake_model import FakeModel

PLAN = [
    {"intent": "Open the panel", "action": {"type": "click", "target": {"role": "button", "name": "Open panel"}},
     "verify": [{"text_present": "Opened the first panel"}]},
    {"intent": "Go to the other page", "action": {"type": "click", "target": {"role": "link", "name": "Other page"}},
     "verify": [{"url_contains": "/menu-b.html"}]},
]


@pytest_asyncio.fixture
async def model() -> AsyncIterator[FakeModel]:
    server = await FakeModel(plan=PLAN).start()
    yield server
    await server.stop()


async def test_transient_provider_faults_in_every_phase_are_retried_and_the_run_succeeds(sw, site_url, model):
    # Planner: 429 then fine. Step 1: 500, a cut body, then fine. Step 2: a reset, then fine.
    model.faults = ["429", "ok", "500", "drop", "ok", "reset", "ok"]
    run = await start_run(sw, {"task": "Open the panel, then go to the other page", "start_url": f"{site_url}/agent/menu.html",
                               "screenshots": False, **model.provider_params()})
    summary = await run.summary()
    assert summary["success"] is True, summary
    assert (summary["steps_passed"], summary["steps_total"]) == (2, 2)
    assert [s.fault for s in model.seen] == ["429", "ok", "500", "drop", "ok", "reset", "ok"]
    assert [s.role for s in model.seen] == ["planner", "planner", "executor", "executor", "executor", "executor", "executor"]
    steps = trace_events(summary["trace_dir"], "step")
    assert [s["verdict"] for s in steps] == ["passed", "passed"]


async def test_a_lasting_provider_outage_ends_the_run_with_a_clear_error_and_a_complete_trace(sw, site_url, model):
    model.faults = ["ok", "500", "500", "500"]
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "screenshots": False,
                               **model.provider_params()})
    summary = await run.summary()
    assert summary["success"] is False
    assert summary["outcome"] == "error"
    assert "Unavailable" in summary["reason"] and "500" in summary["reason"]
    saved = json.loads((Path(summary["trace_dir"]) / "summary.json").read_text())
    assert saved["outcome"] == "error" and saved["reason"] == summary["reason"]
    assert [e["event"] for e in trace_events(summary["trace_dir"])][:2] == ["run", "plan"]
    assert trace_events(summary["trace_dir"])[-1]["event"] == "finished"
    # The host survived: the same server, healthy again, serves a whole run.
    model.faults = []
    again = await (await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "screenshots": False,
                                        **model.provider_params()})).summary()
    assert again["success"] is True, again
