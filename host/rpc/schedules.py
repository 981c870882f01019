"""Host methods of scheduled workflows: `schedule.tick`, which the extension calls when its alarm
wakes it (about once a minute while the browser runs), and `schedule.list`.

`schedule.tick` ends the history of runs whose host is gone (the browser or its service worker
stopped mid-run), then replays each workflow that is due (host.workflows.scheduler) in a new
background tab of its own tab group, closed when done, never the user's active tab. A scheduled
run asks nobody: a step that needs a confirmation (not approved for scheduled runs) stops it. The
reply lists what ran and what is worth a notification: {ran: [RunEntry...], notify: [{workflow,
run_id, title, message, trace}]}. Params: {now?: ISO 8601} — the time to decide by (tests move
time with it); only the user's own connection may call it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.agent.budgets import snapshot_chars
from waymark.host.agent.confirm import Policy
from waymark.host.agent.human import Human
from waymark.host.agent.trace import new_run_id
from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.core.processes import alive
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.rpc.workflows import ReplayParams, _heal_source
from waymark.host.settings import load_settings, run_policy
from waymark.host.workflows import schedule, store
from waymark.host.workflows.model import ParamMissing, WorkflowInvalid, bind
from waymark.host.workflows.replay import Replay, ReplayOptions
from waymark.host.workflows.schedule import RunEntry, Schedule, stamp
from waymark.host.workflows.schedule_news import (
    changes,
    last_answer,
    message,
    worth_telling,
)
from waymark.host.workflows.scheduler import due, system_clock

log = logging.getLogger(__name__)

#: The title of the tab group scheduled runs open their tabs in.
GROUP = "Waymark schedule"
#: Why a run ended `interrupted`.
INTERRUPTED = "the browser or its service worker stopped while the run was in progress; the next slot runs it again"
#: Runs of this host in progress, by run id: a `running` entry of this host not here was lost.
_ACTIVE: set[str] = set()
#: One tick at a time: an alarm that fires while a tick still runs finds its runs in progress.
_TICK = asyncio.Lock()


class NobodyAtSchedule(Human):
    """A scheduled run's person in the loop: nobody. Questions go unanswered and confirmations are
    declined, and what was asked is kept so the run's history says why it stopped."""

    def __init__(self) -> None:
        self.asked: dict[str, Any] | None = None

    async def ask(self, question: str) -> str | None:
        self.asked = {"question": question}
        return None

    async def confirm(self, request: dict[str, Any]) -> bool:
        self.asked = request
        return False


def _end_lost_runs(now: datetime) -> None:
    """A `running` entry whose host is gone (or this host's that it no longer runs) ends with its reason."""
    for name in schedule.load_all():
        for entry in schedule.history(name):
            if entry.outcome != "running":
                continue
            if (entry.host_pid == os.getpid() and entry.run_id not in _ACTIVE) or not alive(entry.host_pid):
                schedule.record(name, entry.model_copy(update={
                    "outcome": "interrupted", "ended": stamp(now),
                    "reason": INTERRUPTED}))


async def _close_tabs(bridge: BrowserBridge, tabs: set[int]) -> None:
    for tab in sorted(tabs):
        try:
            await bridge.request("tabs.close", {"tab_id": tab})
        except BrowserError as exc:
            log.info("could not close the scheduled run's tab %s: %s", tab, exc.code)


async def _close_left_tabs(bridge: BrowserBridge) -> None:
    """Close what is left in the scheduled runs' tab group while none runs: the tabs of a run whose
    host went away before it could close them."""
    try:
        left = await bridge.request("tabs.close_group", {"title": GROUP})
    except BrowserError as exc:
        log.info("could not close the tabs left in %r: %s", GROUP, exc.code)
        return
    if left.get("closed"):
        log.info("closed %d tab(s) an interrupted scheduled run left open", len(left["closed"]))


