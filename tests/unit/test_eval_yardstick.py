"""The yardstick's summary over a run's reports: pass rates per suite and per MiniWoB++ half with
Wilson intervals, cost per task, guards, and the agent's verdict against the judge's."""

import json
import subprocess
import sys

import pytest

from waymark.eval.report import ReportError, ReportWriter, Row
from waymark.eval.yardstick import agreement, format_markdown, summarize_reports


def _row(task: str, verdict: str, agent: bool | None = None, **kw) -> Row:
    outcome = None if agent is None else ("done" if agent else "unproven")
    return Row(task=task, suite=task.split("/")[0], verdict=verdict, agent_success=agent, agent_outcome=outcome,
               latency_ms=kw.pop("latency_ms", 2000.0), tokens_total=kw.pop("tokens", 300), **kw)


def _report(path, rows, cut=None):
    writer = ReportWriter(path)
    for r in rows:
        writer.write(r)
    writer.close(cut=cut)
    return path


def test_a_false_success_is_a_claimed_success_the_judge_failed_and_a_false_failure_the_reverse():
    a = agreement([_row("sites/a", "fail", True), _row("sites/b", "pass", False), _row("sites/c", "pass", True),
                   _row("sites/d", "fail", False), _row("sites/e", "error")])
    assert (a.judged, a.false_successes, a.false_failures) == (4, 1, 1)
    assert a.rate == 0.5
    assert a.false_success_tasks == ["sites/a"] and a.false_failure_tasks == ["sites/b"]


def test_rows_without_an_agent_verdict_give_no_agreement_rate():
    assert agreement([_row("smoke/a", "pass")]).rate is None


def test_summary_gives_each_suite_and_each_miniwob_half_with_a_wilson_interval(tmp_path):
    _report(tmp_path / "sites.jsonl", [_row("sites/a", "pass", True), _row("sites/b", "fail", False)])
    _report(tmp_path / "miniwob.jsonl", [
        _row("miniwob/x", "pass", True, seed=1, half="tuning"), _row("miniwob/x", "fail", True, seed=2, half="tuning"),
        _row("miniwob/y", "pass", True, seed=1, half="heldout"),
    ], cut=["miniwob/y#2", "miniwob/x#3"])
    s = summarize_reports([tmp_path])
    by = {(ln.suite, ln.half): ln for ln in s.lines}
    assert set(by) == {("sites", None), ("miniwob", None), ("miniwob", "tuning"), ("miniwob", "heldout")}
    tuning = by[("miniwob", "tuning")]
    assert (tuning.tasks, tuning.passed) == (2, 1)
    assert (tuning.ci_low, tuning.ci_high) == pytest.approx((0.0945, 0.9055), abs=1e-4)
    assert by[("miniwob", None)].agreement.false_successes == 1
    assert s.coverage.types == {"tuning": 1, "heldout": 1}
    assert s.coverage.seeds_per_type == {"tuning": 2, "heldout": 1}
    assert s.coverage.cut == ["miniwob/y#2", "miniwob/x#3"]


def test_summary_adds_refusals_and_advisories_by_guard_and_counts_parse_failures(tmp_path):
    _report(tmp_path / "sites.jsonl", [
        _row("sites/a", "pass", True, refusals={"value_missing": 2}, advisories={"unseen_url": 1}, parse_failures=1),
        _row("sites/b", "fail", False, refusals={"value_missing": 1, "not_offered": 1}, parse_failures=2),
    ])
    (ln,) = summarize_reports([tmp_path / "sites.jsonl"]).lines
    assert ln.refusals == {"value_missing": 3, "not_offered": 1}
    assert ln.advisories == {"unseen_url": 1}
    assert ln.parse_failures == 3
    assert ln.seconds_per_task == 2.0 and ln.tokens_per_task == 300


def test_markdown_names_the_disagreements_and_what_the_budget_cut(tmp_path):
    _report(tmp_path / "miniwob.jsonl", [_row("miniwob/x", "fail", True, seed=1, half="tuning")], cut=["miniwob/x#2"])
    text = format_markdown(summarize_reports([tmp_path]))
    assert "| miniwob | tuning | 1 | 0 | 0.0% (0.0% to 79.3%)" in text
    assert "false successes: miniwob/x#1" in text
    assert "the time budget cut 1: miniwob/x#2" in text


def test_a_folder_without_reports_is_refused(tmp_path):
    with pytest.raises(ReportError, match="no JSONL report"):
        summarize_reports([tmp_path])


def test_eval_summary_writes_markdown_and_json_beside_the_reports(tmp_path):
    _report(tmp_path / "sites.jsonl", [_row("sites/a", "pass", True)])
    done = subprocess.run([sys.executable, "-m", "waymark.host", "eval", "summary", str(tmp_path), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "| sites | all | 1 | 1 | 100.0%" in done.stdout
    assert json.loads((tmp_path / "summary.json").read_text())["lines"][0]["agreement"]["rate"] == 1.0
    assert (tmp_path / "summary.md").read_text() == done.stdout


def test_a_run_whose_budget_has_passed_starts_no_task_and_lists_every_one_as_cut(tmp_path):
    import asyncio

    from waymark.eval.report import read_cut, read_rows
    from waymark.eval.runner import RunConfig, run_suite
    from waymark.eval.tasks import load_suite
    from waymark.providers.spec import ModelSpec

    scripted = ModelSpec.make("scripted", "scripted")
    config = RunConfig(suite="smoke", executor=scripted, out=tmp_path / "smoke.jsonl", budget_s=1e-9)
    summary = asyncio.run(run_suite(config))
    assert summary.tasks == 0 and read_rows(config.out) == []
    assert read_cut(config.out) == [t.id for t in load_suite("smoke")]


def test_an_agent_runs_verdict_and_guard_counts_are_read_from_its_summary_with_defaults():
    from waymark.eval.runner import verdict_evidence

    assert verdict_evidence({"outcome": "unproven", "success": False}) == {
        "agent_outcome": "unproven", "agent_success": False, "refusals": {}, "advisories": {}}
    got = verdict_evidence({"outcome": "done", "success": True, "refusals": {"value_missing": 2}, "advisories": {"x": 1, "bad": "?"}})
    assert got["refusals"] == {"value_missing": 2} and got["advisories"] == {"x": 1}
    assert verdict_evidence({})["agent_success"] is None


def test_a_run_that_ended_in_an_error_gives_no_agent_verdict_to_agree_with():
    errored = Row(task="miniwob/x", verdict="fail", agent_success=False, agent_outcome="error", seed=1)
    assert agreement([errored]).judged == 0 and agreement([errored]).rate is None
