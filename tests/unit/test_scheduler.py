"""The scheduler decides what is due from a schedule, its history and a clock the test sets."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from waymark.host.workflows.schedule import (
    Cadence,
    RunEntry,
    Schedule,
    ScheduleInvalid,
    at_time,
    every,
    stamp,
)
from waymark.host.workflows.scheduler import due, due_slot, next_slot

UTC = timezone.utc
#: A Monday.
MONDAY = datetime(2025, 3, 3, 7, 0, tzinfo=UTC)
GONE, ALIVE = (lambda pid: False), (lambda pid: True)


def _schedule(cadence: Cadence, created: datetime = MONDAY, **more: object) -> Schedule:
    return Schedule(workflow="prices", cadence=cadence, created=stamp(created), **more)  # type: ignore[arg-type]


def _ran(slot: datetime, outcome: str = "done", pid: int = 1, created: datetime = MONDAY) -> RunEntry:
    return RunEntry(run_id=f"r{slot.timestamp()}", schedule=stamp(created), slot=stamp(slot), started=stamp(slot), outcome=outcome,
                    host_pid=pid)


def test_an_hourly_schedule_is_not_due_before_its_first_hour():
    assert due_slot(_schedule(every("1h")), [], MONDAY + timedelta(minutes=59), GONE) is None


def test_an_hourly_schedule_is_due_an_hour_after_it_was_made():
    assert due_slot(_schedule(every("1h")), [], MONDAY + timedelta(minutes=61), GONE) == MONDAY + timedelta(hours=1)


def test_a_slot_that_ran_is_not_due_again():
    slot = MONDAY + timedelta(hours=1)
    assert due_slot(_schedule(every("1h")), [_ran(slot)], slot + timedelta(minutes=5), GONE) is None


def test_missed_slots_run_once_for_the_latest_when_the_browser_opens_again():
    schedule = _schedule(every("1h"))
    reopened = MONDAY + timedelta(hours=5, minutes=10)  # the browser was closed over four slots
    slot = due_slot(schedule, [_ran(MONDAY + timedelta(hours=1))], reopened, GONE)
    assert slot == MONDAY + timedelta(hours=5)
    assert due_slot(schedule, [_ran(MONDAY + timedelta(hours=1)), _ran(slot)], reopened + timedelta(minutes=1), GONE) is None


def test_a_schedule_made_again_starts_its_slots_afresh():
    earlier = _ran(MONDAY + timedelta(hours=2), created=MONDAY - timedelta(hours=1))
    assert due_slot(_schedule(every("1h")), [earlier], MONDAY + timedelta(hours=2, minutes=1), GONE) == MONDAY + timedelta(hours=2)


def test_a_run_in_progress_is_not_started_twice_even_when_its_next_slot_comes():
    schedule = _schedule(every("30m"))
    running = _ran(MONDAY + timedelta(minutes=30), outcome="running")
    assert due_slot(schedule, [running], MONDAY + timedelta(minutes=65), ALIVE) is None


def test_a_run_whose_host_is_gone_does_not_hold_the_next_slot():
    schedule = _schedule(every("30m"))
    running = _ran(MONDAY + timedelta(minutes=30), outcome="running")
    assert due_slot(schedule, [running], MONDAY + timedelta(minutes=65), GONE) == MONDAY + timedelta(minutes=60)


def test_a_daily_schedule_is_due_at_its_time_and_not_before():
    schedule = _schedule(at_time("daily", "08:00"))
    assert due_slot(schedule, [], MONDAY + timedelta(minutes=59), GONE) is None
    assert due_slot(schedule, [], MONDAY + timedelta(hours=1), GONE) == MONDAY.replace(hour=8)


def test_a_daily_schedule_made_after_todays_time_first_runs_tomorrow():
    schedule = _schedule(at_time("daily", "06:00"))
    assert due_slot(schedule, [], MONDAY + timedelta(hours=3), GONE) is None
    assert due_slot(schedule, [], MONDAY + timedelta(days=1), GONE) == (MONDAY + timedelta(days=1)).replace(hour=6)


def test_a_weekdays_schedule_skips_the_weekend():
    schedule = _schedule(at_time("weekdays", "08:00"))
    friday = MONDAY.replace(hour=8) + timedelta(days=4)
    ran_friday = [_ran(friday)]
    sunday_evening = friday + timedelta(days=2, hours=12)
    assert due_slot(schedule, ran_friday, sunday_evening, GONE) is None
    assert next_slot(schedule.cadence, MONDAY, sunday_evening) == friday + timedelta(days=3)
    assert due_slot(schedule, ran_friday, friday + timedelta(days=3, minutes=1), GONE) == friday + timedelta(days=3)


def test_a_paused_schedule_is_never_due():
    assert due_slot(_schedule(every("1h"), paused=True), [], MONDAY + timedelta(hours=3), GONE) is None


def test_due_lists_the_longest_waiting_schedule_first():
    daily = Schedule(workflow="daily", cadence=at_time("daily", "07:30"), created=stamp(MONDAY))
    hourly = Schedule(workflow="hourly", cadence=every("1h"), created=stamp(MONDAY))
    found = due([hourly, daily], {}, MONDAY + timedelta(hours=1, minutes=5), GONE)
    assert [s.workflow for s, _ in found] == ["daily", "hourly"]


@pytest.mark.parametrize("text", ["0h", "1d", "soon", "-5m"])
def test_an_interval_that_is_not_minutes_or_hours_is_refused_in_words(text: str):
    with pytest.raises(ScheduleInvalid, match="--every takes minutes or hours"):
        every(text)


def test_a_time_of_day_that_is_not_hh_mm_is_refused_in_words():
    with pytest.raises(ScheduleInvalid, match="HH:MM"):
        at_time("daily", "8am")
