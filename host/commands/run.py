"""`waymark run "TASK"`: run agent mode in Chromium with the real extension and host."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Callable, TextIO

from waymark.host.commands._model_args import add_model_arguments, models_from_args

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an agent task in Chromium with the real extension and host")
    p.add_argument("task", help="what the agent should do, in words")
    p.add_argument("--start-url", required=True, help="the page the agent starts on")
    add_model_arguments(p)
    p.add_argument("--script", metavar="FILE", help="drive both roles with the scripted provider and this script")
    p.add_argument("--headed", action="store_true", help="show the browser window (needs a display)")
    p.add_argument("--json", action="store_true", help="print only the summary, as one JSON object, on stdout")
    p.add_argument("--confirm", choices=["ask", "approve", "decline"], default="ask",
                   help="answer to destructive-action confirmations (ask: prompt on a terminal, else decline)")
    p.add_argument("--max-steps", type=int, help="step budget")
    p.add_argument("--max-tokens", type=int, help="token budget")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="wall-clock budget")
    p.add_argument("--allow-domain", action="append", default=[], metavar="DOMAIN", help="only visit these domains")
    p.add_argument("--block-domain", action="append", default=[], metavar="DOMAIN", help="never visit these domains")
    p.add_argument("--output-schema", metavar="FILE.json",
                   help="a JSON Schema the answer must match: the run ends with `data` of that shape, each value grounded in the pages it saw")
    p.add_argument("--upload-dir", metavar="FOLDER", help="the folder upload_file may take files from (default: the settings' upload folder)")
    p.set_defaults(handler=_run)


def run_params(args: argparse.Namespace) -> dict[str, Any]:
    """agent.run params from the command line; raises ValueError for a usage error."""
    models = models_from_args(args)
    budgets = {k: v for k, v in (("max_steps", args.max_steps), ("max_tokens", args.max_tokens), ("wall_clock_s", args.timeout)) if v}
    policy: dict[str, Any] = {"allow_domains": args.allow_domain, "block_domains": args.block_domain}
    if args.confirm == "approve":
        policy["destructive"] = "allow"
    uploads = {"upload_dir": str(Path(args.upload_dir).expanduser().resolve())} if getattr(args, "upload_dir", None) else {}
    schema = {"output_schema": output_schema(args.output_schema)} if getattr(args, "output_schema", None) else {}
    return {"task": args.task, "start_url": args.start_url, **models, "budgets": budgets, "policy": policy, **uploads, **schema}


def output_schema(path: str) -> dict[str, Any]:
    """The JSON Schema in a file, checked (raises ValueError naming the file and what is wrong)."""
    from waymark.host.agent.answers import SchemaProblem, check_schema

    try:
        return check_schema(json.loads(Path(path).expanduser().read_text(encoding="utf-8")))
    except OSError as exc:
        raise ValueError(f"--output-schema: cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"--output-schema: {path} is not JSON: {exc}") from None
    except SchemaProblem as exc:
        raise ValueError(f"--output-schema: {path}: {exc}") from None


class Console:
    """Prints a run's events as they stream and answers its questions."""

    def __init__(self, out: TextIO, confirm: str = "ask", interactive: bool = False, auto_note: str = "") -> None:
        self.out = out
        self.confirm = confirm
        self.interactive = interactive
        self.auto_note = auto_note
        self.controller: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def print(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def on_notify(self, name: str, data: dict[str, Any]) -> None:
        from waymark.host.agent.timeline import event_text

        if name in ("confirm", "ask_user"):
            task = asyncio.get_running_loop().create_task(self._answer(name, data))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        if name == "finished":
            return  # the caller prints the summary
        text = event_text({"event": name, **data})
        if text:
            self.print(text)

    async def _answer(self, name: str, data: dict[str, Any]) -> None:
        if name == "confirm":
            self.print(f"  ⏸ confirmation needed: {data.get('action_line', '')}\n        {data.get('reason', '')}")
            if self.confirm == "ask" and self.interactive:
                reply = await asyncio.to_thread(input, "        allow it? [y/N] ")
                answer: Any = reply.strip().lower() in ("y", "yes")
            else:
                answer = self.confirm == "approve"
                self.print(f"        {'approved' if answer else 'declined'} automatically{self.auto_note}")
        else:
            self.print(f"  ? the agent asks: {data.get('question', '')}")
            answer = await asyncio.to_thread(input, "        your answer: ") if self.interactive else None
        await self.controller.call("agent.answer", {"run_id": data["run_id"], "request_id": data["request_id"], "answer": answer})


async def call_with_console(method: str, params: dict[str, Any], console: Console, headed: bool = False) -> dict[str, Any]:
    """Launch Chromium with the extension, call `method` with the console answering, and return the summary."""
    from waymark.host.control_client import Controller

    async with Controller(headless=not headed) as controller:
        console.controller = controller
        return await controller.call(method, params, on_notify=console.on_notify)


def run_and_report(args: argparse.Namespace, method: str, params: dict[str, Any], *, prog: str,
                   usage_codes: frozenset[str], hints: dict[str, str] | None = None,
                   details: Callable[[dict[str, Any]], str] | None = None) -> int:
    """Run a task-like host call for the terminal: progress, summary (or JSON) and the exit code.

    A host error whose code is in `usage_codes` is the caller's mistake (exit 2); `hints` adds a
    line of advice after the error of that code; `details` adds lines after the summary.
    """
    from waymark.host.agent.timeline import summary_lines
    from waymark.host.control_client import HostCallError, HostNotConnected

    console = Console(sys.stderr if args.json else sys.stdout, confirm=args.confirm, interactive=sys.stdin.isatty() and not args.json)
    try:
        summary = asyncio.run(call_with_console(method, params, console, headed=args.headed))
    except HostCallError as exc:
        print(f"{prog}: {exc.code}: {exc.message}", file=sys.stderr)
        if hints and exc.code in hints:
            print(hints[exc.code], file=sys.stderr)
        return EXIT_USAGE if exc.code in usage_codes else EXIT_FAILED
    except (HostNotConnected, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{prog}: stopped", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # the browser could not start (no display for --headed, no Chromium, ...)
        print(f"{prog}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(summary))
    else:
        console.print(summary_lines(summary))
        if details is not None:
            console.print(details(summary))
        console.print(f"Trace: waymark trace show {summary.get('run_id', '')}")
    return EXIT_OK if summary.get("success") else EXIT_FAILED


#: What to do when no model is chosen, after the error that says so.
CHOOSE_MODEL = ("choose the model: --provider P --model M, --model SPEC, --planner SPEC --executor SPEC, --script FILE, "
                "or save a provider per role in the side panel's settings")


def unconfigured_roles(params: dict[str, Any]) -> str | None:
    """Why the run has no model (the first role the saved settings leave without one), when the
    command line names none: said before a browser is started for nothing."""
    from waymark.host.settings import load_settings, role_spec
    from waymark.providers.errors import ProviderNotConfigured

    if "script" in params or "planner" in params:
        return None
    settings = load_settings()
    try:
        for role in ("planner", "executor"):
            role_spec(role, settings)
    except ProviderNotConfigured as exc:
        return str(exc)
    return None


def _run(args: argparse.Namespace) -> int:
    try:
        params = run_params(args)
    except ValueError as exc:
        print(f"waymark run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    missing = unconfigured_roles(params)
    if missing:
        print(f"waymark run: provider_not_configured: {missing}\n{CHOOSE_MODEL}", file=sys.stderr)
        return EXIT_USAGE
    return run_and_report(args, "agent.run", params, prog="waymark run",
                          usage_codes=frozenset({"bad_params", "provider_not_configured"}),
                          hints={"provider_not_configured": CHOOSE_MODEL})