def _stopped_reason(human: NobodyAtSchedule, reason: str) -> str:
    if human.asked is None:
        return reason
    if "question" in human.asked:
        return f"it asked a question and a scheduled run has nobody to answer: {human.asked['question']}"
    return (f"{reason} — a scheduled run never asks for confirmation: approve this step for scheduled runs "
            "(waymark workflow schedule NAME ... --approve-destructive) or run the workflow yourself")


async def run_scheduled(made: Schedule, slot: datetime, bridge: BrowserBridge, now: datetime) -> RunEntry:
    """Replay one due workflow in a background tab and record its run in the schedule's history."""
    run_id = new_run_id()
    entry = RunEntry(run_id=run_id, schedule=made.created, slot=stamp(slot), started=stamp(now), host_pid=os.getpid())
    runs = schedule.history(made.workflow)
    try:
        workflow = store.load(made.workflow)
        values = bind(workflow, {})
    except (store.WorkflowNotFound, WorkflowInvalid, ParamMissing) as exc:
        ended = entry.model_copy(update={"outcome": "failed", "reason": str(exc), "ended": stamp(now), "replay": "failed"})
        schedule.record(made.workflow, ended)
        return ended
    workflow = workflow.model_copy(update={"approved": sorted({*workflow.approved, *made.approved})})
    options = ReplayOptions(values=values, policy=run_policy(Policy(), trusted=False), file_folders=load_settings().file_folders,
                            max_chars=snapshot_chars(32_000))
    human = NobodyAtSchedule()
    replay = Replay(workflow, options, bridge, human, executor_source=_heal_source(ReplayParams(name=workflow.name)), run_id=run_id)
    replay.session.background = GROUP
    entry.trace = str(replay.record.trace.dir)
    schedule.record(made.workflow, entry)
    _ACTIVE.add(run_id)
    try:
        summary = await replay.run()
    except asyncio.CancelledError:
        schedule.record(made.workflow, entry.model_copy(update={"outcome": "interrupted", "ended": stamp(system_clock()), "reason": INTERRUPTED}))
        raise
    finally:
        _ACTIVE.discard(run_id)
        await asyncio.shield(_close_tabs(bridge, replay.session.tabs))
    if bridge.disconnected:
        # The replay failed because its browser went away, not because of the page: nobody is
        # told of a failure, the run is only cut short.
        lost = entry.model_copy(update={"outcome": "interrupted", "ended": stamp(now), "reason": INTERRUPTED,
                                        "duration_ms": summary.duration_ms, "trace": summary.trace_dir or entry.trace})
        schedule.record(made.workflow, lost)
        return lost
    answered_before, before = last_answer(runs)
    done = summary.success and summary.outcome == "done"
    changed = changes(workflow.answer, made.fields, before, summary.data) if done and answered_before else []
    ended = entry.model_copy(update={
        "outcome": "done" if done else (summary.outcome or "failed"), "reason": summary.reason if done else _stopped_reason(human, summary.reason),
        "ended": stamp(now), "replay": summary.replay, "answer": summary.data, "changed": changed, "model_calls": summary.model_calls,
        "tokens": summary.tokens_total, "duration_ms": summary.duration_ms, "trace": summary.trace_dir or entry.trace})
    ended.notify = worth_telling(ended)
    schedule.record(made.workflow, ended)
    return ended


