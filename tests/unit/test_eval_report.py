"""Eval reports: JSONL rows with a summary line, the comparison of two runs, the HTML page."""

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from waymark.eval.compare import compare, format_comparison
from waymark.eval.html import render, write_html
from waymark.eval.report import ReportError, ReportWriter, Row, read_rows, summarize


def row(task: str, verdict: str, latency: float = 1000.0, tokens_in: int = 100, tokens_out: int = 10, **kw) -> Row:
    return Row(task=task, verdict=verdict, latency_ms=latency, tokens_total=tokens_in + tokens_out, tokens_in=tokens_in,
               tokens_out=tokens_out, provider="scripted", model="scripted", **kw)


def test_summary_gives_pass_rate_latency_and_tokens_per_task():
    s = summarize([row("a", "pass", 1000), row("b", "fail", 3000), row("c", "error", 8000, 0, 0), row("d", "pass", 2000)])
    assert (s.tasks, s.passed, s.failed, s.errors) == (4, 2, 1, 1)
    assert s.pass_rate == 0.5
    assert s.latency_mean_ms == 3500.0
    assert s.latency_median_ms == 2500.0
    assert s.tokens_per_task == 82.5


def test_a_report_is_one_row_per_task_then_a_summary_line(tmp_path):
    path = tmp_path / "r.jsonl"
    writer = ReportWriter(path)
    writer.write(row("sites/a", "pass"))
    writer.write(row("sites/b", "fail", reason="url_contains failed"))
    writer.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x.get("task") for x in lines[:2]] == ["sites/a", "sites/b"]
    assert lines[2]["summary"]["pass_rate"] == 0.5
    assert {"task", "verdict", "reason", "latency_ms", "steps", "tokens_in", "tokens_out", "tokens_total", "retries", "replans",
            "provider", "model", "git_sha", "timestamp"} <= set(lines[0])
    assert [r.task for r in read_rows(path)] == ["sites/a", "sites/b"]


def test_a_report_line_that_is_not_a_row_is_reported_with_its_line_number(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(row("a", "pass").model_dump_json() + "\n{\"task\": 3}\n")
    with pytest.raises(ReportError, match="r.jsonl:2"):
        read_rows(path)


def test_compare_lists_fixed_and_broken_tasks_and_the_deltas():
    a = [row("t1", "pass", 1000, 100, 0), row("t2", "fail", 1000, 100, 0), row("t3", "pass", 2000, 100, 0), row("gone", "pass")]
    b = [row("t1", "fail", 1500, 150, 0, reason="absent failed"), row("t2", "pass", 1500, 150, 0), row("t3", "pass", 3000, 150, 0), row("new", "pass")]
    c = compare(a, b)
    assert [x.task for x in c.fixed] == ["t2"]
    assert [x.task for x in c.broken] == ["t1"]
    assert c.broken[0].reason == "absent failed"
    assert c.common == 3
    assert c.accuracy_delta_pp == 0.0
    assert c.latency_delta_pct == 50.0
    assert c.tokens_delta == 50.0
    assert c.only_a == ["gone"] and c.only_b == ["new"]
    text = format_comparison(c, "a.jsonl", "b.jsonl")
    assert "+50.0 %" in text and "t2: fail -> pass" in text


def test_accuracy_delta_is_in_percentage_points():
    c = compare([row("x", "fail"), row("y", "fail"), row("z", "pass"), row("w", "pass")],
                [row("x", "pass"), row("y", "fail"), row("z", "pass"), row("w", "pass")])
    assert c.accuracy_delta_pp == 25.0


def test_html_report_embeds_each_steps_screenshot_from_the_trace(tmp_path):
    trace = tmp_path / "run1"
    (trace / "artifacts").mkdir(parents=True)
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg"
    (trace / "artifacts" / "step-1.jpg").write_bytes(jpeg)
    (trace / "trace.jsonl").write_text(json.dumps({"event": "step", "t_ms": 12, "action": {"type": "click", "ref": 3},
                                                   "screenshot": "artifacts/step-1.jpg"}) + "\n")
    page = render([row("sites/a", "fail", reason="<b>no</b>", trace_dir=str(trace))], "Report")
    assert base64.b64encode(jpeg).decode() in page
    assert "&lt;b&gt;no&lt;/b&gt;" in page
    assert "<script" not in page


def test_html_report_reads_a_tasks_steps_and_checks_in_words_not_json(tmp_path):
    trace = tmp_path / "run1"
    trace.mkdir()
    step = {"event": "step", "step": 1, "intent": "Add the scarf", "action_line": 'click button "Add to basket" [3]', "verdict": "passed",
            "checks": [{"predicate": {"text_present": "added to your basket"}, "ok": True}], "attempt": 1}
    (trace / "trace.jsonl").write_text(json.dumps(step) + "\n")
    page = render([row("sites/a", "fail", trace_dir=str(trace), details={"basket": 1})], "Report")
    assert "1. Add the scarf" in page and "click button &quot;Add to basket&quot; [3]" in page
    assert "✓ text present &quot;added to your basket&quot;" in page
    assert "<b>basket</b>: 1" in page
    assert "&quot;predicate&quot;" not in page


def test_html_report_says_when_a_trace_is_missing(tmp_path):
    page = render([row("sites/a", "pass", trace_dir=str(tmp_path / "none"))], "Report")
    assert "no trace at" in page


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])


def test_eval_compare_and_html_commands_work_on_report_files(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path, verdict in ((a, "fail"), (b, "pass")):
        writer = ReportWriter(path)
        writer.write(row("sites/x", verdict))
        writer.close()
    done = _cli("eval", "compare", str(a), str(b))
    assert done.returncode == 0, done.stderr
    assert "+100.0 pp" in done.stdout and "sites/x: fail -> pass" in done.stdout
    out = tmp_path / "report.html"
    done = _cli("eval", "html", str(b), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "sites/x" in out.read_text()


def test_eval_html_writes_beside_the_report_without_an_out_option(tmp_path):
    report = tmp_path / "sites.jsonl"
    writer = ReportWriter(report)
    writer.write(row("sites/x", "pass"))
    writer.close()
    done = _cli("eval", "html", str(report))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {tmp_path / 'sites.html'}"
    assert "sites/x" in (tmp_path / "sites.html").read_text()


def test_eval_compare_refuses_a_file_that_is_not_a_report(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    done = _cli("eval", "compare", str(bad), str(bad))
    assert done.returncode == 2
    assert "bad.jsonl:1" in done.stderr


def test_write_html_creates_the_file(tmp_path):
    out = write_html([row("a", "pass")], tmp_path / "sub" / "r.html", "T")
    assert out.read_text().startswith("<!doctype html>")
