"""`waymark trace show RUN` prints a run's timeline; `waymark trace html RUN` writes one
self-contained HTML page of it, overlay screenshots included."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from waymark.host.agent.trace_page import render_html


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="show an agent run's trace, or write it as an HTML page")
    actions = p.add_subparsers(dest="trace_command", metavar="ACTION")
    show = actions.add_parser("show", help="print the step timeline of a run")
    show.add_argument("run", help="run id, a unique prefix of it, `latest`, or the run's folder")
    show.add_argument("--json", action="store_true", help="print the raw events, one JSON object per line")
    show.set_defaults(handler=_show)
    page = actions.add_parser("html", help="write one self-contained HTML page of a run")
    page.add_argument("run", help="run id, a unique prefix of it, `latest`, or the run's folder")
    page.add_argument("-o", "--out", help="output file (default: trace.html in the run's folder)")
    page.set_defaults(handler=_html)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def _load(run: str) -> tuple[Path, list[dict[str, Any]], dict[str, Any] | None] | None:
    from waymark.host.agent.trace import TraceNotFound, find_run, read_trace

    try:
        folder = find_run(run)
    except TraceNotFound as exc:
        print(f"waymark trace: {exc}", file=sys.stderr)
        return None
    events, summary = read_trace(folder)
    return folder, events, summary


def _show(args: argparse.Namespace) -> int:
    from waymark.host.agent.timeline import event_text

    loaded = _load(args.run)
    if loaded is None:
        return 2
    folder, events, summary = loaded
    if args.json:
        for event in events:
            print(json.dumps(event, ensure_ascii=False))
        return 0
    print(f"Run {folder.name}")
    for event in events:
        text = event_text(event)
        if text:
            print(text)
    if summary is None:
        print("(the run has not finished)")
    return 0


def _html(args: argparse.Namespace) -> int:
    loaded = _load(args.run)
    if loaded is None:
        return 2
    folder, events, summary = loaded
    out = Path(args.out) if args.out else folder / "trace.html"
    out.write_text(render_html(folder, events, summary), encoding="utf-8")
    out.chmod(0o600)  # screenshots of the user's pages: as private as the trace itself
    print(f"wrote {out}")
    return 0
