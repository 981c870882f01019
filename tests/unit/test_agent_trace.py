"""Traces on disk, the repair helpers' choices, and the timeline text."""

import json
import stat

import pytest

from waymark.host.agent.redaction import Redactor
from waymark.host.agent.repair import close_control, occluder_ref
from waymark.host.agent.timeline import step_line, summary_lines
from waymark.host.agent.trace import (
    RunSummary,
    TraceNotFound,
    TraceWriter,
    find_run,
    read_trace,
)
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot


def test_a_trace_is_private_and_redacted(tmp_path):
    redactor = Redactor()
    redactor.learn("s3cr3t-value")
    trace = TraceWriter("20260101-000000-abcdef", redactor, root=tmp_path)
    trace.event("step", action={"type": "fill", "text": "s3cr3t-value"})
    trace.artifact_text("model.txt", "typed s3cr3t-value")
    trace.summary(RunSummary(success=True, duration_ms=1, tokens_total=2, steps_passed=1, steps_total=1, reason="s3cr3t-value"))
    assert stat.S_IMODE(trace.dir.stat().st_mode) == 0o700
    for path in trace.dir.rglob("*"):
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert b"s3cr3t-value" not in path.read_bytes()
    events, summary = read_trace(trace.dir)
    assert events[0]["action"]["text"] == "[redacted]"
    assert set(json.loads((trace.dir / "summary.json").read_text())) >= {"success", "duration_ms", "tokens_total", "steps_passed", "steps_total"}
    assert summary["success"] is True


def test_a_short_secret_inside_the_run_id_and_artifact_paths_leaves_them_intact(tmp_path):
    redactor = Redactor()
    trace = TraceWriter("20260101-000000-a123ef", redactor, root=tmp_path)
    shot = trace.artifact_b64("step-123.jpg", "/9j/")
    redactor.learn("123")  # a card's CVC, learned mid-run
    event = trace.event("step", run_id=trace.run_id, trace_dir=str(trace.dir), screenshot=shot, typed="cvc 123")
    assert event["run_id"] == "20260101-000000-a123ef"
    assert event["trace_dir"] == str(trace.dir)
    assert event["screenshot"] == "artifacts/step-123.jpg"
    assert event["typed"] == "cvc [redacted]"


def test_runs_are_found_by_id_prefix_or_latest(tmp_path):
    for run_id in ("20260101-000000-aaaaaa", "20260102-000000-bbbbbb"):
        TraceWriter(run_id, Redactor(), root=tmp_path).event("run")
    assert find_run("latest", root=tmp_path).name == "20260102-000000-bbbbbb"
    assert find_run("20260101", root=tmp_path).name == "20260101-000000-aaaaaa"
    with pytest.raises(TraceNotFound):
        find_run("2026", root=tmp_path)
    with pytest.raises(TraceNotFound):
        find_run("nope", root=tmp_path)


def test_the_close_control_of_an_occluder_is_found_inside_its_box():
    snap = Snapshot(url="https://x.test", elements=[
        {"ref": 1, "role": "button", "name": "Close", "bbox": [10, 10, 40, 20]},          # outside the drawer
        {"ref": 5, "role": "dialog", "name": "Offer", "bbox": [900, 0, 380, 800]},
        {"ref": 6, "role": "button", "name": "Add protection", "bbox": [920, 300, 200, 40]},
        {"ref": 7, "role": "button", "name": "No thanks", "bbox": [920, 360, 200, 40]},
    ])
    assert close_control(snap, 5) == 7


def test_the_occluder_ref_comes_from_the_error_data():
    result = ActionResult(ok=False, action="click", error={"code": "occluded", "message": "covered", "data": {"occluder_ref": 12}})
    assert occluder_ref(result) == 12


def test_timeline_lines_show_the_verdict_action_and_reason():
    line = step_line({"step": 3, "intent": "Open the cart", "verdict": "retry", "attempt": 2, "action_line": 'click [4] link "Cart"',
                      "reason": "the step's checks failed", "timing": {"model_ms": 10, "dispatch_ms": 90}})
    assert "↻" in line and "(attempt 2)" in line and 'click [4] link "Cart"' in line and "checks failed" in line and "100 ms" in line
    assert summary_lines({"success": False, "outcome": "budget_steps", "steps_passed": 1, "steps_total": 3}).startswith("OUT OF STEPS: 1/3")


def test_an_unproven_run_is_printed_as_unproven_never_as_success():
    text = summary_lines({"success": False, "outcome": "unproven", "steps_passed": 0, "steps_total": 3, "steps_unproven": 3,
                          "reason": "nothing proves the task was done"})
    assert text.startswith("UNPROVEN: 0/3 steps verified") and "3 unproven" in text
    assert "SUCCESS" not in text
