"""`waymark eval`: run a task suite against any provider and model, compare two reports,
summarize a yardstick run's reports, render a report as one HTML page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, TypeVar

from waymark.host.commands._model_args import add_model_arguments, specs_from_args

T = TypeVar("T")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="run eval suites, compare two reports, render a report as HTML")
    commands = p.add_subparsers(dest="eval_command", metavar="SUBCOMMAND")

    run = commands.add_parser("run", help="run a suite and write one JSONL row per task")
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--suite", help="smoke, sites, miniwob, injection, apps (folders under eval/suites/)")
    which.add_argument("--suite-dir", type=Path, metavar="DIR",
                       help="a suite of your own: a folder of task files, with the pages they use in DIR/sites/ and scripts in DIR/scripts/")
    add_model_arguments(run)
    run.add_argument("--tasks", metavar="GLOB", action="append",
                     help="only tasks whose id (suite/name) or name matches; repeat it or separate globs with commas")
    run.add_argument("--workers", type=int, default=1, help="tasks run in parallel, each worker in its own browser")
    run.add_argument("--shard", metavar="i/n", help="run shard i of n (tasks sorted by id, every n-th)")
    run.add_argument("--out", type=Path, required=True, help="the JSONL report to write")
    run.add_argument("--headed", action="store_true", help="show the browser windows")
    run.add_argument("--no-output-schema", dest="output_schema", action="store_false",
                     help="ask extraction tasks for an answer of any shape instead of their output schema (the goal's words alone say its shape)")
    run.add_argument("--no-progress", action="store_true", help="no progress line on stderr (shown only on a terminal anyway)")
    run.add_argument("--half", choices=("tuning", "heldout"),
                     help="MiniWoB++: only this half of the task types (fixed split by a hash of the name)")
    run.add_argument("--seeds", type=int, default=1, metavar="N",
                     help="MiniWoB++: problems per task type, the task's own seed and the N-1 after it (default 1)")
    run.add_argument("--budget-minutes", type=float, metavar="M",
                     help="start no task after M minutes; the report's summary lists the tasks cut")
    run.set_defaults(handler=_run)

    cmp = commands.add_parser("compare", help="per-task changes and deltas of report B against baseline A")
    cmp.add_argument("a", type=Path, help="baseline report (JSONL)")
    cmp.add_argument("b", type=Path, help="new report (JSONL)")
    cmp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cmp.set_defaults(handler=_compare)

    summ = commands.add_parser("summary", help="the yardstick's table over reports: pass rates with 95%% intervals, "
                                               "cost per task, guards, verdict agreement")
    summ.add_argument("reports", type=Path, nargs="+", help="JSONL reports, or folders of them (a yardstick run's folder)")
    summ.add_argument("--json", action="store_true", help="print the summary as JSON")
    summ.add_argument("--out", type=Path, metavar="DIR", help="also write DIR/summary.md and DIR/summary.json")
    summ.set_defaults(handler=_summary)

    page = commands.add_parser("html", help="render a report (with the runs' steps and screenshots) as one HTML file")
    page.add_argument("report", type=Path, help="the JSONL report")
    page.add_argument("-o", "--out", type=Path, help="the HTML file to write (default: the report's name with .html, beside it)")
    page.set_defaults(handler=_html)

    table = commands.add_parser("table", help="markdown tables of reports: pass rate with its 95%% interval, tokens and seconds per task")
    table.add_argument("reports", type=Path, nargs="+", help="JSONL reports of `waymark eval run`")
    table.add_argument("-o", "--out", default="-", metavar="FILE|-", help="the markdown file to write (default -: stdout)")
    table.set_defaults(handler=_table)

    flows = commands.add_parser("workflows", help="run each sites task fresh, save it as a workflow, replay it, and replay it "
                                "on a changed copy of its site (healing)")
    flows.add_argument("--tasks", metavar="GLOB", action="append", help="only these sites tasks (as for `eval run`)")
    flows.add_argument("--out", type=Path, help="also write one JSONL row per task here")
    flows.add_argument("--no-variant", dest="variant", action="store_false", help="skip the replays on the changed site")
    flows.add_argument("--model", metavar="SPEC", help="run the fresh runs with this model spec (planner and executor) instead "
                       "of the tasks' scripts: tokens and time of a real model's run beside its replay's")
    flows.add_argument("--heal", metavar="SPEC", help="heal changed-site replays with this executor model spec, or `script`: "
                       "each task's own script answers (the healing itself, measured without a model; default: no healing)")
    flows.add_argument("--headed", action="store_true", help="show the browser window")
    flows.set_defaults(handler=_workflows)

    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def _workflows(args: argparse.Namespace) -> int:
    import asyncio

    from waymark.eval.tasks import TaskError
    from waymark.eval.workflows import SCRIPT_HEAL, format_rows, run_suite

    heal = {"script": SCRIPT_HEAL} if args.heal == "script" else {"planner": args.heal, "executor": args.heal} if args.heal else {}
    try:
        rows, report = asyncio.run(run_suite(args.tasks, args.out, heal, variant=args.variant, headless=not args.headed,
                                             fresh_model=args.model))
    except TaskError as exc:
        print(f"waymark eval workflows: {exc}", file=sys.stderr)
        return 2
    print(format_rows(rows, report))
    return 0 if report.false_successes == 0 and report.replay_passed == report.saved else 1


def _run(args: argparse.Namespace) -> int:
    from waymark.eval.progress import shown_on
    from waymark.eval.report import ReportError, format_summary
    from waymark.eval.runner import RunConfig, RunnerError, run_suite_sync
    from waymark.eval.tasks import TaskError

    try:
        config = RunConfig.from_cli(
            suite=args.suite, specs=specs_from_args(args), tasks=args.tasks, workers=args.workers, shard=args.shard,
            out=args.out, headless=not args.headed, plan=args.plan, output_schema=args.output_schema, half=args.half,
            seeds=args.seeds, budget_minutes=args.budget_minutes, suite_dir=args.suite_dir,
        )
        summary = run_suite_sync(config, progress=shown_on(sys.stderr, disabled=args.no_progress))
    except (TaskError, RunnerError, ReportError, ValueError) as exc:
        print(f"waymark eval run: {exc}", file=sys.stderr)
        return 2
    print(format_summary(summary, title=f"suite {config.suite}: {args.out}"))
    return 0


def _reading(command: str, read: Callable[[], T]) -> T | None:
    """`read()`'s reports, or None after saying on stderr which report is unreadable and why."""
    from waymark.eval.report import ReportError

    try:
        return read()
    except ReportError as exc:
        print(f"waymark eval {command}: {exc}", file=sys.stderr)
        return None


