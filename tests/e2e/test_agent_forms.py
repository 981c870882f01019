"""The agent loop with the new form actions: upload_file is offered only with an upload folder,
and a scripted run uploads a file and pastes copied text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agent_calls import start_run, trace_events


def step(intent: str, action: dict[str, Any], verify: list[dict[str, Any]]) -> dict[str, Any]:
    return {"intent": intent, "action": action, "verify": verify}


async def test_a_run_uploads_a_file_from_the_upload_folder(sw, site_url, tmp_path: Path):
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 twelve")
    script = {"steps": [step("Attach the report", {"type": "upload_file", "target": {"name": "Document"}, "files": ["report.pdf"]},
                             [{"text_present": "report.pdf:15"}])]}
    run = await start_run(sw, {"task": "Attach report.pdf", "start_url": f"{site_url}/dispatch/upload.html", "script": script,
                               "upload_dir": str(tmp_path)})
    summary = await run.summary()
    assert summary["success"] is True, summary
    (attach,) = [e for e in trace_events(summary["trace_dir"], "step") if e["intent"] == "Attach the report"]
    assert attach["verdict"] == "passed"
    assert "report.pdf" in attach["action_line"]


async def test_without_an_upload_folder_the_executor_is_refused_upload_file(sw, site_url):
    script = {"steps": [step("Attach the report", {"type": "upload_file", "target": {"name": "Document"}, "files": ["report.pdf"]},
                             [{"text_present": "report.pdf:15"}])]}
    run = await start_run(sw, {"task": "Attach report.pdf", "start_url": f"{site_url}/dispatch/upload.html", "script": script,
                               "budgets": {"retries_per_step": 0}})
    summary = await run.summary()
    assert summary["success"] is False
    refusals = [p for e in trace_events(summary["trace_dir"], "step") for p in e["parse_failures"]]
    assert refusals and all(p["kind"] == "not_offered" and "no upload folder is set" in p["detail"] for p in refusals)
    assert "upload_file" not in refusals[0]["detail"].split("choose one of:")[1]


async def test_a_run_copies_page_text_into_a_field(sw, site_url):
    script = {"steps": [
        step("Select the phrase", {"type": "select_text", "text": "lazy dog"}, []),
        step("Copy it", {"type": "press", "key": "Control+C"}, []),
        step("Paste it into Target", {"type": "press", "key": "Control+V", "target": {"name": "Target"}},
             [{"value_equals": {"target": {"name": "Target"}, "value": "lazy dog"}}]),
    ]}
    run = await start_run(sw, {"task": "Copy the phrase into Target", "start_url": f"{site_url}/dispatch/clipboard.html", "script": script})
    summary = await run.summary()
    assert summary["success"] is True, summary
