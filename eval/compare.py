"""Compare two eval reports: which tasks changed verdict, and how accuracy, latency and tokens moved.

Deltas are B relative to A (A is the baseline). Accuracy is compared on the tasks both reports
ran (a MiniWoB++ task with the same seed: the same problem), so a run on a different selection
does not look better or worse than it is; tasks only one side ran are listed separately.

Whether the change is beyond noise is decided on those pairs alone: the exact McNemar test on
the pairs that passed on one side only, and Tango's 95% score interval for the paired difference
in pass rate (waymark.eval.stats). A change is beyond noise when the test's p is below 0.05.
"""

from __future__ import annotations

from pydantic import BaseModel

from waymark.eval.report import Row, summarize
from waymark.eval.stats import mcnemar_exact, paired_difference_interval

#: The test's level: a change is called beyond noise when McNemar's p is below it.
ALPHA = 0.05


class TaskChange(BaseModel):
    task: str
    before: str
    after: str
    reason: str = ""


class Comparison(BaseModel):
    common: int
    accuracy_a: float
    accuracy_b: float
    #: Percentage points (B - A).
    accuracy_delta_pp: float
    latency_a_ms: float
    latency_b_ms: float
    #: Percent change of the mean latency, None when A's is zero.
    latency_delta_pct: float | None
    tokens_a: float
    tokens_b: float
    #: Change of the mean tokens per task (B - A).
    tokens_delta: float
    tokens_delta_pct: float | None
    fixed: list[TaskChange]
    broken: list[TaskChange]
    #: Other verdict changes (fail <-> error).
    changed: list[TaskChange]
    only_a: list[str]
    only_b: list[str]
    #: The 2x2 table of the pairs: passed by both, by A only (broken), by B only (fixed), by neither.
    both_passed: int = 0
    neither_passed: int = 0
    #: Two-sided exact McNemar p over the discordant pairs (len(fixed) vs len(broken)).
    mcnemar_p: float = 1.0
    #: 95% interval of the paired difference in pass rate (B - A), percentage points.
    delta_low_pp: float = 0.0
    delta_high_pp: float = 0.0
    beyond_noise: bool = False


def pair_key(row: Row) -> str:
    """What pairs two rows: the task, and for a MiniWoB++ problem its seed."""
    return row.task if row.seed is None else f"{row.task}#{row.seed}"


def _pct(a: float, b: float) -> float | None:
    return round((b - a) / a * 100, 1) if a else None


def compare(rows_a: list[Row], rows_b: list[Row]) -> Comparison:
    """Per-task changes and the deltas of B relative to A over the tasks both ran."""
    by_a = {pair_key(r): r for r in rows_a}
    by_b = {pair_key(r): r for r in rows_b}
    common = sorted(set(by_a) & set(by_b))
    a = summarize([by_a[t] for t in common])
    b = summarize([by_b[t] for t in common])
    fixed, broken, changed = [], [], []
    both = sum(by_a[t].verdict == "pass" and by_b[t].verdict == "pass" for t in common)
    neither = sum(by_a[t].verdict != "pass" and by_b[t].verdict != "pass" for t in common)
    for task in common:
        before, after = by_a[task].verdict, by_b[task].verdict
        if before == after:
            continue
        change = TaskChange(task=task, before=before, after=after, reason=by_b[task].reason if after != "pass" else by_a[task].reason)
        if after == "pass":
            fixed.append(change)
        elif before == "pass":
            broken.append(change)
        else:
            changed.append(change)
    p = mcnemar_exact(len(fixed), len(broken))
    low, high = paired_difference_interval(both, len(broken), len(fixed), neither)
    return Comparison(
        both_passed=both, neither_passed=neither, mcnemar_p=round(p, 4),
        delta_low_pp=round(low * 100, 1), delta_high_pp=round(high * 100, 1), beyond_noise=p < ALPHA,
        common=len(common),
        accuracy_a=a.pass_rate,
        accuracy_b=b.pass_rate,
        accuracy_delta_pp=round((b.pass_rate - a.pass_rate) * 100, 1),
        latency_a_ms=a.latency_mean_ms,
        latency_b_ms=b.latency_mean_ms,
        latency_delta_pct=_pct(a.latency_mean_ms, b.latency_mean_ms),
        tokens_a=a.tokens_per_task,
        tokens_b=b.tokens_per_task,
        tokens_delta=round(b.tokens_per_task - a.tokens_per_task, 1),
        tokens_delta_pct=_pct(a.tokens_per_task, b.tokens_per_task),
        fixed=fixed,
        broken=broken,
        changed=changed,
        only_a=sorted(set(by_a) - set(by_b)),
        only_b=sorted(set(by_b) - set(by_a)),
    )


def _signed(value: float | None, unit: str) -> str:
    return "n/a" if value is None else f"{value:+.1f}{unit}"


def format_comparison(c: Comparison, name_a: str = "A", name_b: str = "B") -> str:
    """The comparison as text for a terminal."""
    lines = [
        f"{name_a} -> {name_b}: {c.common} tasks in both",
        f"  accuracy  {c.accuracy_a * 100:5.1f}% -> {c.accuracy_b * 100:5.1f}%   {_signed(c.accuracy_delta_pp, ' pp')}"
        f" (95% CI {c.delta_low_pp:+.1f} to {c.delta_high_pp:+.1f} pp)",
        f"  noise     {len(c.fixed)} fixed, {len(c.broken)} broken: exact McNemar p = {c.mcnemar_p:.3g}, "
        + ("beyond noise" if c.beyond_noise else "within noise"),
        f"  latency   {c.latency_a_ms / 1000:6.2f} s -> {c.latency_b_ms / 1000:6.2f} s   {_signed(c.latency_delta_pct, ' %')}",
        f"  tokens    {c.tokens_a:7.0f} -> {c.tokens_b:7.0f} per task   {_signed(c.tokens_delta, '')} ({_signed(c.tokens_delta_pct, ' %')})",
    ]
    for title, changes in (("fixed", c.fixed), ("broken", c.broken), ("changed", c.changed)):
        if changes:
            lines.append(f"  {title} ({len(changes)}):")
            lines += [f"    {ch.task}: {ch.before} -> {ch.after}" + (f"  ({ch.reason})" if ch.reason else "") for ch in changes]
    if not (c.fixed or c.broken or c.changed):
        lines.append("  no task changed verdict")
    if c.only_a:
        lines.append(f"  only in {name_a} ({len(c.only_a)}): {', '.join(c.only_a)}")
    if c.only_b:
        lines.append(f"  only in {name_b} ({len(c.only_b)}): {', '.join(c.only_b)}")
    return "\n".join(lines)