def _compare(args: argparse.Namespace) -> int:
    from waymark.eval.compare import compare, format_comparison
    from waymark.eval.report import read_rows

    result = _reading("compare", lambda: compare(read_rows(args.a), read_rows(args.b)))
    if result is None:
        return 2
    print(result.model_dump_json(indent=1) if args.json else format_comparison(result, args.a.name, args.b.name))
    return 0


def _summary(args: argparse.Namespace) -> int:
    from waymark.eval.yardstick import format_markdown, summarize_reports

    summary = _reading("summary", lambda: summarize_reports(args.reports))
    if summary is None:
        return 2
    markdown = format_markdown(summary)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary.md").write_text(markdown, encoding="utf-8")
        (args.out / "summary.json").write_text(summary.model_dump_json(indent=1), encoding="utf-8")
    print(summary.model_dump_json(indent=1) if args.json else markdown, end="" if not args.json else "\n")
    return 0


def _html(args: argparse.Namespace) -> int:
    from waymark.eval.html import write_html
    from waymark.eval.report import read_rows

    rows = _reading("html", lambda: read_rows(args.report))
    if rows is None:
        return 2
    path = write_html(rows, args.out or args.report.with_suffix(".html"), title=f"Waymark eval: {args.report.name}")
    print(f"wrote {path}")
    return 0


def _table(args: argparse.Namespace) -> int:
    from waymark.eval.report import ReportError, read_rows
    from waymark.eval.tables import markdown_tables

    try:
        text = markdown_tables([(path, read_rows(path)) for path in args.reports])
    except ReportError as exc:
        print(f"waymark eval table: {exc}", file=sys.stderr)
        return 2
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    return 0
