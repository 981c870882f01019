"""`waymark workflow schedule` as a user types it: schedules made, listed, paused, resumed and
removed in the config folder, and every mistake one readable line with exit code 1."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config folder holding a workflow that answers a total and one that places an order."""
    from waymark.host.workflows import store
    from waymark.host.workflows.model import Workflow

    monkeypatch.setenv("WAYMARK_CONFIG_DIR", str(tmp_path))
    step = {"intent": "Open the orders", "action": {"type": "click"}, "checks": [{"url_contains": "/orders"}]}
    store.write(Workflow.model_validate({
        "name": "orders-total", "task": "Read the total of my orders", "start_url": "http://127.0.0.1:1/orders.html", "steps": [step],
        "answer": {"data": {"total": 3}, "values": [{"parts": ["total"], "path": "$.total", "value": 3}]}}))
    store.write(Workflow.model_validate({
        "name": "reorder", "task": "Order my coffee again", "start_url": "http://127.0.0.1:1/shop.html",
        "steps": [step, {"intent": "Place the order", "action": {"type": "click"}, "destructive": "place order"}]}))
    return tmp_path


def waymark(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", "workflow", "schedule", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=dict(os.environ))


def _listed() -> dict[str, dict]:
    done = waymark("list", "--json")
    assert done.returncode == 0, done.stderr
    return {row["workflow"]: row for row in json.loads(done.stdout)["schedules"]}


def test_scheduling_a_workflow_every_hour_says_when_it_next_runs(config: Path):
    done = waymark("orders-total", "--every", "1h")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("scheduled orders-total every 1h; next run ")
    assert _listed()["orders-total"]["when"] == "every 1h"


def test_the_schedules_file_is_readable_by_the_user_only(config: Path):
    assert waymark("orders-total", "--daily", "08:00").returncode == 0
    assert stat.S_IMODE((config / "schedules.json").stat().st_mode) == 0o600


def test_a_weekdays_schedule_is_listed_with_its_time_and_counted_field(config: Path):
    assert waymark("orders-total", "--weekdays", "07:30", "--field", "$.total").returncode == 0
    row = _listed()["orders-total"]
    assert (row["when"], row["fields"], row["last"]) == ("weekdays at 07:30", ["$.total"], None)


def test_pause_and_resume_change_only_whether_it_runs(config: Path):
    waymark("orders-total", "--every", "30m")
    assert waymark("pause", "orders-total").stdout.startswith("paused orders-total")
    assert _listed()["orders-total"]["paused"] is True
    assert waymark("resume", "orders-total").returncode == 0
    assert _listed()["orders-total"] == {**_listed()["orders-total"], "paused": False, "when": "every 30m"}


def test_remove_takes_the_schedule_away(config: Path):
    waymark("orders-total", "--every", "30m")
    assert waymark("remove", "orders-total").returncode == 0
    assert "orders-total" not in _listed()


def test_a_destructive_step_cannot_be_scheduled_without_approving_it_for_scheduled_runs(config: Path):
    done = waymark("reorder", "--every", "1h")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "waymark workflow schedule: step 2 (Place the order) is destructive (place order) and nobody confirms a scheduled run: "
        "schedule it with --approve-destructive to let scheduled runs do it"]
    assert "reorder" not in _listed()


def test_approving_a_destructive_step_for_scheduled_runs_is_kept_with_the_schedule(config: Path):
    done = waymark("reorder", "--every", "1h", "--approve-destructive")
    assert "destructive step(s) 2 approved for scheduled runs" in done.stdout
    assert _listed()["reorder"]["approved"] == [2]


@pytest.mark.parametrize(("args", "said"), [
    (("nothing-here", "--every", "1h"), "no workflow named 'nothing-here'"),
    (("orders-total", "--every", "soon"), "--every takes minutes or hours, like 30m or 1h, not 'soon'"),
    (("orders-total", "--daily", "8am"), "--daily takes a time of day, HH:MM (24-hour), like 08:00, not '8am'"),
    (("orders-total",), "say when orders-total runs: --every 1h, --daily 08:00 or --weekdays 08:00"),
    (("orders-total", "--every", "1h", "--field", "$.price"), "--field $.price: orders-total answers the fields $.total"),
    (("pause", "orders-total"), "the workflow 'orders-total' is not scheduled"),
    (("remove",), "remove takes one workflow name"),
])
def test_each_mistake_is_one_line_and_exit_code_1(config: Path, args: tuple[str, ...], said: str):
    done = waymark(*args)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr
