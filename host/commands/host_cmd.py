"""`waymark host`: the native-messaging host (what Chrome starts; not for terminals)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("host", help="run the native-messaging host (started by Chrome through the registered launcher)")
    p.add_argument("origin", nargs="*", help=argparse.SUPPRESS)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from waymark.host.server import run_host

    return run_host()
