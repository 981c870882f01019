"""`waymark bench`: speed and size, measured side by side with a peer in one run.

Each section is a module in eval/bench/ with `async run(options) -> dict` and
`format_table(result) -> str`; this command runs the chosen ones in order, each within its own
time bound (eval/bench/bound.py), prints each table as it finishes (marked when the bound cut
it), shows progress on a terminal, and writes everything to one JSON file with the machine,
the date, the commit and the command that reproduces it. `--from` renders such a file as
markdown tables instead of measuring.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from waymark.eval.bench.bound import Bound, SectionCut, describe_cut
from waymark.eval.bench.markdown import markdown_tables
from waymark.eval.progress import shown_on
from waymark.eval.report import git_sha

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
#: Seconds each section may take by default before what it measured so far is reported as cut
#: and the next section runs: room for a 200-page corpus on a busy 2-core machine.
DEFAULT_BOUNDS_S: dict[str, float] = {
    "snapshot": 1200.0, "prompt": 900.0, "native": 300.0, "host": 300.0, "dispatch": 600.0, "frames": 300.0,
    "memory": 600.0, "mcp": 600.0,
}
#: Past its bound a section has this long to close its browser and summarise; then it is
#: abandoned and reported as failed (a stuck call that ignored the bound).
GRACE_S = 120.0


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
    p.add_argument("--section-timeout", metavar="SECONDS|NAME=SECONDS,...",
                   help="most a whole section may take; past it the section reports what it measured, marked as cut, and the next "
                        "one runs (one number for every section, or per section, e.g. memory=120,snapshot=600; defaults: "
                        + ", ".join(f"{k} {v:g}" for k, v in DEFAULT_BOUNDS_S.items()) + ")")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr (shown only on a terminal anyway)")
    p.add_argument("--markdown", metavar="FILE|-", help="also write the results as markdown tables, one per section, to FILE (- for stdout)")
    p.add_argument("--from", dest="from_json", type=Path, metavar="BENCH.json",
                   help="measure nothing: render the results of an earlier `waymark bench --out` file (with --markdown)")
    p.set_defaults(handler=_run)


def parse_bounds(text: str | None, names: list[str]) -> dict[str, float]:
    """Each section's bound in seconds from --section-timeout: one number for all, or NAME=SECONDS
    pairs over the defaults. Raises ValueError naming what it could not read."""
    bounds = {name: DEFAULT_BOUNDS_S[name] for name in names}
    if not text or not text.strip():
        return bounds
    if "=" not in text:
        return {name: _seconds(text) for name in names}
    for pair in text.split(","):
        name, _, value = pair.partition("=")
        name = name.strip()
        if name not in DEFAULT_BOUNDS_S:
            raise ValueError(f"--section-timeout names an unknown section {name!r}; choose from {', '.join(SECTIONS)}")
        if name in bounds:
            bounds[name] = _seconds(value)
    return bounds


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--section-timeout: {text.strip()!r} is not a number of seconds") from None
    if not value > 0:
        raise ValueError(f"--section-timeout: {value:g} s leaves a section no time")
    return value


def cpu_model() -> str:
    """The processor's model name as the kernel reports it (platform.processor() elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_facts(argv: list[str]) -> dict[str, Any]:
    """What a table made from this run must say: the commit, the machine, the date, the command."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "git_sha": git_sha() or "unknown",
        "python": sys.version.split()[0],
        "machine": platform.platform(terse=True),
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "load_average_1m": round(load, 2) if load is not None else None,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": shlex.join(["waymark", "bench", *argv]),
    }


async def run_sections(names: list[str], options: dict[str, Any], bounds: dict[str, float] | None = None,
                       progress: bool = False, stream: TextIO | None = None, facts: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the named sections in order, each within its bound, printing each table as it
    completes; a section cut by its bound reports what it measured and the next one runs."""
    results: dict[str, Any] = {**(facts if facts is not None else run_facts([])), "sections": {}}
    for name in names:
        module = importlib.import_module(SECTIONS[name])
        seconds = (bounds or {}).get(name, DEFAULT_BOUNDS_S.get(name, 600.0))
        bound = Bound(name, seconds, progress, stream)
        try:
            result = await asyncio.wait_for(module.run({**options, "bound": bound}), seconds + GRACE_S)
        except Exception as exc:  # one broken section must not sink the others: it is reported
            if isinstance(exc, TimeoutError):
                kind = f"no result within its bound of {seconds:g} s and {GRACE_S:g} s of grace"
            elif isinstance(exc, SectionCut):
                kind = f"its bound of {seconds:g} s ran out before its first measurement was complete"
            else:
                kind = f"{type(exc).__name__}: {str(exc)[:300]}"
            result = {"error": kind}
            bound.close()
            print(f"{name}: failed: {kind}", flush=True)
            result["bound"] = bound.report()
        else:
            result["bound"] = bound.report()
            bound.close()
            print(module.format_table(result), flush=True)
        cut = describe_cut(result["bound"])
        if cut:
            print(cut, flush=True)
        result["section_seconds"] = round(bound.elapsed(), 1)
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
    if args.from_json:
        return _render(args.from_json, args.markdown)
    names = [n.strip() for n in args.sections.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    try:
        bounds = parse_bounds(args.section_timeout, names)
    except ValueError as exc:
        print(f"waymark bench: {exc}", file=sys.stderr)
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
    progress = shown_on(sys.stderr, disabled=args.no_progress)
    results = asyncio.run(run_sections(names, options, bounds, progress, sys.stderr, run_facts(sys.argv[2:])))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    if args.markdown:
        _write(args.markdown, markdown_tables(results, section_markdown))
    problems = failures(results)
    if problems:
        print(f"{len(problems)} failure(s):\n  " + "\n  ".join(problems[:20]), file=sys.stderr)
        return 1
    return 0


def section_markdown(name: str, result: dict[str, Any]) -> str:
    """A section's result as its module's markdown table."""
    return str(importlib.import_module(SECTIONS[name]).format_markdown(result))


def _write(target: str, text: str) -> None:
    if target == "-":
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")
        print(f"wrote {target}")


def _render(source: Path, target: str | None) -> int:
    """`--from BENCH.json`: the markdown tables of an earlier run, measuring nothing."""
    if not target:
        print("waymark bench: --from renders an earlier run: give --markdown FILE (or - for stdout)", file=sys.stderr)
        return 2
    try:
        results = json.loads(source.read_text(encoding="utf-8"))
        text = markdown_tables(results, section_markdown)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"waymark bench: cannot render {source}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    _write(target, text)
    return 0
