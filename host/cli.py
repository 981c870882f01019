"""The `waymark` command. Each subcommand is one small module in host/commands/ (modules whose
name starts with an underscore are helpers the subcommands share); other packages (the eval
harness) add theirs through the `waymark.commands` entry points, so the product imports none
of them."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from importlib.metadata import entry_points
from typing import Callable

import waymark.host.commands
from waymark.host.core import __version__
from waymark.host.launch import LaunchError

#: Commands for those who develop or measure Waymark (or that Chrome starts): they work as ever,
#: but the help lists them on one line apart, so a user sees only the commands meant for them.
DEVELOPER_COMMANDS = ("bench", "eval", "schema", "host")
START_HERE = """start here:
  waymark doctor      check the install
  waymark demo        watch the agent do a task on a demo shop (no key needed)
  waymark run "TASK" --start-url URL --model PROVIDER:MODEL

for developers: """


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand module's `register(subparsers)` applied."""
    parser = argparse.ArgumentParser(prog="waymark", description="Waymark: an AI agent that lives in your own Chrome.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"waymark {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for _, register in sorted(_registrars().items()):
        register(sub)
    developer = [name for name in DEVELOPER_COMMANDS if name in sub.choices]
    sub._choices_actions = [a for a in sub._choices_actions if a.dest not in developer]
    parser.epilog = START_HERE + ", ".join(f"waymark {name}" for name in developer if name != "host") + \
        ("; waymark host is the native-messaging host Chrome starts" if "host" in developer else "")
    return parser


def _registrars() -> dict[str, Callable[[argparse._SubParsersAction], None]]:
    """Subcommand name -> its `register(subparsers)`: the product's own, then those other
    installed packages declare under the `waymark.commands` entry point group."""
    found: dict[str, Callable[[argparse._SubParsersAction], None]] = {}
    for info in pkgutil.iter_modules(waymark.host.commands.__path__):
        if not info.name.startswith("_"):  # shared helpers of the subcommands, not subcommands
            found[info.name] = importlib.import_module(f"waymark.host.commands.{info.name}").register
    for point in entry_points(group="waymark.commands"):
        found.setdefault(point.name, point.load())
    return found


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for a usage error)."""
    argv = sys.argv[1:] if argv is None else argv
    # Chrome starts the launcher with the caller's origin as an argument; `host` must ignore it.
    if argv[:1] == ["host"]:
        from waymark.host.server import run_host

        return run_host()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except LaunchError as exc:
        # A situation the README describes (no display, no browser): one line, never a traceback.
        print(f"waymark: {exc}", file=sys.stderr)
        return 1
