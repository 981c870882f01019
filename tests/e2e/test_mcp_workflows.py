"""Workflows through MCP with the official client: a delegated run saved with
browser_save_workflow becomes a tool of its own whose input schema is its parameters, and calling
that tool replays the workflow with no model call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.mcp_helpers import McpClient, text_of
from waymark.eval.sites.serve import SITES_DIR, SiteServer

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
SIGN_IN = {
    "steps": json.loads((ROOT / "eval" / "scripts" / "sites" / "login-sign-in.json").read_text())["steps"],
    "success_criteria": [{"url_contains": "/login/account.html"}, {"text_present": "Welcome, ada"}],
}


@pytest.fixture(scope="module")
def login_url() -> Any:
    server = SiteServer(SITES_DIR).start()
    yield f"{server.site}/login/index.html"
    server.close()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(tmp_path_factory: pytest.TempPathFactory, login_url: str) -> Any:
    from waymark.host.core.secrets_store import grant_secret, set_secret

    # The replays type the password: bound to the site, and granted to this client there.
    set_secret("password", "lovelace", [login_url])
    grant_secret("password", "waymark-tests", login_url)
    path = tmp_path_factory.mktemp("script") / "sign-in.json"
    path.write_text(json.dumps(SIGN_IN))
    async with McpClient("--launch", "--script", str(path)) as c:
        yield c


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def saved(client: Any, login_url: str) -> str:
    """A delegated sign-in run saved as the workflow mcp-sign-in; what the save tool answered."""
    ran = await client.text("browser_run_task", {"task": "Sign in to Ledger with the username ada and the password lovelace.",
                                                 "start_url": login_url})
    run_id = ran.rsplit("waymark trace show ", 1)[1].split()[0]
    return str(await client.text("browser_save_workflow", {"run_id": run_id, "name": "mcp-sign-in", "description": "Sign in to Ledger"}))


async def test_a_saved_run_is_a_tool_whose_schema_is_its_parameters_and_replays_with_no_model_call(client, saved):
    assert "workflow_mcp-sign-in" in saved and "parameters: username" in saved

    assert client.session is not None
    tools = {t.name: t for t in (await client.session.list_tools()).tools}
    schema = tools["workflow_mcp-sign-in"].input_schema
    assert schema["properties"]["username"]["default"] == "ada" and "start_url" in schema["properties"]
    # Words whoever saved it wrote are no tool's instructions: a fixed template and the name.
    assert tools["workflow_mcp-sign-in"].description.startswith("Replay the saved workflow mcp-sign-in: 3 steps")
    assert "Sign in to Ledger" not in (tools["workflow_mcp-sign-in"].description or "")

    replayed = await client.text("workflow_mcp-sign-in", {})
    assert "SUCCESS: 3/3 steps verified" in replayed and "replay: unchanged, 0 model call(s), 0 tokens" in replayed


async def test_saving_a_workflow_tells_the_client_its_tool_list_changed(client, saved):
    assert client.capabilities is not None and client.capabilities.tools is not None
    assert client.capabilities.tools.list_changed is True
    assert "notifications/tools/list_changed" in client.notified


async def test_a_workflow_tool_refuses_an_argument_that_is_not_its_parameter(client, saved):
    result = await client.call("workflow_mcp-sign-in", {"colour": "red"})
    assert result.is_error and "bad_arguments" in text_of(result)


async def test_saving_a_run_that_does_not_exist_is_a_clear_error(client):
    result = await client.call("browser_save_workflow", {"run_id": "19990101-000000-000000", "name": "nothing"})
    assert result.is_error and "no_such_run" in text_of(result)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def answer_client() -> Any:
    async with McpClient("--launch", "--script", str(ROOT / "eval" / "scripts" / "sites" / "orders-total-number.json")) as c:
        yield c


async def test_a_workflow_of_a_run_that_answered_gives_its_answer_again_as_structured_content(answer_client, login_url):
    task = json.loads((ROOT / "eval" / "suites" / "sites" / "orders-total-number.json").read_text())
    orders = login_url.replace("/login/index.html", "/orders/index.html")
    ran = await answer_client.call("browser_run_task", {"task": task["goal"], "start_url": orders, "output_schema": task["output_schema"]})
    run_id = ran.structured_content["run_id"]
    await answer_client.text("browser_save_workflow", {"run_id": run_id, "name": "mcp-order-total"})
    replayed = await answer_client.call("workflow_mcp-order-total", {})
    assert not replayed.is_error and replayed.structured_content["success"] is True
    assert replayed.structured_content["data"] == {"total": 1249}
    assert replayed.structured_content["grounding"]["values"][0]["status"] == "found"


async def test_the_workflow_list_shows_each_workflows_schedule_and_last_result_read_only(client, saved):
    from datetime import datetime

    from waymark.host.workflows import schedule
    from waymark.host.workflows.schedule import Schedule, at_time, stamp

    schedule.put(Schedule(workflow="mcp-sign-in", cadence=at_time("daily", "08:00"), created=stamp(datetime.now().astimezone())))
    try:
        listed = await client.call("browser_list_workflows", {})
        row = next(w for w in listed.structured_content["workflows"] if w["name"] == "mcp-sign-in")
        assert (row["schedule"]["when"], row["schedule"]["last"]) == ("daily at 08:00", None)
        assert "mcp-sign-in: daily at 08:00, last run: none yet" in text_of(listed)
        tools = {t.name for t in (await client.session.list_tools()).tools}
        # No tool makes or changes a schedule (a saved workflow's own tool may have the word in its name).
        assert not any("schedule" in name for name in tools if not name.startswith("workflow_"))
    finally:
        schedule.remove("mcp-sign-in")
