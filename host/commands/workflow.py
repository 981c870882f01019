"""`waymark workflow save|list|show|edit|run|delete|schedule`: a successful run saved as a workflow and
replayed without a model while its steps still match the page (host.workflows)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from typing import Any

from waymark.host.commands import workflow_schedule
from waymark.host.commands._model_args import add_model_arguments, models_from_args
from waymark.host.commands.run import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    run_and_report,
)

PROG = "waymark workflow"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("workflow", help="save a successful run as a workflow and replay it without a model")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")

    save = verbs.add_parser("save", help="save a run that succeeded as a workflow")
    save.add_argument("run", help="run id, a unique prefix of one, or `latest` (see `waymark trace list`)")
    save.add_argument("--name", required=True, help="the workflow's name (lowercase letters, digits, - and _)")
    save.add_argument("--description", default="", help="what the workflow does, in words")
    save.add_argument("--approve-destructive", action="store_true",
                      help="approve the run's destructive steps (order, pay, send...) for this workflow: replays do not ask")
    save.add_argument("--replace", action="store_true", help="replace a workflow of that name")
    save.set_defaults(handler=_save)

    listing = verbs.add_parser("list", help="the saved workflows")
    listing.add_argument("--json", action="store_true", help="print them as one JSON object")
    listing.set_defaults(handler=_list)

    show = verbs.add_parser("show", help="a workflow's steps, parameters and file")
    show.add_argument("name")
    show.add_argument("--json", action="store_true", help="print the workflow file's content")
    show.set_defaults(handler=_show)

    edit = verbs.add_parser("edit", help="open a workflow in $VISUAL or $EDITOR, then check it")
    edit.add_argument("name")
    edit.set_defaults(handler=_edit)

    delete = verbs.add_parser("delete", help="delete a saved workflow")
    delete.add_argument("name")
    delete.set_defaults(handler=_delete)

    run = verbs.add_parser("run", help="replay a workflow in Chromium with the real extension and host")
    run.add_argument("name")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a parameter's value (repeatable)")
    run.add_argument("--start-url", help="start here instead of the recorded address (a staging copy of the site)")
    run.add_argument("--json", action="store_true", help="print only the summary, as one JSON object, on stdout")
    run.add_argument("--no-heal", dest="heal", action="store_false", help="never ask a model: a step that no longer matches fails")
    run.add_argument("--script", metavar="FILE", help="heal with the scripted provider and this script")
    run.add_argument("--headed", action="store_true", help="show the browser window (needs a display)")
    run.add_argument("--confirm", choices=["ask", "approve", "decline"], default="ask",
                     help="answer to destructive-action confirmations the workflow has not approved")
    add_model_arguments(run)
    run.set_defaults(handler=_run)
    workflow_schedule.register(verbs)
    p.set_defaults(handler=lambda args: (p.print_help(), EXIT_USAGE)[1])


def _fail(message: str, code: int = EXIT_USAGE) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return code


def _save(args: argparse.Namespace) -> int:
    from waymark.host.methods import MethodError
    from waymark.host.rpc.workflows import SaveParams, save_run

    try:
        saved = save_run(SaveParams(run_id=args.run, name=args.name, description=args.description, approve=args.approve_destructive,
                                    replace=args.replace))
    except MethodError as exc:
        return _fail(f"{exc.code}: {exc.message}", EXIT_FAILED if exc.code == "not_saveable" else EXIT_USAGE)
    workflow = saved["workflow"]
    print(f"saved workflow {workflow['name']}: {len(workflow['steps'])} steps, "
          f"{len(workflow.get('parameters', []))} parameter(s) -> {saved['path']}")
    for param in workflow.get("parameters", []):
        print(f"  --param {param['name']}={param.get('default', '')}")
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    from waymark.host.workflows import store

    rows = store.listing()
    if args.json:
        print(json.dumps({"workflows": rows, "folder": str(store.workflows_dir())}))
        return EXIT_OK
    if not rows:
        print(f"no workflows saved in {store.workflows_dir()} (save one: waymark workflow save RUN --name NAME)")
    for row in rows:
        if "error" in row:
            print(f"{row['name']:<24} INVALID: {row['error']}")
            continue
        params = " ".join(f"--param {p['name']}=" for p in row.get("parameters", []))  # type: ignore[union-attr]
        print(f"{row['name']:<24} {row['steps']:>2} steps  {row['task']}" + (f"  [{params}]" if params else ""))
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    from waymark.host.agent.answers.schema import path_of
    from waymark.host.workflows import store
    from waymark.host.workflows.locate import described
    from waymark.host.workflows.model import WorkflowInvalid
    from waymark.host.workflows.reread import context_words

    try:
        workflow = store.load(args.name)
    except (store.WorkflowNotFound, WorkflowInvalid) as exc:
        return _fail(str(exc), EXIT_FAILED)
    if args.json:
        print(json.dumps(workflow.model_dump(mode="json", exclude_none=True)))
        return EXIT_OK
    print(f"{workflow.name}: {workflow.task}\n  file: {store.path_of(workflow.name)}\n  starts at: {workflow.start_url}")
    for param in workflow.parameters:
        print(f"  parameter {param.name}" + (f" (default {param.default!r})" if param.default is not None else " (required)"))
    for i, step in enumerate(workflow.steps, 1):
        on = f" {described(step.target)}" if step.target else ""
        approved = " (approved)" if i in workflow.approved else ""
        print(f"  {i:>2}. {step.intent}\n      {step.action.get('type')}{on}"
              + (f"  destructive: {step.destructive}{approved}" if step.destructive else ""))
        for check in step.checks:
            print(f"      proven by: {json.dumps(check, ensure_ascii=False)}")
    for criterion in workflow.success_criteria:
        print(f"  done when: {json.dumps(criterion, ensure_ascii=False)}")
    for value in workflow.answer.values if workflow.answer else []:
        how = (f"the {value.computed} of {path_of(value.over)}" + (f"[*].{value.field}" if value.field is not None else "") if value.computed
               else "read between \"{}\" and \"{}\"".format(*(" ".join(words) for words in context_words(value))))
        print(f"  answer {value.path} (saved {json.dumps(value.value, ensure_ascii=False)}): {how}")
    return EXIT_OK


def _edit(args: argparse.Namespace) -> int:
    from waymark.host.workflows import store
    from waymark.host.workflows.model import WorkflowInvalid

    try:
        store.load(args.name)
        path = store.path_of(args.name)
    except (store.WorkflowNotFound, WorkflowInvalid) as exc:
        return _fail(str(exc), EXIT_FAILED)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        return _fail(f"set $EDITOR to edit here, or edit {path} and run `waymark workflow show {args.name}` to check it")
    subprocess.run([*shlex.split(editor), str(path)], check=False)
    try:
        store.load(args.name)
    except WorkflowInvalid as exc:
        return _fail(f"the edited workflow does not load: {exc}", EXIT_FAILED)
    print(f"workflow {args.name} checked: it loads")
    return EXIT_OK


def _delete(args: argparse.Namespace) -> int:
    from waymark.host.workflows import store
    from waymark.host.workflows.model import WorkflowInvalid

    try:
        path = store.delete(args.name)
    except (store.WorkflowNotFound, WorkflowInvalid) as exc:
        return _fail(str(exc), EXIT_FAILED)
    print(f"deleted {path}")
    return EXIT_OK


def replay_params(args: argparse.Namespace) -> dict[str, Any]:
    """workflow.run params from the command line; raises ValueError for a usage error."""
    values: dict[str, str] = {}
    for pair in args.param:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--param takes NAME=VALUE, not {pair!r}")
        values[name] = value
    models = {k: v for k, v in models_from_args(args).items() if k in ("script", "planner", "executor")}
    policy: dict[str, Any] = {"destructive": "allow"} if args.confirm == "approve" else {}
    params: dict[str, Any] = {"name": args.name, "params": values, "heal": args.heal, "policy": policy, **models}
    if args.start_url:
        params["start_url"] = args.start_url
    return params


def _replay_details(summary: dict[str, Any]) -> str:
    return (f"  replay: {summary.get('replay')}, {summary.get('model_calls', 0)} model call(s)"
            + "".join(f"\n  healed step {h['step']} by {h['by']}: was {h['was']}, now {h['now']}" for h in summary.get("heals", [])))


def _run(args: argparse.Namespace) -> int:
    try:
        params = replay_params(args)
    except ValueError as exc:
        return _fail(str(exc))
    return run_and_report(args, "workflow.run", params, prog=PROG,
                          usage_codes=frozenset({"bad_params", "no_such_workflow", "invalid_workflow"}), details=_replay_details)
