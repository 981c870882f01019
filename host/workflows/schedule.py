"""Schedules of saved workflows and the history of their runs: pydantic models and the files they
live in, `<config>/schedules.json` (every schedule) and `<config>/schedule-history/NAME.jsonl`
(one line when a run starts, one when it ends), both user-only like the workflow store.

What is due is decided elsewhere (host.workflows.scheduler, a pure module with an injected clock);
this module only reads and writes.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from waymark.host.core.paths import config_dir, private_dir
from waymark.host.workflows.model import NAME_PATTERN, Workflow, WorkflowInvalid

#: "HH:MM", 24-hour, local time.
CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
#: An interval: a number and m (minutes) or h (hours).
INTERVAL = re.compile(r"^\s*(\d{1,4})\s*(m|min|h|hr)\s*$")


class ScheduleInvalid(ValueError):
    """A schedule that cannot be made as asked (one readable line)."""


class Cadence(BaseModel):
    """When a workflow runs: every N minutes, daily at HH:MM, or on weekdays (Monday to Friday) at HH:MM."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["every", "daily", "weekdays"]
    #: For `every`: minutes between runs.
    minutes: int | None = Field(default=None, ge=1, le=10_080)
    #: For `daily` and `weekdays`: the local time of day, HH:MM.
    at: str | None = None

    @field_validator("at")
    @classmethod
    def _clock(cls, value: str | None) -> str | None:
        if value is not None and not CLOCK.match(value):
            raise ValueError(f"{value!r} is not a time of day (HH:MM, 24-hour, e.g. 08:00)")
        return value

    def model_post_init(self, __context: Any) -> None:
        if self.kind == "every" and self.minutes is None:
            raise ValueError("an `every` schedule needs its minutes")
        if self.kind != "every" and self.at is None:
            raise ValueError(f"a {self.kind} schedule needs its time of day")

    def words(self) -> str:
        """The cadence as a person says it."""
        if self.kind == "every":
            m = self.minutes or 0
            return f"every {m // 60}h" if m % 60 == 0 else f"every {m}m"
        return f"{'daily' if self.kind == 'daily' else 'weekdays'} at {self.at}"


def every(text: str) -> Cadence:
    """`--every 1h` / `30m` as a cadence; ScheduleInvalid names what was wrong."""
    match = INTERVAL.match(text)
    if not match or int(match.group(1)) == 0:
        raise ScheduleInvalid(f"--every takes minutes or hours, like 30m or 1h, not {text!r}")
    minutes = int(match.group(1)) * (60 if match.group(2).startswith("h") else 1)
    try:
        return Cadence(kind="every", minutes=minutes)
    except ValidationError:
        raise ScheduleInvalid(f"--every {text}: at most once a week (10080 minutes)") from None


def at_time(kind: Literal["daily", "weekdays"], text: str) -> Cadence:
    """`--daily 08:00` / `--weekdays 08:00` as a cadence."""
    if not CLOCK.match(text.strip()):
        raise ScheduleInvalid(f"--{kind} takes a time of day, HH:MM (24-hour), like 08:00, not {text!r}")
    return Cadence(kind=kind, at=text.strip())


class Schedule(BaseModel):
    """One scheduled workflow."""

    model_config = ConfigDict(extra="forbid")

    workflow: str = Field(pattern=NAME_PATTERN)
    cadence: Cadence
    paused: bool = False
    #: The answer's fields (JSON paths such as `$.total`) whose change is worth a notification;
    #: empty: every field of the answer counts.
    fields: list[str] = Field(default_factory=list)
    #: Steps (1-based) whose destructive action the user approved for scheduled runs when scheduling.
    approved: list[int] = Field(default_factory=list)
    #: When it was made (ISO 8601 with offset): an `every` schedule counts its slots from here.
    created: str


class Change(BaseModel):
    """One counted answer field that differs from the previous run's answer."""

    model_config = ConfigDict(extra="forbid")

    field: str
    was: Any = None
    now: Any = None


