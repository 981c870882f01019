"""Eval reports as markdown tables (`waymark eval table REPORT.jsonl ... -o FILE`): one row per
report with its pass rate and a 95% interval, tokens and seconds per task, under a heading that
gives the command that reproduces it, the date and the commit the rows record, so a table in the
docs always says which run it came from."""

from __future__ import annotations

import math
import shlex
import statistics
from pathlib import Path

from waymark.eval.report import Row, summarize
from waymark.eval.tasks import TaskError, load_suite

#: z for a two-sided 95% interval.
Z95 = 1.959964


def wilson(passed: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate: unlike rate ± z·se it stays within 0..1 and is
    not empty at 0 or n passes out of a few tasks."""
    if n == 0:
        return (0.0, 1.0)
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def rerun_command(rows: list[Row], out: str) -> str:
    """The `waymark eval run` command that reruns a report's tasks with its models (with
    --tasks when the report holds only some of its suite's tasks)."""
    first = rows[0]
    suite = first.suite
    words = ["waymark", "eval", "run", "--suite", suite]
    executor = f"{first.provider}:{first.model}"
    words += ["--executor", executor, "--planner", first.planner] if first.planner else ["--model", executor]
    ran = sorted({r.task for r in rows})
    try:
        every = sorted(t.id for t in load_suite(suite))
    except TaskError:
        every = []
    if ran != every:
        words += ["--tasks", ",".join(task.split("/", 1)[-1] for task in ran)]
    return shlex.join([*words, "--out", out])


def report_table(name: str, rows: list[Row]) -> str:
    """One report (one suite, as `waymark eval run` writes it) as a headed markdown table."""
    if not rows:
        return f"### {name}\n\nThe report has no task rows.\n"
    shas = sorted({r.git_sha for r in rows if r.git_sha})
    stamps = sorted(r.timestamp for r in rows if r.timestamp)
    date = f"{stamps[0]} to {stamps[-1]}" if stamps and stamps[0] != stamps[-1] else (stamps[0] if stamps else "unknown")
    models = sorted({f"{r.provider}:{r.model}" + (f" (planner {r.planner})" if r.planner else "") for r in rows})
    lines = [
        f"### {name}", "",
        f"`{rerun_command(rows, name)}`", "",
        f"Model: {', '.join(models)}. Date: {date}. Commit: {', '.join(f'`{s}`' for s in shas) or 'unknown'}.", "",
        "| suite | tasks | passed | pass rate (95% interval) | failed | errors | tokens per task (mean) | seconds per task (median / mean) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    s = summarize(rows)
    low, high = wilson(s.passed, s.tasks)
    seconds = [r.latency_ms / 1000 for r in rows]
    lines.append(
        f"| {rows[0].suite or '–'} | {s.tasks} | {s.passed} | {s.pass_rate:.0%} ({low:.0%}–{high:.0%}) | {s.failed} | {s.errors} | "
        f"{s.tokens_per_task:,.0f} | {statistics.median(seconds):.1f} / {statistics.fmean(seconds):.1f} |"
    )
    return "\n".join(lines) + "\n"


def markdown_tables(reports: list[tuple[Path, list[Row]]]) -> str:
    """Every report as a headed markdown table, in the order given."""
    return "\n".join(report_table(path.name, rows) for path, rows in reports)
