"""Schedules as a person or an MCP client reads them: each with its next slot and its last run."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from waymark.host.workflows import schedule
from waymark.host.workflows.scheduler import next_slot, system_clock


def rows() -> list[dict[str, Any]]:
    """Every schedule with its next slot and its last run (also what MCP clients are shown)."""
    now = system_clock()
    out: list[dict[str, Any]] = []
    for name, made in sorted(schedule.load_all().items()):
        runs = schedule.history(name)
        last = runs[-1] if runs else None
        out.append({"workflow": name, "when": made.cadence.words(), "paused": made.paused, "fields": made.fields,
                    "approved": made.approved,
                    "next": None if made.paused else schedule.stamp(next_slot(made.cadence, datetime.fromisoformat(made.created), now)),
                    "last": last.model_dump(mode="json", exclude={"host_pid"}) if last else None})
    return out
