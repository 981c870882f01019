"""The yardstick's summary: one table over the reports of a run (one JSONL per suite), with the
numbers a claim about the agent needs beside its pass rate.

Per suite, and per half for MiniWoB++ (waymark.eval.split): the pass rate with its 95% Wilson
interval, seconds and tokens per task, parse failures, refusals and advisories by guard, and
how the agent's own verdict agrees with the judge's (a false success: the agent said success,
the judge said no; a false failure: the judge passed a task the agent called failed or
unproven). MiniWoB++ coverage says how many types and seeds ran and what the time budget cut.
"""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from waymark.eval.report import ReportError, Row, read_cut, read_rows
from waymark.eval.stats import wilson


class Agreement(BaseModel):
    """The agent's verdict against the judge's, over the rows where the agent gave one."""

    judged: int = 0
    false_successes: int = 0
    false_failures: int = 0
    #: Share of `judged` rows where both said the same; None when no row had an agent verdict.
    rate: float | None = None
    #: The tasks (task#seed) of each disagreement, so they can be looked up.
    false_success_tasks: list[str] = Field(default_factory=list)
    false_failure_tasks: list[str] = Field(default_factory=list)


class Line(BaseModel):
    """One row of the summary: a suite, or one half of MiniWoB++."""

    suite: str
    half: str | None = None
    tasks: int
    passed: int
    errors: int
    pass_rate: float
    ci_low: float
    ci_high: float
    seconds_per_task: float
    tokens_per_task: float
    parse_failures: int
    refusals: dict[str, int]
    advisories: dict[str, int]
    agreement: Agreement


class Coverage(BaseModel):
    """What of MiniWoB++ ran: task types and seeds per half, and what the budget cut."""

    types: dict[str, int]
    seeds_per_type: dict[str, float]
    runs: int
    cut: list[str]


class YardstickSummary(BaseModel):
    reports: list[str]
    git_sha: list[str]
    models: list[str]
    lines: list[Line]
    coverage: Coverage | None = None


def _label(row: Row) -> str:
    return row.task if row.seed is None else f"{row.task}#{row.seed}"


def agreement(rows: list[Row]) -> Agreement:
    """Verdict agreement over the rows whose agent finished with a verdict: a run that ended in
    an error (the model server timed out, the host failed) gave none."""
    judged = [r for r in rows if r.agent_success is not None and r.agent_outcome != "error"]
    false_success = [_label(r) for r in judged if r.agent_success and r.verdict != "pass"]
    false_failure = [_label(r) for r in judged if not r.agent_success and r.verdict == "pass"]
    rate = (len(judged) - len(false_success) - len(false_failure)) / len(judged) if judged else None
    return Agreement(judged=len(judged), false_successes=len(false_success), false_failures=len(false_failure),
                     rate=round(rate, 4) if rate is not None else None,
                     false_success_tasks=false_success, false_failure_tasks=false_failure)


def line(suite: str, rows: list[Row], half: str | None = None) -> Line:
    """The summary line of these rows."""
    n = len(rows)
    passed = sum(r.verdict == "pass" for r in rows)
    low, high = wilson(passed, n)
    refusals: Counter[str] = Counter()
    advisories: Counter[str] = Counter()
    for r in rows:
        refusals.update(r.refusals)
        advisories.update(r.advisories)
    return Line(
        suite=suite, half=half, tasks=n, passed=passed, errors=sum(r.verdict == "error" for r in rows),
        pass_rate=round(passed / n, 4) if n else 0.0, ci_low=round(low, 4), ci_high=round(high, 4),
        seconds_per_task=round(statistics.fmean(r.latency_ms for r in rows) / 1000, 1) if rows else 0.0,
        tokens_per_task=round(statistics.fmean(r.tokens_total for r in rows), 1) if rows else 0.0,
        parse_failures=sum(r.parse_failures for r in rows), refusals=dict(refusals.most_common()),
        advisories=dict(advisories.most_common()), agreement=agreement(rows),
    )


