"""`waymark bench`: speed and size, measured side by side with a peer in one run.

Each section is a module in eval/bench/ with `async run(options) -> dict` and
`format_table(result) -> str`; this command runs the chosen ones in order, prints each
table as it finishes and writes everything to one JSON file.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: Section name -> module under eval.bench, in the order they run.
SECTIONS: dict[str, str] = {
    "snapshot": "eval.bench.snapshot",
    "native": "eval.bench.native",
    "host": "eval.bench.host_overhead",
    "dispatch": "eval.bench.dispatch",
    "memory": "eval.bench.memory",
}

DEFAULT_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "pages"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure snapshot, native-messaging, host, dispatch and memory costs beside a peer")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of NAME/index.html pages for the snapshot section")
    p.add_argument("--out", type=Path, help="write the results as JSON to this file")
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of: {', '.join(SECTIONS)}")
    p.add_argument("--rounds", type=int, default=20, help="repetitions per measurement where a section repeats")
    p.add_argument("--limit", type=int, default=0, help="snapshot section: only the first N corpus pages (0 = all)")
    p.set_defaults(handler=_run)


def _git_sha() -> str:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10,
                              cwd=Path(__file__).resolve().parents[2])
        return done.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


async def run_sections(names: list[str], options: dict[str, Any]) -> dict[str, Any]:
    """Run the named sections in order, printing each table as it completes."""
    results: dict[str, Any] = {
        "git_sha": _git_sha(),
        "python": sys.version.split()[0],
        "machine": platform.platform(terse=True),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sections": {},
    }
    for name in names:
        module = importlib.import_module(SECTIONS[name])
        started = time.perf_counter()
        result = await module.run(options)
        result["section_seconds"] = round(time.perf_counter() - started, 1)
        results["sections"][name] = result
        print(module.format_table(result), flush=True)
        print(flush=True)
    return results


def _run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.sections.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    if "snapshot" in names and not args.corpus.is_dir():
        print(f"corpus folder not found: {args.corpus} (pass --corpus DIR)", file=sys.stderr)
        return 2
    options = {"corpus": args.corpus, "rounds": max(1, args.rounds), "limit": max(0, args.limit)}
    results = asyncio.run(run_sections(names, options))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0
