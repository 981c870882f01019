"""The results of `waymark bench --out` as markdown: one table per section, each headed with the
command that reproduces it, the machine, the date and the commit of the run, so a table in the
docs always says which run it came from (`waymark bench --from BENCH.json --markdown FILE`)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

Table = tuple[list[str], list[list[str]]]

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


def _cell(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def _pair(stat: dict[str, Any] | None, suffix: str = "", digits: int = 1) -> str:
    """`median / p90` of a spread() dict."""
    if not stat or f"median{suffix}" not in stat:
        return "–"
    return f"{_cell(float(stat[f'median{suffix}']), digits)} / {_cell(float(stat[f'p90{suffix}']), digits)}"


def _ratio(value: Any) -> str:
    return "–" if value is None else f"{value:.2f}×"


def _snapshot(r: dict[str, Any]) -> Table:
    if not r.get("pages"):
        return (["snapshot"], [["no page measured"]])
    o, p, ratio = r["ours"], r["peer"], r["ratio_median"]
    rows = [
        ["snapshot ms, cold (median / p90)", _pair(o["ms"]), _pair(p["ms"]), _ratio(ratio["ms"])],
        ["snapshot ms, warm (median / p90)", _pair(r.get("warm_ms")), "–", "–"],
        ["characters (median / p90)", _pair(o["chars"], digits=0), _pair(p["chars"], digits=0), _ratio(ratio["chars"])],
        ["tokens (median / p90)", _pair(o["tokens"], digits=0), _pair(p["tokens"], digits=0), _ratio(ratio["tokens"])],
        ["recall of visible interactive elements", f"{r['recall']:.2%} ({r['recalled_elements']:,}/{r['baseline_elements']:,}); "
         f"page min {r['recall_page_min']:.2%} ({r['recall_worst_page']})", "–", "–"],
    ]
    if r.get("precision") is not None:
        rows.append(["precision (listed elements the independent count has)",
                     f"{r['precision']:.2%}; page min {r['precision_page_min']:.2%} ({r['precision_worst_page']})", "–", "–"])
    return ([f"{r['pages']} corpus pages", "Waymark", "Playwright `aria_snapshot(mode='ai')`", "ratio of medians"], rows)


def _prompt(r: dict[str, Any]) -> Table:
    labels = {"executor_native": "executor, native tools", "executor_text": "executor, JSON in text", "planner": "planner"}
    rows = [[label, _pair(r["tokens"].get(kind), digits=0)] for kind, label in labels.items() if kind in r["tokens"]]
    return ([f"prompt tokens per decision, {r['pages']} corpus pages", "median / p90"], rows)


def _native(r: dict[str, Any]) -> Table:
    rows = [[f"browser → host, {row['size']} ({row['rounds']} rounds)", _pair(row["waymark"], "_ms", 2), _pair(row["peer_echo"], "_ms", 2),
             _ratio(row["ratio_median"])] for row in r["browser_to_host"]]
    h = r.get("host_to_browser")
    if h:
        rows.append([f"host → browser, {h['bytes'] // 2**20} MB in chunks", _pair(h, "_ms", 1), "–", "–"])
    return (["native messaging round trip, ms", "Waymark host (median / p90)", "echo host (median / p90)", "ratio"], rows)


def _host(r: dict[str, Any]) -> Table:
    if not r.get("steps"):
        return (["host overhead"], [["no step measured"]])
    rows = [["total (host)" if phase == "total" else phase, _pair(r["phases"][phase], "_us"), _pair(r["wall"][phase], "_us")]
            for phase in r["phases"]]
    rows.append(["model (scripted, excluded)", _pair(r["model_excluded"], "_us"), "–"])
    rows.append(["parse from JSON text instead", _pair(r["parse_json_text"], "_us"), "–"])
    rec = r["recorded"]
    return ([f"µs per agent step, {r['steps']} steps over a replay of {rec['page']} ({rec['elements']} elements)", "CPU (median / p90)",
             "wall (median / p90)"], rows)


def _dispatch(r: dict[str, Any]) -> Table:
    rows = []
    c = r.get("click")
    if c:
        rows += [["click → settled snapshot", _pair(c["click_to_settled_snapshot"], "_ms")],
                 ["of which settle", _pair(c["settle"], "_ms")],
                 ["of which snapshot (in the browser)", _pair(c["snapshot_in_browser"], "_ms")],
                 ["click without a snapshot", _pair(c["click_without_snapshot"], "_ms")],
                 ["first click (attaches the debugger)", _cell(c["first_click_ms"])],
                 ["clicks landed", f"{c['clicks_landed']}/{c['clicks_sent']}"]]
    sc = r.get("scroll_into_view")
    if sc:
        rows.append(["scroll-into-view on / off: targets clicked",
                     f"{sc['on']['landed']}/{sc['on']['targets']} / {sc['off']['landed']}/{sc['off']['targets']}"])
    for row in (r.get("settle") or {}).get("rows", []):
        on, off = row["on"], row["off"]
        rows.append([f"effect after {row['effect']}: seen with settle / without",
                     f"{on['effect_in_snapshot']}/{on['rounds']} / {off['effect_in_snapshot']}/{off['rounds']}"])
    stale = r.get("stale_ref_inline_snapshot")
    if stale:
        rows.append(["stale ref: inline snapshot / separate round trip", f"{_pair(stale['inline'], '_ms')} / {_pair(stale['without'], '_ms')}"])
    for label, row in (r.get("pointer_actions") or {}).items():
        rows.append([f"pointer: {label}", _pair(row, "_ms") + (f" ({row['failed']} failed)" if row.get("failed") else "")])
    return (["dispatch through the real host and extension", "ms (median / p90) or count"], rows)


def _frames(r: dict[str, Any]) -> Table:
    if not r.get("rounds"):
        return (["frames"], [["no load measured"]])
    rows = [["cold snapshot (first after load)", _pair(r["cold"], "_ms"), _ratio(r["ratio_cold_median"])],
            ["warm snapshot (unchanged page)", _pair(r["warm"], "_ms"), "–"],
            ["Playwright `aria_snapshot(mode='ai')`", _pair(r["peer"], "_ms"), "1.00×"]]
    return ([f"frame-heavy page: {r['frames']} frames, {r['elements']} elements, {r['rounds']} loads", "ms (median / p90)", "vs Playwright"], rows)


def _memory(r: dict[str, Any]) -> Table:
    rows = []
    h = r["host"]
    if h.get("runs"):
        rows += [[f"host RSS during {h['steps']} scripted agent steps (median)", f"{h['rss_during_median_kb'] / 1024:.1f} MB"],
                 ["host peak RSS (VmHWM)", f"{h['peak_rss_kb'] / 1024:.1f} MB"]]
    c = r["content"]
    for row in c["rows"]:
        label = "body replaced before each snapshot" if row["rerender"] else "static page"
        rows.append([f"{c['page']}, {label}: page heap growth over {row['snapshots']} snapshots",
                     f"{row['heap_growth_bytes'] / 2**20:+.2f} MB (from {row['heap_first_bytes'] / 2**20:.1f} MB)"])
        rows.append([f"{c['page']}, {label}: ref registry first / last", f"{row['registry_first']:,} / {row['registry_last']:,}"])
    return (["memory", "measured"], rows)


def _mcp(r: dict[str, Any]) -> Table:
    s = r["snapshot"]
    rows = [["tools listed (tokens of the whole list)", f"{r['tools']} ({r['tool_list_tokens']:,} tokens)", "–"],
            ["`browser_click` → result and settled snapshot, ms", _pair(r["click_with_snapshot"], "_ms"), "–"],
            ["the same click through the control socket, ms", _pair(r["click_through_control_socket"], "_ms"), "–"],
            ["a click's answer, tokens (only what changed / whole snapshot)", f"{r['answer_tokens']:,} / {r['whole_snapshot_tokens']:,}", "–"],
            [f"snapshot answer tokens, median of {s['pages']} corpus pages", _cell(s["ours_median"], 0), _cell(s["peer_median"], 0)]]
    return (["`waymark mcp --launch` through the MCP SDK", "Waymark", "Playwright `aria_snapshot(mode='ai')`"], rows)


RENDERERS: dict[str, Callable[[dict[str, Any]], Table]] = {
    "snapshot": _snapshot, "prompt": _prompt, "native": _native, "host": _host, "dispatch": _dispatch, "frames": _frames,
    "memory": _memory, "mcp": _mcp,
}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    width = len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join((row + ["–"] * width)[:width]) + " |" for row in rows]
    return lines


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


def markdown_tables(results: dict[str, Any]) -> str:
    """Every section of a `waymark bench --out` result as a headed markdown table."""
    out: list[str] = []
    for name, section in results["sections"].items():
        out += [f"### {name}", ""] + _provenance(results, name, section) + [""]
        if section.get("error"):
            out += [f"The section failed: {section['error']}", ""]
            continue
        header, rows = RENDERERS[name](section)
        out += _table(header, rows)
        errors = section.get("errors") or {}
        if errors:
            out += ["", f"{len(errors)} page(s) failed: " + "; ".join(f"{k}: {v}" for k, v in list(errors.items())[:5])]
        out.append("")
    return "\n".join(out)
