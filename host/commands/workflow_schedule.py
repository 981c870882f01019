"""`waymark workflow schedule NAME --every 1h | --daily 08:00 | --weekdays 08:00` and
`waymark workflow schedule list|pause|resume|remove NAME`: when a saved workflow runs by itself
while the browser is open (host.workflows.schedule; the extension asks the host what is due)."""

from __future__ import annotations

import argparse
import json
import sys

from waymark.host.commands.run import EXIT_FAILED, EXIT_OK

PROG = "waymark workflow schedule"
VERBS = ("list", "pause", "resume", "remove")


def register(verbs: argparse._SubParsersAction) -> None:
    """The `schedule` verb of `waymark workflow`."""
    p = verbs.add_parser("schedule", help="run a workflow on a schedule while the browser is open; list, pause, resume, remove",
                         usage=f"{PROG} NAME (--every 1h | --daily 08:00 | --weekdays 08:00)\n       {PROG} list | pause NAME | "
                               "resume NAME | remove NAME")
    p.add_argument("words", nargs="+", metavar="NAME | list | pause NAME | resume NAME | remove NAME")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--every", metavar="INTERVAL", help="every N minutes or hours: 30m, 1h, 6h")
    when.add_argument("--daily", metavar="HH:MM", help="every day at this local time")
    when.add_argument("--weekdays", metavar="HH:MM", help="Monday to Friday at this local time")
    p.add_argument("--field", action="append", default=[], metavar="PATH",
                   help="an answer field whose change is worth a notification, e.g. '$.total' (repeatable; default: every field)")
    p.add_argument("--approve-destructive", action="store_true",
                   help="approve the workflow's destructive steps for scheduled runs (nobody confirms a scheduled run)")
    p.add_argument("--json", action="store_true", help="list: print one JSON object")
    p.set_defaults(handler=_schedule)


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return EXIT_FAILED


def _schedule(args: argparse.Namespace) -> int:
    from waymark.host.workflows.schedule import ScheduleInvalid

    words: list[str] = args.words
    verb = words[0] if words[0] in VERBS else "set"
    if len(words) != (2 if verb in ("pause", "resume", "remove") else 1):
        return _fail("list takes no name" if verb == "list" else f"{verb} takes one workflow name" if verb in VERBS
                     else "one workflow name, then --every, --daily or --weekdays")
    try:
        if verb == "list":
            return _list(args)
        if verb == "set":
            return _set(args, words[0])
        return _change(verb, words[1])
    except ScheduleInvalid as exc:
        return _fail(str(exc))


def _set(args: argparse.Namespace, name: str) -> int:
    from waymark.host.workflows import schedule, store
    from waymark.host.workflows.model import WorkflowInvalid
    from waymark.host.workflows.scheduler import next_slot, system_clock

    if args.every:
        cadence = schedule.every(args.every)
    elif args.daily or args.weekdays:
        cadence = schedule.at_time("daily" if args.daily else "weekdays", args.daily or args.weekdays)
    else:
        return _fail(f"say when {name} runs: --every 1h, --daily 08:00 or --weekdays 08:00")
    try:
        workflow = store.load(name)
    except (store.WorkflowNotFound, WorkflowInvalid) as exc:
        return _fail(str(exc))
    now = system_clock()
    made = schedule.new_schedule(workflow, cadence, now, fields=args.field, approve_destructive=args.approve_destructive)
    schedule.put(made)
    approved = f"; destructive step(s) {', '.join(map(str, made.approved))} approved for scheduled runs" if made.approved else ""
    print(f"scheduled {name} {cadence.words()}; next run {schedule.stamp(next_slot(cadence, now, now))} "
          f"(while the browser is open){approved}")
    return EXIT_OK


def _change(verb: str, name: str) -> int:
    from waymark.host.workflows import schedule

    if verb == "remove":
        schedule.remove(name)
        print(f"removed the schedule of {name} (its history stays in {schedule.history_path(name)})")
        return EXIT_OK
    made = schedule.get(name)
    made.paused = verb == "pause"
    schedule.put(made)
    print(f"{'paused' if made.paused else 'resumed'} {name} ({made.cadence.words()})")
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    from waymark.host.workflows import schedule
    from waymark.host.workflows.schedule_view import rows

    listed = rows()
    if args.json:
        print(json.dumps({"schedules": listed, "file": str(schedule.schedules_path())}))
        return EXIT_OK
    if not listed:
        print("no workflow is scheduled (schedule one: waymark workflow schedule NAME --every 1h)")
    for row in listed:
        last = row["last"]
        said = "never ran" if last is None else (
            f"last {last['outcome']} {last['started']}" + (f", changed: {', '.join(c['field'] for c in last['changed'])}" if last["changed"] else "")
            + (f" ({last['reason']})" if last["outcome"] not in ("done", "running") and last["reason"] else ""))
        print(f"{row['workflow']:<24} {row['when']:<18} {'PAUSED' if row['paused'] else 'next ' + row['next']}  {said}")
    return EXIT_OK
