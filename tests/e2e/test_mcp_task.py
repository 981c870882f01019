"""`browser_run_task` through MCP: a whole task delegated to Waymark's own agent (the scripted
provider here), its steps streamed as progress notifications, and cancellation."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio

from tests.e2e.mcp_helpers import McpClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

OPEN_PANEL = {"steps": [{"intent": "Open the panel", "action": {"type": "click", "target": {"name": "Open panel"}},
                         "verify": [{"text_present": "Opened the first panel"}]}]}
#: The agent asks the user first, then does what the answer says.
ASK_FIRST = {"steps": [
    {"intent": "Ask which panel to open", "action": {"type": "ask_user", "question": "Which panel should I open?"}, "verify": []},
    OPEN_PANEL["steps"][0],
]}
#: One step that waits far longer than any test: only cancelling ends it early.
WAIT_LONG = {"steps": [{"intent": "Wait for a long time", "action": {"type": "wait", "ms": 60000}, "verify": []}]}


async def scripted_client(tmp_path_factory: pytest.TempPathFactory, script: dict[str, Any]) -> McpClient:
    path = tmp_path_factory.mktemp("script") / "script.json"
    path.write_text(json.dumps(script))
    return McpClient("--launch", "--script", str(path))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    async with await scripted_client(tmp_path_factory, OPEN_PANEL) as c:
        yield c


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def slow_client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    async with await scripted_client(tmp_path_factory, WAIT_LONG) as c:
        yield c


class Progress:
    """The progress notifications of one call."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.values: list[float] = []
        self.arrived = asyncio.Event()

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.values.append(progress)
        self.messages.append(message or "")
        self.arrived.set()


async def test_run_task_streams_each_step_as_progress_and_returns_the_verified_summary(client, site_url):
    progress = Progress()
    result = await client.call("browser_run_task", {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html"},
                               progress_callback=progress)
    summary = result.content[0].text
    assert not result.is_error, summary
    assert "1/1 steps verified" in summary and "Trace: waymark trace show " in summary
    assert progress.messages[0].startswith("run ") and progress.messages[0].endswith(" started")
    assert any("Open the panel" in m and "✓" in m for m in progress.messages), progress.messages
    assert progress.values == sorted(progress.values), "progress only grows"


async def test_a_question_of_the_agent_reaches_the_clients_user_through_elicitation(tmp_path_factory, site_url):
    asked: list[str] = []

    async def user(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": "the first one"})

    path = tmp_path_factory.mktemp("script") / "ask.json"
    path.write_text(json.dumps(ASK_FIRST))
    async with McpClient("--launch", "--script", str(path), elicit=user) as asking:
        result = await asking.call("browser_run_task", {"task": "Open a panel", "start_url": f"{site_url}/agent/menu.html"})
    summary = result.content[0].text
    assert not result.is_error, summary
    assert asked == ["Waymark's agent asks: Which panel should I open?"]
    assert "2/2 steps verified" in summary


async def test_cancelling_run_task_stops_the_agent_run(slow_client, site_url):
    progress = Progress()
    call = asyncio.ensure_future(slow_client.call("browser_run_task", {"task": "Wait", "start_url": f"{site_url}/agent/menu.html"},
                                                  progress_callback=progress))
    await asyncio.wait_for(progress.arrived.wait(), 30)
    run_id = re.match(r"run (\S+) started", progress.messages[0]).group(1)
    await asyncio.sleep(1.0)  # the run is inside its 60 s wait now
    started = time.monotonic()
    call.cancel()
    summary_file = Path(os.environ["WAYMARK_RUNS_DIR"]) / run_id / "summary.json"
    while not summary_file.exists():
        # Not a speed check: an uncancelled run would wait out the rest of its 60 s step.
        assert time.monotonic() - started < 45, "the run did not stop after the call was cancelled"
        await asyncio.sleep(0.1)
    summary = json.loads(summary_file.read_text())
    assert summary["outcome"] == "cancelled"
