"""The trace of one run: `runs/<id>/trace.jsonl` (one event per line), artifacts beside it, and
`summary.json`. Folders are user-only (0700); everything written passes the run's redactor.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets as _random
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.agent.answers import Grounding
from waymark.host.agent.guards.base import Finding
from waymark.host.agent.redaction import Redactor
from waymark.host.agent.verdicts import RunOutcome, StepVerdict
from waymark.host.core.paths import private_dir, runs_dir
from waymark.host.core.phases import timed

TRACE_FILE = "trace.jsonl"
SUMMARY_FILE = "summary.json"
ARTIFACTS = "artifacts"


class RunSummary(BaseModel):
    """How a run ended. The first five fields are the contract; the rest explain it."""

    # Every field is in what agent.run answers (extension/sidepanel/agent_types.js says so).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    success: bool
    duration_ms: float
    tokens_total: int
    steps_passed: int
    steps_total: int
    #: Steps that acted but whose checks all held before they acted: done, but not proven.
    steps_unproven: int = 0
    run_id: str = ""
    task: str = ""
    #: Empty only before the run ends.
    outcome: RunOutcome | Literal[""] = ""
    reason: str = ""
    result: str = ""
    replans: int = 0
    retries: int = 0
    trace_dir: str = ""
    #: The split of tokens_total, over every model call (failed and rejected answers included).
    tokens_in: int = 0
    tokens_out: int = 0
    #: How often each guard (host.agent.guards, by name) refused an action or a success, and how
    #: often each advised the model (an advisory it overruled counts once).
    refusals: dict[str, int] = {}
    advisories: dict[str, int] = {}
    #: The answer for a program (done's data, validated against the output schema), None when none was given.
    data: Any = None
    #: Where each value of `data` was found on a page the run saw, or that it was not (host.agent.answers).
    grounding: Grounding | None = None


class StepEvent(BaseModel):
    """One attempt at a step, as the trace keeps it and the side panel shows it (a `step` event);
    fields not listed here (timings of parts, the snapshot's digest...) are kept as they come."""

    model_config = ConfigDict(extra="allow")

    step: int
    verdict: StepVerdict
    intent: str = ""
    #: Index of the step in its plan, the attempt at it (1 first) and the failed attempts before.
    plan_index: int = 0
    attempt: int = 1
    retries: int = 0
    verify: list[dict[str, Any]] = Field(default_factory=list)
    required: bool = True
    reason: str = ""
    #: The action as dispatched (host.core.actions) and a short line for people.
    action: dict[str, Any] | None = None
    action_line: str = ""
    thought: str | None = None
    #: What the guards found on this attempt (host.agent.guards), overruled advisories included.
    findings: list[Finding] = Field(default_factory=list)
    #: Unusable answers of the turn and the reminder each got.
    parse_failures: list[dict[str, Any]] = Field(default_factory=list)
    coercions: list[str] = Field(default_factory=list)
    #: The step's checks as judged after the action, and those that changed to holding.
    checks: list[dict[str, Any]] = Field(default_factory=list)
    changed: list[dict[str, Any]] = Field(default_factory=list)
    #: The change of the element acted on that proved the step, when its checks could not
    #: (host.agent.target_state): `checkbox "Remember me" checked false -> true`.
    target_state: str = ""
    #: Milliseconds per part of the attempt (model_ms, dispatch_ms, verify_ms...).
    timing: dict[str, float] = Field(default_factory=dict)
    tokens: int = 0
    #: A JPEG of the page after the step, streamed to the panel only (the trace keeps the file).
    thumbnail_b64: str | None = None


def step_event(record: dict[str, Any]) -> dict[str, Any]:
    """A step's record checked against StepEvent, as the fields it was given."""
    return StepEvent.model_validate(record).model_dump(mode="json", exclude_unset=True)


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus random hex."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + _random.token_hex(3)


def digest(text: str) -> str:
    """A short content digest (for snapshots in the trace)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class TraceWriter:
    """Appends events and stores artifacts of one run."""

    def __init__(self, run_id: str, redactor: Redactor, root: Path | None = None) -> None:
        self.run_id = run_id
        self.redactor = redactor
        self.dir = private_dir((root or runs_dir()) / run_id)
        redactor.keep(str(self.dir))
        redactor.keep(run_id)
        private_dir(self.dir.parent)
        self._file = self.dir / TRACE_FILE
        self._t0 = time.monotonic()

    @timed("trace")
    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append one event (redacted) and return it."""
        record = {"event": kind, "t_ms": round((time.monotonic() - self._t0) * 1000, 1), **fields}
        record = self.redactor.obj(record)
        fd = os.open(self._file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        return record

    def artifact_text(self, name: str, text: str) -> str:
        """Store a text artifact (redacted); returns its path relative to the run folder."""
        return self._write(name, self.redactor.text(text).encode("utf-8"))

    def artifact_json(self, name: str, value: Any) -> str:
        return self._write(name, json.dumps(self.redactor.obj(value), ensure_ascii=False, indent=1, default=str).encode("utf-8"))

    def artifact_b64(self, name: str, data_b64: str) -> str:
        """Store a base64 image (a screenshot) as a file."""
        return self._write(name, base64.b64decode(data_b64))

    def _write(self, name: str, data: bytes) -> str:
        folder = private_dir(self.dir / ARTIFACTS)
        path = folder / name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        self.redactor.keep(f"{ARTIFACTS}/{name}")
        return f"{ARTIFACTS}/{name}"

    def summary(self, summary: RunSummary) -> None:
        path = self.dir / SUMMARY_FILE
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(self.redactor.obj(summary.model_dump()), handle, indent=1)


class TraceNotFound(FileNotFoundError):
    """No run folder matches."""


def find_run(run: str, root: Path | None = None) -> Path:
    """A run folder from an id, a unique id prefix, `latest`, or a path."""
    candidate = Path(run)
    if (candidate / TRACE_FILE).exists():
        return candidate
    root = root or runs_dir()
    runs = sorted(p for p in root.glob("*") if (p / TRACE_FILE).exists()) if root.exists() else []
    if run == "latest" and runs:
        return runs[-1]
    matches = [p for p in runs if p.name == run] or [p for p in runs if p.name.startswith(run)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise TraceNotFound(f"no run {run!r} under {root}")
    raise TraceNotFound(f"{run!r} matches {len(matches)} runs; give more of the id")


def read_trace(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The events of a run and its summary (None while it is still running)."""
    events = [json.loads(line) for line in (folder / TRACE_FILE).read_text(encoding="utf-8").splitlines() if line.strip()]
    summary_path = folder / SUMMARY_FILE
    summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.exists() else None
    return events, summary
