#!/usr/bin/env python3
"""Regenerate the measured tables of docs/ from real output, so a number in the docs always
names the run it came from.

    .venv/bin/python tools/docs_tables.py --bench bench.json --bench-command "waymark bench --rounds 5" \
        --eval smoke.jsonl --eval sites.jsonl

A marked region is replaced whole; everything outside the markers is left as written:

    <!-- generated:bench:snapshot -->   one bench section (docs/performance.md)
    <!-- generated:eval -->             one row per eval report (docs/evaluation.md)
    <!-- generated:summary:bench -->    README's headline figures of the bench run
    <!-- generated:summary:eval -->     README's headline figures of the eval reports
    <!-- /generated -->

A bench section's table is the section's own `format_markdown(result)` when its module has one,
else its `format_table(result)` (what `waymark bench` prints) in a text block: the section module
stays the one authority on how its numbers read. Each table is headed by the command that
reproduces it, the machine, the date and the commit of the run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
END = "<!-- /generated -->"
_REGION = re.compile(r"<!-- generated:(?P<name>[a-z0-9:_-]+) -->\n(?P<body>.*?)" + re.escape(END), re.DOTALL)


class DocsTablesError(ValueError):
    """Input the generator cannot use: the message names the file and what is wrong."""


def regions(text: str) -> list[str]:
    """The names of the generated regions in a document, in order; raises on a region left open."""
    names = [m.group("name") for m in _REGION.finditer(text)]
    opened = len(re.findall(r"<!-- generated:[a-z0-9:_-]+ -->", text))
    if opened != len(names) or text.count(END) != len(names):
        raise DocsTablesError(f"{opened} generated regions opened, {len(names)} closed: every '<!-- generated:NAME -->' needs its '{END}'")
    return names


def replace_regions(text: str, render: Callable[[str], str | None]) -> str:
    """The document with each region whose name `render` knows (non-None) replaced by its output."""
    regions(text)

    def one(match: re.Match[str]) -> str:
        body = render(match.group("name"))
        if body is None:
            return match.group(0)
        return f"<!-- generated:{match.group('name')} -->\n{body.rstrip()}\n{END}"

    return _REGION.sub(one, text)


def section_command(command: str, name: str) -> str:
    """The bench command narrowed to one section: its --sections and --out dropped, `--sections NAME` added."""
    words = shlex.split(command)
    out: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word in ("--sections", "--out"):
            at += 2
            continue
        if not word.startswith(("--sections=", "--out=")):
            out.append(word)
        at += 1
    return shlex.join([*out, "--sections", name])


def bench_section(results: dict[str, Any], name: str, command: str, note: str = "") -> str | None:
    """One bench section as Markdown: where it came from, then its table; None when the results
    do not hold the section (a run of some sections leaves the others' tables as they are)."""
    from waymark.eval.commands.bench import SECTIONS

    if name not in SECTIONS:
        raise DocsTablesError(f"unknown bench section {name!r}; known: {', '.join(SECTIONS)}")
    result = (results.get("sections") or {}).get(name)
    if result is None:
        return None
    header = (f"`{section_command(command, name)}` · {results.get('machine', 'unknown machine')}, "
              f"Python {results.get('python', '?')} · {results.get('started_at', 'unknown date')} · "
              f"commit `{results.get('git_sha', 'unknown')}` · the section took {result.get('section_seconds', '?')} s"
              + (f" · {note}" if note else ""))
    if result.get("error"):
        return f"{header}\n\nThe section failed: {result['error']}"
    module = importlib.import_module(SECTIONS[name])
    markdown = getattr(module, "format_markdown", None)
    try:
        table = markdown(result) if callable(markdown) else "```text\n" + module.format_table(result).rstrip() + "\n```"
    except (KeyError, TypeError, IndexError) as exc:
        raise DocsTablesError(f"the bench results of section {name!r} do not have the shape its table reads ({type(exc).__name__}: {exc})") from exc
    return f"{header}\n\n{table}"


def _reproduce(rows: list[Any], path: Path) -> str:
    first = rows[0]
    if first.provider == "scripted":
        models = "--provider scripted"
    elif first.planner:
        models = f"--planner {shlex.quote(first.planner)} --executor {shlex.quote(f'{first.provider}:{first.model}')}"
    else:
        models = f"--model {shlex.quote(f'{first.provider}:{first.model}')}"
    return f"waymark eval run --suite {first.suite or '?'} {models} --out {path.name}"


def _report_rows(path: Path) -> list[Any]:
    """The task rows of an eval report; an unreadable or empty report is a DocsTablesError."""
    from waymark.eval.report import ReportError, read_rows

    try:
        rows = read_rows(path)
    except ReportError as exc:
        raise DocsTablesError(str(exc)) from exc
    if not rows:
        raise DocsTablesError(f"{path}: no task rows")
    return rows


def eval_table(paths: list[Path]) -> str:
    """One row per eval report: what ran, on which commit and when, and how it went."""
    from waymark.eval.report import summarize

    lines = [
        "| command | tasks | pass | fail | error | median latency | tokens per task | commit | date |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    notes: list[str] = []
    for path in paths:
        rows = _report_rows(path)
        s = summarize(rows)
        shas = sorted({r.git_sha for r in rows if r.git_sha})
        dates = sorted(r.timestamp[:10] for r in rows if r.timestamp)
        lines.append(
            f"| `{_reproduce(rows, path)}` | {s.tasks} | {s.passed} ({s.pass_rate:.0%}) | {s.failed} | {s.errors} "
            f"| {s.latency_median_ms / 1000:.1f} s | {s.tokens_per_task:,.0f} | `{', '.join(shas) or 'unknown'}` "
            f"| {dates[0] if dates else 'unknown'} |"
        )
        for row in rows:
            if row.verdict != "pass":
                notes.append(f"- `{row.task}` {row.verdict}: {row.reason[:200]}")
    return "\n".join(lines + ([""] + notes if notes else []))


def _figure(results: dict[str, Any], *path: str) -> Any:
    """A value of the bench results by its keys; a missing one is an error naming it."""
    value: Any = results.get("sections")
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise DocsTablesError(f"the bench results have no {'.'.join(path)} (the summary needs every section: run the whole bench)")
        value = value[key]
    return value


def bench_summary(results: dict[str, Any], note: str = "") -> str:
    """README's rows of headline figures from one bench run, each linking to its section's table."""

    def f(*path: str) -> Any:
        return _figure(results, *path)

    perf = "docs/performance.md"
    rows = [
        (f"snapshot size, median characters ([table]({perf}#snapshot))",
         f"{f('snapshot', 'ours', 'chars', 'median'):,.0f}: {f('snapshot', 'ratio_median', 'chars'):.3f} of Playwright's AI snapshot"
         f" ({f('snapshot', 'peer', 'chars', 'median'):,.0f})"),
        ("snapshot, median tokens", f"{f('snapshot', 'ours', 'tokens', 'median'):,.0f} (Playwright's: {f('snapshot', 'peer', 'tokens', 'median'):,.0f})"),
        ("visible interactive elements listed (recall)", f"{f('snapshot', 'recall'):.2%} (worst page {f('snapshot', 'recall_page_min'):.2%})"),
        ("snapshot time, median / p90", f"{f('snapshot', 'ours', 'ms', 'median'):,.0f} / {f('snapshot', 'ours', 'ms', 'p90'):,.0f} ms"
         f" (Playwright's: {f('snapshot', 'peer', 'ms', 'median'):,.0f} / {f('snapshot', 'peer', 'ms', 'p90'):,.0f} ms)"),
        (f"executor prompt, median tokens ([table]({perf}#prompt))", f"{f('prompt', 'tokens', 'executor_native', 'median'):,.0f} with native tools"),
        (f"click to settled snapshot, median ([table]({perf}#dispatch))", f"{f('dispatch', 'click', 'click_to_settled_snapshot', 'median_ms'):,.0f} ms"),
    ]
    lines = ["| measure | result |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)]
    # README names no commit or date: the tables it links to say which run this is.
    lines.append(f"\nFrom the `waymark bench` run the tables of [docs/performance.md]({perf}) come from" + (f" ({note})." if note else "."))
    return "\n".join(lines)


def eval_summary(paths: list[Path]) -> str:
    """README's rows of pass counts, one per eval report."""
    from waymark.eval.report import summarize

    lines = ["| suite | model | passed |", "|---|---|---|"]
    for path in paths:
        rows = _report_rows(path)
        s = summarize(rows)
        lines.append(f"| `{rows[0].suite}` ([report](docs/evaluation.md#scripted-runs)) | {rows[0].provider}:{rows[0].model} "
                     f"| {s.passed} of {s.tasks} |")
    return "\n".join(lines)


def render_files(files: list[Path], bench: dict[str, Any] | None, bench_command: str, evals: list[Path], note: str = "") -> list[Path]:
    """Rewrite the generated regions of these Markdown files; the files changed."""

    def render(name: str) -> str | None:
        kind, _, section = name.partition(":")
        if name == "summary:bench":
            return bench_summary(bench, note) if bench is not None else None
        if name == "summary:eval":
            return eval_summary(evals) if evals else None
        if kind not in ("bench", "eval"):
            raise DocsTablesError(f"unknown generated region {name!r}: 'bench:SECTION', 'eval', 'summary:bench' or 'summary:eval'")
        if kind == "bench" and bench is not None:
            return bench_section(bench, section, bench_command, note)
        if kind == "eval" and evals:
            return eval_table(evals)
        return None

    # Every file is rendered before any is written: bad input changes nothing.
    updates = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            new = replace_regions(text, render)
        except DocsTablesError as exc:
            raise DocsTablesError(f"{path}: {exc}") from exc
        if new != text:
            updates[path] = new
    for path, new in updates.items():
        path.write_text(new, encoding="utf-8")
    return list(updates)


def render_docs(docs: Path, bench: dict[str, Any] | None, bench_command: str, evals: list[Path], note: str = "",
                readme: Path | None = None) -> list[Path]:
    """Rewrite the generated regions of README (if given) and every Markdown file under `docs`."""
    return render_files([*([readme] if readme else []), *sorted(docs.glob("*.md"))], bench, bench_command, evals, note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate docs/ tables from a `waymark bench --out` JSON and eval JSONL reports.")
    parser.add_argument("--bench", type=Path, help="the JSON `waymark bench --out FILE` wrote")
    parser.add_argument("--bench-command", default="",
                        help="the command that wrote it (default: the one the JSON records, else `waymark bench`)")
    parser.add_argument("--eval", type=Path, action="append", default=[], help="an eval JSONL report (repeat for several)")
    parser.add_argument("--note", default="", help="what the JSON cannot say about the machine (cores, load), added to each bench table's header")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs", help="the folder of Markdown files to update")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md", help="the README whose summary regions to update")
    args = parser.parse_args(argv)
    if not args.bench and not args.eval:
        parser.error("give --bench FILE, --eval FILE, or both")
    try:
        bench = None
        if args.bench:
            try:
                bench = json.loads(args.bench.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise DocsTablesError(f"{args.bench}: {exc}") from exc
        command = args.bench_command or (bench or {}).get("command") or "waymark bench"
        changed = render_docs(args.docs, bench, command, args.eval, args.note, args.readme)
    except DocsTablesError as exc:
        print(f"docs_tables: {exc}", file=sys.stderr)
        return 2
    for path in changed:
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
