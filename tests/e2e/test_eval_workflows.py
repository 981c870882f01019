"""`waymark eval workflows` as the harness runs it: a sites task's fresh run is saved as a
workflow and replayed with no model call, and the judge's word on the replay is recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _workflows(tmp_path: Path, *args: str) -> dict:
    """Run `waymark eval workflows` with `args` and return its one report row."""
    out = tmp_path / "workflows.jsonl"
    done = subprocess.run([sys.executable, "-m", "waymark.host", "eval", "workflows", *args, "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    return row


def test_a_sites_task_run_fresh_is_saved_and_replayed_with_no_model_call_and_judged(tmp_path):
    row = _workflows(tmp_path, "--tasks", "login-sign-in", "--no-variant")
    assert row["task"] == "sites/login-sign-in" and row["fresh"]["success"] and row["saved"]
    assert row["replay"]["success"] and row["replay"]["replay"] == "unchanged"
    assert row["replay"]["model_calls"] == 0 and row["replay"]["tokens_total"] == 0
    assert row["judged"]["replay"].startswith("pass") and not row["false_success"]


def test_a_task_that_asks_something_replays_its_answer_and_the_judge_checks_the_data(tmp_path):
    row = _workflows(tmp_path, "--tasks", "orders-tracking-iframe", "--no-variant")
    assert row["saved"] and row["replay"]["success"] and row["replay"]["model_calls"] == 0
    assert row["replay"]["data"] == {"tracking": "SW 4417 0093 2"} and row["judged"]["replay"] == "pass"
    assert row["replay"]["grounding"]["values"][0]["source"]["where"].startswith("frame ")


def test_an_answer_in_reordered_table_rows_heals_with_the_tasks_own_script_and_is_judged(tmp_path):
    row = _workflows(tmp_path, "--tasks", "orders-total-number", "--heal", "script")
    assert row["variant"]["success"] and row["variant"]["replay"] == "healed" and row["variant"]["model_calls"] == 1
    assert row["variant"]["data"] == {"total": 1249} and row["judged"]["variant"] == "pass" and not row["false_success"]
