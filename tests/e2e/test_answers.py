"""Answers a program can use, end to end: `waymark run --output-schema --json`, MCP's
browser_run_task with `output_schema` (the official client), and extraction tasks of the eval
harness, each in real Chromium with the real extension and host, on the orders fixture site
(eval/sites/orders: a table, a cross-origin tracking iframe, rewards that load on scroll).
The scripted provider gives the answers, so grounding is tested without a model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.mcp_helpers import McpClient
from tests.e2e.test_agent_cli import waymark
from waymark.eval.report import read_rows
from waymark.eval.runner import RunConfig, run_suite
from waymark.eval.sites.serve import SiteServer
from waymark.eval.tasks import SUITES_DIR
from waymark.providers.spec import ModelSpec

ASYNC = pytest.mark.asyncio(loop_scope="session")

TOTAL = {"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"], "additionalProperties": False}
TRACKING = {"type": "object", "properties": {"tracking": {"type": "string"}, "order": {"type": "string"}}, "required": ["tracking"]}


@pytest.fixture(scope="module")
def orders() -> Any:
    """The orders page, its tracking widget on the second origin."""
    with SiteServer() as server:
        yield f"{server.site}/orders/index.html?track={server.other}"


def files(tmp_path: Path, script: dict[str, Any], schema: dict[str, Any]) -> tuple[str, str]:
    script_path, schema_path = tmp_path / "script.json", tmp_path / "schema.json"
    script_path.write_text(json.dumps(script))
    schema_path.write_text(json.dumps(schema))
    return str(script_path), str(schema_path)


def run_json(tmp_path: Path, orders: str, script: dict[str, Any], schema: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    script_path, schema_path = files(tmp_path, script, schema)
    done = waymark("run", "What is the tracking number?", "--start-url", orders, "--script", script_path,
                   "--output-schema", schema_path, "--json")
    assert done.stdout.strip(), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_run_json_prints_the_data_and_where_each_value_was_found_a_frame_included(tmp_path, orders):
    code, summary = run_json(tmp_path, orders, {"steps": [], "data": {"tracking": "SW 4417 0093 2", "order": "PX-1043"}}, TRACKING)
    assert code == 0 and summary["success"] is True, summary["reason"]
    assert summary["data"] == {"tracking": "SW 4417 0093 2", "order": "PX-1043"}
    found = {v["path"]: v for v in summary["grounding"]["values"]}
    assert found["$.tracking"]["status"] == "found"
    assert found["$.tracking"]["source"]["where"].startswith("frame http://localhost:")
    assert found["$.order"]["source"]["where"] in ("element", "page text")  # the orders table, before the frame that names it too


def test_a_made_up_value_in_a_scripted_answer_is_ungrounded_and_the_run_unproven(tmp_path, orders):
    code, summary = run_json(tmp_path, orders, {"steps": [], "data": {"tracking": "SW 0000 1111 2"}}, TRACKING)
    assert code == 1 and summary["success"] is False and summary["outcome"] == "unproven"
    assert "$.tracking ('SW 0000 1111 2')" in summary["reason"]
    assert summary["grounding"]["ungrounded"] == 1 and summary["grounding"]["values"][0]["source"] is None


def test_an_answer_that_does_not_validate_is_sent_back_once_and_a_second_fails_the_run(tmp_path, orders):
    bad = {"type": "done", "result": "about 1249", "data": {"total": "€ 1,249.00"}}
    code, summary = run_json(tmp_path, orders, {"steps": [{"intent": "Answer", "action": bad}]}, TOTAL)
    assert code == 1 and summary["outcome"] == "failed"
    assert summary["reason"] == "the answer does not match the output schema: $.total: '€ 1,249.00' is not of type 'number'"
    events = [json.loads(line) for line in Path(summary["trace_dir"], "trace.jsonl").read_text().splitlines()]
    assert [e["verdict"] for e in events if e["event"] == "step"] == ["retry", "failed"]


def test_an_answer_corrected_after_the_validators_message_succeeds(tmp_path, orders):
    step = {"intent": "Answer", "fail_first": 1, "wrong_action": {"type": "done", "data": {"total": "1,249"}},
            "action": {"type": "done", "data": {"total": 1249}}}
    code, summary = run_json(tmp_path, orders, {"steps": [step]}, TOTAL)
    assert code == 0 and summary["data"] == {"total": 1249}, summary["reason"]
    assert summary["grounding"]["values"][0]["source"]["element"] or summary["grounding"]["values"][0]["status"] == "found"


def test_an_output_schema_that_is_no_json_schema_is_a_usage_error(tmp_path, orders):
    script_path, schema_path = files(tmp_path, {"steps": []}, {"type": "object", "required": "total"})
    done = waymark("run", "Total?", "--start-url", orders, "--script", script_path, "--output-schema", schema_path, "--json")
    assert done.returncode == 2 and "--output-schema" in done.stderr and "not a valid JSON Schema" in done.stderr


# ------------------------------------------------------------------ MCP


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def mcp_client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("script") / "script.json"
    path.write_text(json.dumps({"steps": [], "result": "€ 1,249.00", "data": {"total": 1249}}))
    async with McpClient("--launch", "--script", str(path)) as client:
        yield client


@ASYNC
async def test_mcp_run_task_returns_the_answer_as_structured_content(mcp_client, orders):
    result = await mcp_client.call("browser_run_task", {"task": "What is the total of order PX-1042?", "start_url": orders,
                                                        "output_schema": TOTAL})
    assert not result.is_error, result.content[0].text
    answer = result.structured_content
    assert answer["data"] == {"total": 1249} and answer["success"] is True
    assert answer["grounding"]["values"][0]["status"] == "found"
    assert "data: {\"total\": 1249}" in result.content[0].text


@ASYNC
async def test_mcp_run_task_refuses_an_output_schema_that_is_no_json_schema(mcp_client, orders):
    result = await mcp_client.call("browser_run_task", {"task": "Total?", "start_url": orders, "output_schema": {"type": 5}})
    assert result.is_error and "output_schema" in result.content[0].text


# ------------------------------------------------------------------ eval


def _suite(tmp_path: Path, name: str, script: dict[str, Any]) -> Path:
    """A suite of one task: the sites suite's task `name` with another script."""
    folder = tmp_path / "suites" / "custom"
    folder.mkdir(parents=True)
    task = json.loads((SUITES_DIR / "sites" / f"{name}.json").read_text())
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script))
    (folder / f"{name}.json").write_text(json.dumps({**task, "script": str(script_path)}))
    return tmp_path / "suites"