def _reports(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.glob("*.jsonl"))
        elif path.is_file():
            found.append(path)
        else:
            raise ReportError(f"{path}: no such report or folder")
    if not found:
        raise ReportError(f"no JSONL report under {', '.join(map(str, paths))}")
    return found


def summarize_reports(paths: list[Path]) -> YardstickSummary:
    """The summary of the reports in `paths` (files, or folders of *.jsonl)."""
    reports = _reports(paths)
    rows: list[Row] = []
    cut: list[str] = []
    for report in reports:
        rows += read_rows(report)
        cut += read_cut(report)
    suites = sorted({r.suite or r.task.split("/", 1)[0] for r in rows})
    lines = []
    for suite in suites:
        mine = [r for r in rows if (r.suite or r.task.split("/", 1)[0]) == suite]
        lines.append(line(suite, mine))
        for half in sorted({r.half for r in mine if r.half}, reverse=True):
            lines.append(line(suite, [r for r in mine if r.half == half], half))
    miniwob = [r for r in rows if r.seed is not None]
    coverage = None
    if miniwob or cut:
        types: dict[str, set[str]] = {}
        for r in miniwob:
            types.setdefault(r.half or "", set()).add(r.task)
        coverage = Coverage(
            types={h: len(t) for h, t in sorted(types.items(), reverse=True)},
            seeds_per_type={h: round(sum(r.half == h for r in miniwob) / len(t), 2) for h, t in sorted(types.items(), reverse=True)},
            runs=len(miniwob), cut=cut,
        )
    return YardstickSummary(reports=[str(p) for p in reports], git_sha=sorted({r.git_sha for r in rows if r.git_sha}),
                            models=sorted({r.model for r in rows if r.model}), lines=lines, coverage=coverage)


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def format_markdown(summary: YardstickSummary) -> str:
    """The summary as Markdown: the table, guards, disagreements and MiniWoB++ coverage."""
    out = ["# Yardstick", "", f"Code {', '.join(summary.git_sha) or 'unknown'}; model {', '.join(summary.models) or 'unknown'}.", "",
           "| suite | half | tasks | passed | pass rate (95% CI) | s/task | tokens/task | parse failures "
           "| false successes | false failures | verdict agreement |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for ln in summary.lines:
        a = ln.agreement
        agree = f"{_pct(a.rate)} of {a.judged}" if a.rate is not None else "n/a"
        out.append(f"| {ln.suite} | {ln.half or 'all'} | {ln.tasks} | {ln.passed} | {_pct(ln.pass_rate)} "
                   f"({_pct(ln.ci_low)} to {_pct(ln.ci_high)}) | {ln.seconds_per_task:g} | {ln.tokens_per_task:.0f} | "
                   f"{ln.parse_failures} | {a.false_successes} | {a.false_failures} | {agree} |")
    out += ["", "## Guards", ""]
    for ln in summary.lines:
        if ln.half is None:
            out.append(f"- {ln.suite}: refusals {_counts(ln.refusals)}; advisories {_counts(ln.advisories)}")
    disagreements = [(ln.suite, ln.agreement) for ln in summary.lines if ln.half is None
                     and (ln.agreement.false_successes or ln.agreement.false_failures)]
    if disagreements:
        out += ["", "## Verdicts the judge disagreed with", ""]
        for suite, a in disagreements:
            if a.false_success_tasks:
                out.append(f"- {suite}, false successes: {', '.join(a.false_success_tasks)}")
            if a.false_failure_tasks:
                out.append(f"- {suite}, false failures: {', '.join(a.false_failure_tasks)}")
    c = summary.coverage
    if c is not None:
        out += ["", "## MiniWoB++ coverage", ""]
        for half, count in c.types.items():
            out.append(f"- {half or 'unsplit'}: {count} task types, {c.seeds_per_type[half]:g} seeds per type on average")
        out.append(f"- {c.runs} episodes ran; the time budget cut {len(c.cut)}"
                   + (f": {', '.join(c.cut[:40])}" + (" ..." if len(c.cut) > 40 else "") if c.cut else ""))
    return "\n".join(out) + "\n"
