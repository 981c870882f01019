"""What is due, decided from a schedule, its history and the time now (an injected clock: the
caller passes `now`, so tests move time without waiting). Pure: no files, no browser.

A schedule's slots are the moments it should run: every N minutes counted from when it was made,
or each day (each weekday) at HH:MM in the clock's time zone. A schedule is due when its latest
slot up to now has no run yet: after the browser was closed over several slots it runs once, for
the latest, not once per missed slot. A run still in progress is never started again.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Callable

from waymark.host.workflows.schedule import Cadence, RunEntry, Schedule

#: The clock a scheduler reads: a time-zone-aware now.
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The machine's local time, with its offset."""
    return datetime.now().astimezone()


def latest_slot(cadence: Cadence, created: datetime, now: datetime) -> datetime | None:
    """The latest moment up to `now` (and after `created`) the cadence asks for a run; None before the first."""
    if cadence.kind == "every":
        step = timedelta(minutes=cadence.minutes or 1)
        count = (now - created) // step
        return created + count * step if count >= 1 else None
    hour, minute = (int(x) for x in (cadence.at or "00:00").split(":"))
    day = now.date()
    for _ in range(8):
        slot = datetime.combine(day, time(hour, minute), tzinfo=now.tzinfo)
        if slot <= now and (cadence.kind == "daily" or slot.weekday() < 5):
            return slot if slot > created else None
        day -= timedelta(days=1)
    return None


def next_slot(cadence: Cadence, created: datetime, now: datetime) -> datetime:
    """The first moment after `now` the cadence asks for a run."""
    if cadence.kind == "every":
        step = timedelta(minutes=cadence.minutes or 1)
        return created + ((now - created) // step + 1) * step
    hour, minute = (int(x) for x in (cadence.at or "00:00").split(":"))
    day = now.date()
    while True:
        slot = datetime.combine(day, time(hour, minute), tzinfo=now.tzinfo)
        if slot > now and (cadence.kind == "daily" or slot.weekday() < 5):
            return slot
        day += timedelta(days=1)


def in_progress(runs: list[RunEntry], alive: Callable[[int], bool]) -> RunEntry | None:
    """The run of this schedule still going (its host alive), if any."""
    for entry in reversed(runs):
        if entry.outcome == "running" and alive(entry.host_pid):
            return entry
    return None


def due_slot(schedule: Schedule, runs: list[RunEntry], now: datetime, alive: Callable[[int], bool]) -> datetime | None:
    """The slot to run now, or None: paused, nothing due yet, the latest slot already has a run
    of this schedule (finished or not), or a run is in progress."""
    if schedule.paused or in_progress(runs, alive) is not None:
        return None
    slot = latest_slot(schedule.cadence, datetime.fromisoformat(schedule.created), now)
    if slot is None:
        return None
    if any(datetime.fromisoformat(r.slot) >= slot for r in runs if r.schedule == schedule.created):
        return None
    return slot


def due(schedules: list[Schedule], histories: dict[str, list[RunEntry]], now: datetime,
        alive: Callable[[int], bool]) -> list[tuple[Schedule, datetime]]:
    """Every schedule due now with the slot it runs for, the longest-waiting first."""
    found = [(s, slot) for s in schedules if (slot := due_slot(s, histories.get(s.workflow, []), now, alive)) is not None]
    return sorted(found, key=lambda pair: pair[1])