async def _row(tmp_path: Path, name: str, script: dict[str, Any]) -> Any:
    config = RunConfig(suite="custom", executor=ModelSpec.make("scripted", "scripted"), out=tmp_path / "r.jsonl",
                       suites_dir=_suite(tmp_path, name, script))
    await run_suite(config)
    (row,) = read_rows(config.out)
    return row


@ASYNC
async def test_the_right_answer_never_read_off_a_page_is_no_pass(tmp_path):
    # The rewards load only when scrolled into view: answered without the scroll, the right
    # number was never on a page the run saw.
    row = await _row(tmp_path, "orders-reward-points-scroll", {"steps": [], "data": {"points": 2480}})
    assert row.verdict == "fail" and "never saw these values on a page: $.points" in row.reason
    assert (row.details["grounded"], row.details["ungrounded"], row.details["outcome"]) == (0, 1, "unproven")


@ASYNC
async def test_a_made_up_value_fails_an_extraction_task_and_is_counted_ungrounded(tmp_path):
    row = await _row(tmp_path, "orders-total-number", {"steps": [], "data": {"total": 1294}})
    assert row.verdict == "fail" and "is not the expected" in row.reason
    assert row.details["ungrounded"] == 1 and row.details["data"] == {"total": 1294}


@ASYNC
async def test_an_extraction_task_run_without_its_schema_asks_for_any_answer_and_judges_its_data_the_same(tmp_path):
    config = RunConfig(suite="sites", tasks=["orders-placed-date"], executor=ModelSpec.make("scripted", "scripted"),
                       out=tmp_path / "r.jsonl", output_schema=False)
    await run_suite(config)
    (row,) = read_rows(config.out)
    assert row.verdict == "pass", row.reason
    assert row.details["grounded"] == 1
