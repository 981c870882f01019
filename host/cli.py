"""The `waymark` command. Each subcommand is one small module in host/commands/ (modules whose
name starts with an underscore are helpers the subcommands share)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import host.commands
from host import __version__


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand module's `register(subparsers)` applied."""
    parser = argparse.ArgumentParser(prog="waymark", description="Waymark: an AI agent that lives in your own Chrome.")
    parser.add_argument("--version", action="version", version=f"waymark {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(host.commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue  # shared helpers of the subcommands, not subcommands
        module = importlib.import_module(f"host.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for a usage error)."""
    argv = sys.argv[1:] if argv is None else argv
    # Chrome starts the launcher with the caller's origin as an argument; `host` must ignore it.
    if argv[:1] == ["host"]:
        from host.server import run_host

        return run_host()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    return int(args.handler(args) or 0)