@method("schedule.tick")
async def schedule_tick(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Run what is due now; the reply says what ran and what to notify."""
    if ctx.client_id is not None:
        raise MethodError("not_allowed", "only Waymark's own extension runs schedules")
    try:
        now = datetime.fromisoformat(params["now"]) if params.get("now") else system_clock()
    except (TypeError, ValueError):
        raise MethodError("bad_params", f"now: {params.get('now')!r} is not an ISO 8601 time") from None
    if now.tzinfo is None:
        now = now.astimezone()
    async with _TICK:
        _end_lost_runs(now)
        if not _ACTIVE:
            await _close_left_tabs(ctx.browser)
        try:
            schedules = schedule.load_all()
        except schedule.ScheduleInvalid as exc:
            raise MethodError("invalid_schedules", str(exc)) from None
        ran: list[tuple[str, RunEntry]] = []
        for made, slot in due(list(schedules.values()), {n: schedule.history(n) for n in schedules}, now, alive):
            ran.append((made.workflow, await run_scheduled(made, slot, ctx.browser, now)))
    notify = [{"workflow": name, "run_id": e.run_id, "title": message(name, e)[0], "message": message(name, e)[1], "trace": e.trace,
               "why": e.notify} for name, e in ran if e.notify]
    return {"ran": [{"workflow": name, **e.model_dump(mode="json", exclude={"host_pid"})} for name, e in ran], "notify": notify}


@method("schedule.list")
async def schedule_list(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Every schedule with its next slot and its last run (read-only)."""
    from waymark.host.workflows.schedule_view import rows

    return {"schedules": rows()}


class ScheduleParams(BaseModel):
    """What the side panel's schedule form sends: one of `every` (30m, 1h), `daily` or `weekdays`
    (HH:MM), and the answer fields whose change is worth a notification (none: every field, as the
    command line's `--field` defaults to)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    every: str | None = None
    daily: str | None = None
    weekdays: str | None = None
    fields: list[str] = Field(default_factory=list)
    approve_destructive: bool = False


class ScheduleName(BaseModel):
    """The workflow whose schedule is paused, resumed or removed."""

    model_config = ConfigDict(extra="forbid")

    name: str


def _users_own(ctx: CallContext, params: dict[str, Any], model: type[Any]) -> Any:
    """Only the user's own panel makes or changes schedules, never an MCP client."""
    if ctx.client_id is not None:
        raise MethodError("not_allowed", "only the user makes or changes schedules, in the side panel or on the command line")
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise MethodError("bad_params", str(exc.errors()[0]["msg"])) from None


@method("schedule.set")
async def schedule_set(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Schedule a saved workflow (or replace its schedule), as `waymark workflow schedule NAME --every ...` does."""
    asked: ScheduleParams = _users_own(ctx, params, ScheduleParams)
    try:
        cadence = (schedule.every(asked.every) if asked.every else schedule.at_time("daily", asked.daily) if asked.daily
                   else schedule.at_time("weekdays", asked.weekdays) if asked.weekdays else None)
        if cadence is None:
            raise schedule.ScheduleInvalid("say when it runs: every N minutes or hours, daily at, or weekdays at")
        workflow = store.load(asked.name)
        schedule.put(schedule.new_schedule(workflow, cadence, system_clock(), fields=asked.fields,
                                             approve_destructive=asked.approve_destructive))
    except (schedule.ScheduleInvalid, store.WorkflowNotFound, WorkflowInvalid) as exc:
        raise MethodError("invalid_schedule", str(exc)) from None
    return await schedule_list({}, ctx)


@method("schedule.pause")
async def schedule_pause(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Pause a workflow's schedule: it does not run until resumed."""
    return await _change(_users_own(ctx, params, ScheduleName).name, paused=True, ctx=ctx)


@method("schedule.resume")
async def schedule_resume(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Resume a paused schedule."""
    return await _change(_users_own(ctx, params, ScheduleName).name, paused=False, ctx=ctx)


@method("schedule.remove")
async def schedule_remove(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Remove a workflow's schedule (its history stays)."""
    name = _users_own(ctx, params, ScheduleName).name
    try:
        schedule.remove(name)
    except (schedule.ScheduleInvalid, WorkflowInvalid) as exc:
        raise MethodError("invalid_schedule", str(exc)) from None
    return await schedule_list({}, ctx)


async def _change(name: str, *, paused: bool, ctx: CallContext) -> dict[str, Any]:
    try:
        made = schedule.get(name)
        schedule.put(made.model_copy(update={"paused": paused}))
    except schedule.ScheduleInvalid as exc:
        raise MethodError("invalid_schedule", str(exc)) from None
    return await schedule_list({}, ctx)
