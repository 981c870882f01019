"""What the side panel relies on from `agent.run`, in real Chromium with the real extension and
host: step thumbnails, diagnostics of the agent's model calls, and runs that take each role's
provider from the saved settings."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import pytest
import pytest_asyncio

from tests.agent_calls import RecordingModel, start_run, trace_events
from tests.e2e.test_agent import step

OPEN_PANEL = step("Open the panel", {"type": "click", "target": {"role": "button", "name": "Open panel"}},
                  [{"text_present": "Opened the first panel"}])
SCRIPT = {"steps": [OPEN_PANEL]}


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame header; fails on anything that is not a JPEG."""
    assert data[:2] == b"\xff\xd8", "no JPEG start-of-image marker"
    i = 2
    while i + 9 < len(data):
        assert data[i] == 0xFF, f"bad JPEG marker at {i}"
        marker = data[i + 1]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    raise AssertionError("no JPEG start-of-frame header")


async def call(sw: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return await sw.evaluate("([m, p]) => globalThis.waymark.call(m, p)", [method, params or {}])


@pytest_asyncio.fixture
async def saved_settings(sw: Any) -> AsyncIterator[None]:
    """Lets a test change the host's settings; puts them back afterwards."""
    before = (await call(sw, "settings.get"))["settings"]
    yield
    await call(sw, "settings.set", {"settings": before})


def _roles(server: RecordingModel) -> list[str]:
    """Which role each request the server got came from, read off its system prompt."""
    return ["planner" if "planner" in RecordingModel.text(json.loads(b)["messages"][0]) else "other" for b in server.bodies]


@pytest.fixture
def planner_server() -> Iterator[RecordingModel]:
    """An OpenAI-compatible endpoint on loopback that answers every request with one plan."""
    plan = {"steps": [{"intent": OPEN_PANEL["intent"], "verify": OPEN_PANEL["verify"], "required": True}]}
    server = RecordingModel(lambda system, user: {"content": json.dumps(plan)})
    yield server
    server.close()


def role(provider: str, model: str, **options: Any) -> dict[str, Any]:
    return {"provider": provider, "model": model, "options": options}


# ------------------------------------------------------------------ thumbnails


async def test_step_events_carry_a_small_jpeg_thumbnail_of_the_overlay_screenshot(sw, site_url):
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": SCRIPT, "screenshots": True})
    summary = await run.summary()
    assert summary["success"] is True, summary
    steps = [e for e in await run.events("step") if e["verdict"] == "passed"]
    assert steps
    for event in steps:
        width, height = jpeg_size(base64.b64decode(event["thumbnail_b64"]))
        assert 0 < width <= 320 and height > 0
        assert len(event["thumbnail_b64"]) < 60_000


async def test_the_trace_keeps_the_full_screenshot_and_no_thumbnail(sw, site_url):
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": SCRIPT, "screenshots": True})
    summary = await run.summary()
    traced = trace_events(summary["trace_dir"], "step")
    assert traced and all("thumbnail_b64" not in e for e in traced)
    shot = traced[-1]["screenshot"]
    width, _ = jpeg_size((Path(summary["trace_dir"]) / shot).read_bytes())
    assert width > 320


async def test_without_screenshots_steps_carry_no_thumbnail(sw, site_url):
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": SCRIPT, "screenshots": False})
    summary = await run.summary()
    assert summary["success"] is True, summary
    steps = await run.events("step")
    assert steps and all("thumbnail_b64" not in e for e in steps)


# ------------------------------------------------------------------ diagnostics


async def test_diagnostics_count_the_planner_and_executor_calls_of_a_run(sw, site_url):
    await call(sw, "diagnostics.reset")
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": SCRIPT, "screenshots": False})
    assert (await run.summary())["success"] is True
    rows = {(r["provider"], r["phase"]): r for r in (await call(sw, "diagnostics.get"))["rows"]}
    for phase in ("planner", "executor"):
        row = rows[("scripted", phase)]
        assert row["calls"] >= 1 and row["ok"] == row["calls"] and row["errors"] == {}
        assert row["latency"]["n"] == row["ok"]


async def test_failed_model_calls_are_counted_by_error_code_without_latency(sw, site_url):
    await call(sw, "diagnostics.reset")
    failing = step(OPEN_PANEL["intent"], OPEN_PANEL["action"], OPEN_PANEL["verify"], error={"kind": "bad_request", "times": 1})
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": {"steps": [failing]},
                           "screenshots": False})
    await run.reply()
    row = next(r for r in (await call(sw, "diagnostics.get"))["rows"] if (r["provider"], r["phase"]) == ("scripted", "executor"))
    assert row["errors"] == {"provider_bad_request": 1}
    assert row["ok"] == row["calls"] - 1
    assert (row["latency"] or {"n": 0})["n"] == row["ok"]


# ------------------------------------------------------------------ providers from the saved settings


async def test_without_provider_params_each_role_runs_with_its_saved_provider(sw, site_url, saved_settings, planner_server):
    await call(sw, "settings.set", {"settings": {
        "planner": role("openai_compat", "planner-model", base_url=planner_server.url),
        "executor": role("scripted", "scripted", script=SCRIPT),
    }})
    await call(sw, "diagnostics.reset")
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "screenshots": False})
    summary = await run.summary()
    assert summary["success"] is True, summary
    assert _roles(planner_server) == ["planner"]  # the executor's calls went to the scripted provider
    phases = {(r["provider"], r["phase"]) for r in (await call(sw, "diagnostics.get"))["rows"]}
    assert phases == {("openai_compat", "planner"), ("scripted", "executor")}


async def test_explicit_params_win_over_the_saved_settings(sw, site_url, saved_settings, planner_server):
    await call(sw, "settings.set", {"settings": {"planner": role("openai_compat", "planner-model", base_url=planner_server.url),
                                                 "executor": role("openai_compat", "executor-model", base_url=planner_server.url)}})
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": SCRIPT, "screenshots": False})
    assert (await run.summary())["success"] is True
    assert _roles(planner_server) == []


async def test_without_provider_params_or_saved_provider_the_run_says_to_configure_one(sw, site_url, saved_settings):
    empty = role("", "")
    await call(sw, "settings.set", {"settings": {"chat": empty, "planner": empty, "executor": empty}})
    reply = await (await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html"})).reply()
    assert reply["ok"] is False
    assert reply["code"] == "provider_not_configured"
    assert "settings" in reply["message"]
