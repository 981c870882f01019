"""The results of `waymark bench --out` as markdown: one table per section (the section module's
own `format_markdown`, built with the helpers here), each headed with the command that
reproduces it, the machine, the date and the commit of the run, so a table in the docs always
says which run it came from (`waymark bench --from BENCH.json --markdown FILE`)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

#: Options of the recorded command that do not change what a section measures.
_DROPPED_OPTIONS = {"--sections", "--out", "--markdown", "--from", "--section-timeout"}


def section_command(command: str, section: str) -> str:
    """The recorded `waymark bench ...` command narrowed to one section (no --out or --markdown)."""
    words = shlex.split(command) if command else ["waymark", "bench"]
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in _DROPPED_OPTIONS:
            skip = "=" not in word
            continue
        if word != "--no-progress":
            kept.append(word)
    return shlex.join([*kept, "--sections", section])


def cell(value: Any, digits: int = 1) -> str:
    """One table cell: numbers with thousands separators, nothing as a dash, pipes escaped."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def pair(stat: dict[str, Any] | None, suffix: str = "", digits: int = 1) -> str:
    """`median / p90` of a spread() dict (a dash when it was not measured)."""
    if not stat or f"median{suffix}" not in stat:
        return "–"
    return f"{cell(float(stat[f'median{suffix}']), digits)} / {cell(float(stat[f'p90{suffix}']), digits)}"


def ratio(value: Any) -> str:
    """A ratio of ours to the peer's, as `0.31×`."""
    return "–" if value is None else f"{value:.2f}×"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table; short rows are padded with dashes."""
    width = len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join((row + ["–"] * width)[:width]) + " |" for row in rows]
    return "\n".join(lines)


def _provenance(results: dict[str, Any], name: str, section: dict[str, Any]) -> list[str]:
    machine = f"{results.get('cores', '?')} cores, {results.get('cpu_model', 'unknown CPU')}"
    if results.get("load_average_1m") is not None:
        machine += f", load average {results['load_average_1m']:g} at the start"
    bound = section.get("bound") or {}
    took = f"the section took {section.get('section_seconds', '?')} s"
    if bound.get("bound_s"):
        took += f" of its {bound['bound_s']:g} s bound"
    lines = [f"`{section_command(results.get('command', ''), name)}`", "",
             f"Machine: {machine}. Date: {results.get('started_at', 'unknown')}. Commit: `{results.get('git_sha', 'unknown')}`; {took}."]
    if bound.get("cut"):
        covered = "; ".join(f"{p['part']} {p['covered']} of {p['of']} {p['unit']}" for p in bound.get("parts", []))
        lines += ["", f"**Cut by its bound**: measured {covered}."]
    return lines


def markdown_tables(results: dict[str, Any], render: Callable[[str, dict[str, Any]], str]) -> str:
    """Every section of a `waymark bench --out` result as a markdown table headed by where it
    came from; `render(name, result)` is the section's own table (its module's format_markdown)."""
    out: list[str] = []
    for name, section in results["sections"].items():
        out += [f"### {name}", ""] + _provenance(results, name, section) + [""]
        if section.get("error"):
            out += [f"The section failed: {section['error']}", ""]
            continue
        out.append(render(name, section))
        errors = section.get("errors") or {}
        if errors:
            out += ["", f"{len(errors)} page(s) failed: " + "; ".join(f"{k}: {v}" for k, v in list(errors.items())[:5])]
        out.append("")
    return "\n".join(out)
