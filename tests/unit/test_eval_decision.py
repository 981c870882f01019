"""Decision tasks: one executor turn on a recorded snapshot, judged against the expected call."""

import json
import os
import subprocess
import sys
from pathlib import Path

from waymark.eval.decision import decide_and_judge, judge
from waymark.eval.tasks import ExpectedCall, load_suite
from waymark.providers.spec import ModelSpec

ROOT = Path(__file__).resolve().parents[2]

ELEMENTS = [
    {"ref": 4, "role": "button", "name": "Accept all"},
    {"ref": 5, "role": "button", "name": "Reject non-essential"},
    {"ref": 6, "role": "textbox", "name": "Email address"},
]


def test_the_expected_click_on_the_named_element_passes():
    expect = ExpectedCall(type="click", target={"role": "button", "name": "reject  NON-essential"})
    assert judge(expect, {"type": "click", "ref": 5}, ELEMENTS) == (True, "the expected call")


def test_a_click_on_another_element_fails_naming_what_was_clicked():
    expect = ExpectedCall(type="click", target={"role": "button", "name": "Reject non-essential"})
    ok, reason = judge(expect, {"type": "click", "ref": 4}, ELEMENTS)
    assert not ok
    assert "'Accept all'" in reason


def test_a_ref_that_is_not_in_the_snapshot_fails():
    expect = ExpectedCall(type="click", target={"role": "button"})
    ok, reason = judge(expect, {"type": "click", "ref": 99}, ELEMENTS)
    assert not ok and "not in the snapshot" in reason


def test_any_of_several_accepted_types_passes_and_fields_must_match():
    expect = ExpectedCall(type=["fill", "type"], target={"name": "Email address"}, fields={"text": "ada@example.com"})
    assert judge(expect, {"type": "type", "ref": 6, "text": "ada@example.com"}, ELEMENTS)[0]
    ok, reason = judge(expect, {"type": "fill", "ref": 6, "text": "grace@example.com"}, ELEMENTS)
    assert not ok and "text is 'grace@example.com'" in reason
    assert not judge(expect, {"type": "click", "ref": 6}, ELEMENTS)[0]


def test_fields_contain_compares_case_insensitively():
    expect = ExpectedCall(type="select", target={"role": "textbox"}, fields_contain={"value": "express"})
    assert judge(expect, {"type": "select", "ref": 6, "value": "Express (next day)"}, ELEMENTS)[0]
    assert not judge(expect, {"type": "select", "ref": 6, "value": "Standard"}, ELEMENTS)[0]


async def test_a_decision_task_runs_the_executor_on_its_recorded_snapshot():
    task = next(t for t in load_suite("smoke") if t.id == "smoke/cookie-wall-reject")
    outcome = await decide_and_judge(task, ModelSpec.make("scripted", "scripted", {"script": str(task.script_path())}))
    assert outcome.passed, outcome.reason
    assert outcome.call["type"] == "click"


async def test_a_decision_that_picks_the_wrong_element_fails(tmp_path):
    task = next(t for t in load_suite("smoke") if t.id == "smoke/cookie-wall-reject")
    script = tmp_path / "wrong.json"
    script.write_text(json.dumps({"steps": [{"intent": "accept", "action": {"type": "click", "target": {"name": "Accept all"}}}]}))
    outcome = await decide_and_judge(task, ModelSpec.make("scripted", "scripted", {"script": str(script)}))
    assert not outcome.passed
    assert "Accept all" in outcome.reason


def test_the_smoke_suite_runs_from_the_command_line_without_a_browser(tmp_path):
    out = tmp_path / "smoke.jsonl"
    done = subprocess.run([sys.executable, "-m", "waymark.host", "eval", "run", "--suite", "smoke", "--provider", "scripted",
                           "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    tasks = [r for r in rows if "task" in r]
    assert len(tasks) == len(load_suite("smoke"))
    assert all(r["verdict"] == "pass" for r in tasks), [r for r in tasks if r["verdict"] != "pass"]
    assert rows[-1]["summary"]["pass_rate"] == 1.0
    assert "pass rate" in done.stdout


def test_eval_run_refuses_mixing_provider_and_planner_flags(tmp_path):
    done = subprocess.run([sys.executable, "-m", "waymark.host", "eval", "run", "--suite", "smoke", "--provider", "scripted",
                           "--planner", "scripted:x", "--executor", "scripted:x", "--out", str(tmp_path / "r.jsonl")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "not both" in done.stderr


def test_eval_run_names_the_known_suites_for_an_unknown_one(tmp_path):
    done = subprocess.run([sys.executable, "-m", "waymark.host", "eval", "run", "--suite", "nope", "--provider", "scripted",
                           "--out", str(tmp_path / "r.jsonl")], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "miniwob" in done.stderr and "smoke" in done.stderr


def test_eval_run_refuses_a_provider_without_a_key_before_running_any_task(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "GOOGLE_API_KEY")}
    env["WAYMARK_CONFIG_DIR"] = str(tmp_path / "config")
    out = tmp_path / "r.jsonl"
    done = subprocess.run([sys.executable, "-m", "waymark.host", "eval", "run", "--suite", "smoke", "--provider", "gemini",
                           "--model", "gemini-2.5-flash", "--out", str(out)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=env)
    assert done.returncode == 2
    assert "GEMINI_API_KEY" in done.stderr
    assert not out.exists()
