"""`waymark eval table`: an eval report as a markdown table, with the pass rate's 95% interval,
tokens and seconds per task, under the command that reruns it, its dates and its commit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from waymark.eval.report import Row
from waymark.eval.tables import report_table, wilson

WAYMARK = Path(sys.executable).parent / "waymark"


def _row(task: str, verdict: str, seconds: float, tokens: int, at: str = "2026-11-27T22:30:00+00:00") -> Row:
    return Row(task=task, suite="smoke", verdict=verdict, latency_ms=seconds * 1000, tokens_total=tokens, provider="llamacpp",
               model="qwen", git_sha="abc1234def56", timestamp=at)


@pytest.mark.parametrize("passed, n, low, high", [(0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (8, 16, 0.2800, 0.7200)])
def test_the_pass_rate_interval_is_wilsons(passed, n, low, high):
    assert wilson(passed, n) == (pytest.approx(low, abs=1e-4), pytest.approx(high, abs=1e-4))


def test_a_report_row_gives_pass_rate_with_its_interval_tokens_and_seconds_per_task():
    rows = [_row("smoke/a", "pass", 10.0, 3000), _row("smoke/b", "fail", 20.0, 5000), _row("smoke/c", "error", 60.0, 1000)]
    text = report_table("smoke.jsonl", rows)
    assert "| smoke | 3 | 1 | 33% (6%–79%) | 1 | 1 | 3,000 | 20.0 / 30.0 |" in text


def test_a_report_is_headed_by_the_command_that_reruns_its_tasks_its_dates_and_its_commit():
    rows = [_row("smoke/checkout-express", "pass", 1.0, 0), _row("smoke/account-open-statements", "pass", 1.0, 0, "2026-11-27T22:40:00+00:00")]
    text = report_table("smoke.jsonl", rows)
    assert ("`waymark eval run --suite smoke --model llamacpp:qwen --tasks account-open-statements,checkout-express "
            "--out smoke.jsonl`") in text
    assert "Date: 2026-11-27T22:30:00+00:00 to 2026-11-27T22:40:00+00:00. Commit: `abc1234def56`." in text


def test_eval_table_refuses_a_file_that_is_not_a_report_naming_it(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    done = subprocess.run([str(WAYMARK), "eval", "table", str(bad)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"waymark eval table: {bad}:1: not a report row" in done.stderr
