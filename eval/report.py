"""The eval report: one JSONL row per task, then one summary line; reading it back; the summary.

A report file is JSON Lines. Every line but the last is a `Row`; the last line is
`{"summary": {...}}` (a `Summary`), written when the run ends. Readers skip summary lines and
recompute, so a report cut short by a crash is still readable.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Literal, TextIO

from pydantic import BaseModel, Field, ValidationError

Verdict = Literal["pass", "fail", "error"]


class ReportError(ValueError):
    """A report file that cannot be read; the message names the file and line."""


class Row(BaseModel):
    """The outcome of one task."""

    task: str
    suite: str = ""
    verdict: Verdict
    #: Why: the failed predicate, the page's reward, the expected and actual call, or the error.
    reason: str = ""
    latency_ms: float = 0.0
    steps: int = 0
    #: Input plus output tokens the providers reported for the task.
    tokens_total: int = 0
    #: The split, where the path reports it (decision tasks); None when only the total is known.
    tokens_in: int | None = None
    tokens_out: int | None = None
    retries: int = 0
    replans: int = 0
    provider: str = ""
    model: str = ""
    #: Set when planner and executor differ (`--planner P:M --executor P:M`).
    planner: str | None = None
    git_sha: str = ""
    timestamp: str = ""
    #: The agent run's trace folder (steps, screenshots), for `waymark eval html`.
    trace_dir: str | None = None
    #: Task-specific evidence (the tool call of a decision task, the MiniWoB reward, ...).
    details: dict[str, Any] = Field(default_factory=dict)
    #: MiniWoB++: the problem's seed and the type's half (waymark.eval.split); None elsewhere.
    seed: int | None = None
    half: str | None = None
    #: The agent's own verdict, apart from the judge's (`verdict`): its run's outcome (done,
    #: failed, unproven, budget_..., error) and whether it claimed success. None: no agent run.
    agent_outcome: str | None = None
    agent_success: bool | None = None
    #: Executor replies that could not be used (each answered with a reminder).
    parse_failures: int = 0
    #: Guard name -> actions it refused / advice it gave during the run.
    refusals: dict[str, int] = Field(default_factory=dict)
    advisories: dict[str, int] = Field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.tokens_total


class Summary(BaseModel):
    """The numbers of a run."""

    tasks: int
    passed: int
    failed: int
    errors: int
    pass_rate: float
    latency_mean_ms: float
    latency_median_ms: float
    steps_mean: float
    tokens_per_task: float
    #: Tasks the run's time budget left unstarted (`task#seed` for MiniWoB++), in run order.
    cut: list[str] = Field(default_factory=list)


def git_sha(cwd: Path | None = None) -> str:
    """The checkout's commit (short), with `-dirty` when it has uncommitted changes; "" outside git."""
    cwd = cwd or Path(__file__).resolve().parent.parent
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
        if sha.returncode != 0:
            return ""
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd, capture_output=True, text=True, timeout=10)
        return sha.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return ""


def now_iso() -> str:
    """UTC timestamp, ISO 8601, seconds."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def summarize(rows: Iterable[Row]) -> Summary:
    """Pass rate, latency, steps and tokens over the rows (zeros for an empty run)."""
    rows = list(rows)
    n = len(rows)
    latencies = [r.latency_ms for r in rows]

    def mean(values: list[float]) -> float:
        return round(statistics.fmean(values), 1) if values else 0.0

    return Summary(
        tasks=n,
        passed=sum(r.verdict == "pass" for r in rows),
        failed=sum(r.verdict == "fail" for r in rows),
        errors=sum(r.verdict == "error" for r in rows),
        pass_rate=round(sum(r.verdict == "pass" for r in rows) / n, 4) if n else 0.0,
        latency_mean_ms=mean(latencies),
        latency_median_ms=round(statistics.median(latencies), 1) if latencies else 0.0,
        steps_mean=mean([float(r.steps) for r in rows]),
        tokens_per_task=mean([float(r.tokens) for r in rows]),
    )


class ReportWriter:
    """Appends rows to a JSONL file as tasks finish, so a crash keeps what was done."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: TextIO = path.open("w", encoding="utf-8")
        self.rows: list[Row] = []

    def write(self, row: Row) -> None:
        self.rows.append(row)
        self._handle.write(row.model_dump_json() + "\n")
        self._handle.flush()

    def close(self, cut: list[str] | None = None) -> Summary:
        """Write the summary line (with the tasks the budget `cut`) and close; returns the summary."""
        summary = summarize(self.rows)
        summary.cut = list(cut or [])
        self._handle.write(json.dumps({"summary": summary.model_dump()}) + "\n")
        self._handle.close()
        return summary


def read_rows(path: Path) -> list[Row]:
    """The task rows of a report (summary lines skipped); raises ReportError for a bad file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc}") from exc
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and "summary" in data and "task" not in data:
                continue
            rows.append(Row.model_validate(data))
        except (ValueError, ValidationError) as exc:
            raise ReportError(f"{path}:{number}: not a report row: {str(exc).splitlines()[0]}") from exc
    return rows


def read_cut(path: Path) -> list[str]:
    """The tasks a report's run left unstarted for its time budget (its summary line's `cut`)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc}") from exc
    for line in reversed(lines):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("summary"), dict):
            return [str(c) for c in data["summary"].get("cut") or []]
    return []


def format_summary(summary: Summary, title: str = "") -> str:
    """The summary as a few aligned lines for a terminal."""
    head = f"{title}\n" if title else ""
    return (
        f"{head}"
        f"  pass rate   {summary.pass_rate * 100:5.1f}%  ({summary.passed} passed, {summary.failed} failed, {summary.errors} errors of {summary.tasks})\n"
        f"  latency     mean {summary.latency_mean_ms / 1000:.2f} s, median {summary.latency_median_ms / 1000:.2f} s\n"
        f"  steps       {summary.steps_mean:.1f} per task\n"
        f"  tokens      {summary.tokens_per_task:.0f} per task"
        + (f"\n  cut         {len(summary.cut)} tasks left unstarted by the time budget" if summary.cut else "")
    )
