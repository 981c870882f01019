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
    "snapshot": "waymark.eval.bench.snapshot",
    "prompt": "waymark.eval.bench.prompt",
    "native": "waymark.eval.bench.native",
    "host": "waymark.eval.bench.host_overhead",
    "dispatch": "waymark.eval.bench.dispatch",
    "frames": "waymark.eval.bench.frames",
    "memory": "waymark.eval.bench.memory",
    "mcp": "waymark.eval.bench.mcp",
}

DEFAULT_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "pages"
DEFAULT_TOKENIZER = DEFAULT_CORPUS.parent / "tokenizer" / "claude-legacy-tokenizer.json"
#: A whole section may take this long before it is reported as failed and the next one runs.
SECTION_TIMEOUT_S = 3600.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="measure snapshot, prompt, native-messaging, host, dispatch and memory costs beside a peer")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of NAME/index.html pages for the snapshot section")
    p.add_argument("--out", type=Path, help="write the results as JSON to this file")
    p.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of: {', '.join(SECTIONS)}")
    p.add_argument("--rounds", type=int, default=20, help="repetitions per measurement where a section repeats")
    p.add_argument("--limit", type=int, default=0, help="snapshot section: only the first N corpus pages (0 = all)")
    p.add_argument("--tokenizer", type=Path, default=DEFAULT_TOKENIZER,
                   help="tokenizer.json that counts tokens in the snapshot section (default: the shared corpus's)")
    p.add_argument("--page-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="most one page may take in a section; past it the page is an error row and the section goes on")
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
        try:
            result = await asyncio.wait_for(module.run(options), options.get("section_timeout", SECTION_TIMEOUT_S))
        except Exception as exc:  # one broken section must not sink the others: it is reported
            kind = "timed out" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {str(exc)[:300]}"
            result = {"error": kind}
            print(f"{name}: failed: {kind}", flush=True)
        else:
            print(module.format_table(result), flush=True)
        result["section_seconds"] = round(time.perf_counter() - started, 1)
        results["sections"][name] = result
        print(flush=True)
    return results


def failures(results: dict[str, Any]) -> list[str]:
    """Every section that failed and every page a section reported as an error, one line each."""
    lines = []
    for name, section in results["sections"].items():
        if section.get("error"):
            lines.append(f"{name}: {section['error']}")
        for page, error in (section.get("errors") or {}).items():
            lines.append(f"{name}: {page}: {error}")
    return lines


def _run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.sections.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    if {"snapshot", "prompt", "host", "memory"} & set(names) and not args.corpus.is_dir():
        print(f"corpus folder not found: {args.corpus} (pass --corpus DIR, a folder of NAME/index.html pages)", file=sys.stderr)
        return 2
    if {"snapshot", "prompt"} & set(names) and not args.tokenizer.is_file():
        print(f"tokenizer not found: {args.tokenizer} (the snapshot section counts tokens with it; pass --tokenizer FILE.json)",
              file=sys.stderr)
        return 2
    options = {"corpus": args.corpus, "tokenizer": args.tokenizer, "rounds": max(1, args.rounds), "limit": max(0, args.limit),
               "page_timeout": max(1.0, args.page_timeout)}
    results = asyncio.run(run_sections(names, options))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    problems = failures(results)
    if problems:
        print(f"{len(problems)} failure(s):\n  " + "\n  ".join(problems[:20]), file=sys.stderr)
        return 1
    return 0
