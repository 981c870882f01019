"""Process faults in the middle of an agent step, in a browser of their own (these tests kill
parts of it): the host process killed while the model is answering, and the extension's
service worker stopped while a run is in flight. The extension reports the loss, reconnects to
a fresh host, the run's trace is on disk, and the next run works."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
import pytest_asyncio

from tests.agent_calls import start_run, trace_events
from tests.conftest import wait_connected
from tests.e2e.worker_helpers import stop_service_worker, until
from tests.reliability.fake_model import FakeModel

pytestmark = pytest.mark.timeout(120)

PLAN = [{"intent": "Open the panel", "action": {"type": "click", "target": {"role": "button", "name": "Open panel"}},
         "verify": [{"text_present": "Opened the first panel"}]}]


@pytest_asyncio.fixture
async def model() -> AsyncIterator[FakeModel]:
    server = await FakeModel(plan=PLAN).start()
    yield server
    await server.stop()


def _host_log_tail(lines: int = 40) -> str:
    """The end of the hosts' log, so a failure says what the host was doing."""
    from waymark.host.core.paths import state_dir
    from waymark.host.logs import LOG_FILE_NAME

    log = state_dir() / LOG_FILE_NAME
    return "host.log:\n" + "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else "no host.log"


async def _run_in_flight(sw: Any, model: FakeModel, site_url: str) -> tuple[Any, str]:
    """A run whose executor call is held at the model server; returns (call, trace_dir)."""
    model.faults = ["ok", "hold"]
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "screenshots": False,
                               **model.provider_params()})
    started = await run.wait_for("run")
    await until(lambda: len(model.seen) >= 2)
    assert model.seen[1].role == "executor", "the run is mid-step: the executor's model call is in flight"
    return run, started["trace_dir"]


async def _a_whole_run_succeeds(sw: Any, model: FakeModel, site_url: str) -> None:
    model.faults = []
    model.release()
    summary = await (await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html",
                                          "screenshots": False, **model.provider_params()})).summary()
    assert summary["success"] is True, summary


async def test_killing_the_host_mid_step_ends_the_run_with_a_clear_error_and_the_extension_reconnects(own_browser, model, site_url):
    sw = own_browser.service_worker
    before = (await wait_connected(sw))["connects"]
    pid = (await sw.evaluate("() => globalThis.waymark.call('host.info')"))["pid"]
    run, trace_dir = await _run_in_flight(sw, model, site_url)

    os.kill(pid, signal.SIGKILL)

    reply = await run.reply()
    assert reply["ok"] is False
    assert reply["code"] in ("host_exited", "host_disconnected")
    assert "host connection lost" in reply["message"]
    state = await wait_connected(sw, min_connects=before + 1)
    assert state["status"] == "connected"
    assert (await sw.evaluate("() => globalThis.waymark.call('host.info')"))["pid"] != pid
    # What happened before the kill is on disk: the run and its plan.
    assert [e["event"] for e in trace_events(trace_dir)][:2] == ["run", "plan"]
    await _a_whole_run_succeeds(sw, model, site_url)


async def test_stopping_the_service_worker_mid_run_cancels_the_run_with_its_trace_and_a_fresh_worker_serves_the_next(own_browser, model, site_url):
    from waymark.host.launch import find_service_worker

    sw = own_browser.service_worker
    run, trace_dir = await _run_in_flight(sw, model, site_url)

    await stop_service_worker(own_browser)

    # The port closed with the worker: the host cancels the run and finishes its trace.
    summary_file = Path(trace_dir) / "summary.json"
    await until(summary_file.exists, timeout_s=20, evidence=_host_log_tail)
    finished = trace_events(trace_dir, "finished")
    assert finished and finished[-1]["outcome"] == "cancelled"
    # Any extension event wakes a fresh worker, which connects to a fresh host.
    panel = await own_browser.context.new_page()
    await panel.goto(f"chrome-extension://{own_browser.extension_id}/sidepanel/sidepanel.html")
    fresh = await find_service_worker(own_browser.context, own_browser.extension_id)
    own_browser.service_worker = fresh
    await wait_connected(fresh)
    await _a_whole_run_succeeds(fresh, model, site_url)
    await panel.close()