class RunEntry(BaseModel):
    """One scheduled run as its history keeps it: written when it starts (`outcome` running), then
    again when it ends."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    #: The schedule it ran for, by when that was made: a schedule made again starts its slots afresh.
    schedule: str = ""
    #: The slot it ran for and when it started (ISO 8601 with offset).
    slot: str
    started: str
    ended: str | None = None
    #: running, done, failed, unproven, blocked, stopped, error, cancelled, interrupted.
    outcome: str = "running"
    reason: str = ""
    #: unchanged | healed | failed (the replay's own word), empty while running.
    replay: str = ""
    answer: Any = None
    changed: list[Change] = Field(default_factory=list)
    #: Why the user was told (answer changed, healed, failed), empty: not notified.
    notify: str = ""
    trace: str = ""
    model_calls: int = 0
    tokens: int = 0
    duration_ms: float = 0.0
    #: The host process running it: a `running` entry whose host is gone was interrupted.
    host_pid: int = 0


def _private_write(path: Path, text: str) -> None:
    private_dir(path.parent)
    temp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temp, path)


def schedules_path() -> Path:
    """The file of every schedule ($WAYMARK_CONFIG_DIR/schedules.json or the platform's config folder)."""
    return config_dir() / "schedules.json"


def history_path(name: str) -> Path:
    """The run history of one workflow's schedule (the name is checked: no path may escape the folder)."""
    if not re.fullmatch(NAME_PATTERN, name):
        raise WorkflowInvalid(f"field name: {name!r} is not a workflow name (lowercase letters, digits, - and _, up to 63)")
    return config_dir() / "schedule-history" / f"{name}.jsonl"


def load_all() -> dict[str, Schedule]:
    """Every schedule by workflow name (none when the file does not exist)."""
    path = schedules_path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {s["workflow"]: Schedule.model_validate(s) for s in data.get("schedules", [])}
    except (json.JSONDecodeError, ValidationError, KeyError, TypeError) as exc:
        raise ScheduleInvalid(f"{path} cannot be read: {exc}") from None


def save_all(schedules: dict[str, Schedule]) -> Path:
    """Write every schedule (user-only)."""
    path = schedules_path()
    rows = [s.model_dump(mode="json") for _, s in sorted(schedules.items())]
    _private_write(path, json.dumps({"schedules": rows}, indent=1, ensure_ascii=False) + "\n")
    return path


def put(schedule: Schedule) -> Path:
    """Add a schedule or replace the workflow's schedule."""
    schedules = load_all()
    schedules[schedule.workflow] = schedule
    return save_all(schedules)


def get(name: str) -> Schedule:
    """The schedule of a workflow; ScheduleInvalid when it has none."""
    schedules = load_all()
    if name not in schedules:
        raise ScheduleInvalid(f"the workflow {name!r} is not scheduled (see `waymark workflow schedule list`)")
    return schedules[name]


def remove(name: str) -> None:
    """Remove a workflow's schedule (its history stays beside it, for the record)."""
    schedules = load_all()
    if schedules.pop(get(name).workflow, None) is not None:
        save_all(schedules)


def record(name: str, entry: RunEntry) -> None:
    """Append a run's state to its workflow's history (the last line of a run id is its state)."""
    path = history_path(name)
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(entry.model_dump_json() + "\n")


def history(name: str) -> list[RunEntry]:
    """A workflow's scheduled runs, oldest first, each in its latest state (an unreadable line is skipped)."""
    path = history_path(name)
    if not path.exists():
        return []
    runs: dict[str, RunEntry] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = RunEntry.model_validate_json(line)
        except ValidationError:
            continue
        runs[entry.run_id] = entry  # a run's later line (its end) replaces its start
    return sorted(runs.values(), key=lambda e: e.started)


def stamp(moment: datetime) -> str:
    """The time stamps of schedules and their history: ISO 8601 with the clock's offset, to the second."""
    return moment.isoformat(timespec="seconds")


def new_schedule(workflow: Workflow, cadence: Cadence, now: datetime, *, fields: list[str] | None = None,
                 approve_destructive: bool = False) -> Schedule:
    """A schedule for a workflow, checked against it: counted fields must be fields of its answer,
    and a destructive step it has not approved must be approved for scheduled runs (nobody is
    there to confirm one)."""
    fields = list(fields or [])
    known = [v.path for v in workflow.answer.values] if workflow.answer else []
    for field in fields:
        if field not in known:
            raise ScheduleInvalid(f"--field {field}: {workflow.name} answers " + (f"the fields {', '.join(known)}" if known else "nothing"))
    unapproved = [i for i, step in enumerate(workflow.steps, 1) if step.destructive and i not in workflow.approved]
    if unapproved and not approve_destructive:
        step = workflow.steps[unapproved[0] - 1]
        raise ScheduleInvalid(f"step {unapproved[0]} ({step.intent}) is destructive ({step.destructive}) and nobody confirms a "
                              "scheduled run: schedule it with --approve-destructive to let scheduled runs do it")
    return Schedule(workflow=workflow.name, cadence=cadence, fields=fields, approved=unapproved if approve_destructive else [],
                    created=stamp(now))
