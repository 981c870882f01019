"""A run's trace as one self-contained HTML page: what `waymark trace html` writes and the side
panel's Trace link opens."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

#: The page's style (the eval report's pages show steps with it too).
CSS = """
body{font:14px/1.5 system-ui,sans-serif;margin:0;background:#f5f6fa;color:#1d2330}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0;font-size:20px}
main{max-width:1100px;margin:20px auto;padding:0 20px}
.summary{background:#fff;border-radius:8px;padding:16px 20px;margin-bottom:16px}
.ok{color:#1b7f3a}.bad{color:#b3261e}
.step{background:#fff;border-radius:8px;padding:14px 18px;margin:10px 0;display:grid;grid-template-columns:1fr 360px;gap:16px}
.step img{width:360px;border:1px solid #dde;border-radius:4px;cursor:zoom-in}
.step img:focus{position:fixed;inset:0;width:100%;height:100%;object-fit:contain;background:rgba(0,0,0,.85);z-index:10;cursor:zoom-out;border:0;border-radius:0}
.step h3{margin:0 0 6px;font-size:15px}code{background:#eef0f6;padding:1px 4px;border-radius:3px}
ul{margin:4px 0;padding-left:18px}.meta{color:#5a6275;font-size:12px}
.plan{background:#fff;border-radius:8px;padding:12px 20px}
table.answer{border-collapse:collapse}table.answer td,table.answer th{padding:4px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
"""


def check_words(predicate: Any) -> str:
    """A check as a sentence's subject, not JSON: `exists: button "In cart (1)"`, `url contains "/cart"`."""
    if not isinstance(predicate, dict) or len(predicate) != 1:
        return json.dumps(predicate, ensure_ascii=False)
    (name, arg), = predicate.items()
    said = name.replace("_", " ")
    if isinstance(arg, str):
        return f'{said} "{arg}"'
    if isinstance(arg, dict) and any(k in arg for k in ("role", "name", "name_contains", "text_contains")):
        what = str(arg.get("role") or "element")
        if arg.get("name"):
            what += f' "{arg["name"]}"'
        elif arg.get("name_contains"):
            what += f' named with "{arg["name_contains"]}"'
        if arg.get("text_contains"):
            what += f' showing "{arg["text_contains"]}"'
        rest = {k: v for k, v in arg.items() if k not in ("role", "name", "name_contains", "text_contains")}
        return f"{said}: {what}" + (f" {json.dumps(rest, ensure_ascii=False)}" if rest else "")
    return f"{said}: {json.dumps(arg, ensure_ascii=False)}"


def _img(folder: Path, rel: str | None) -> str:
    if not rel:
        return ""
    path = folder / rel
    if not path.is_file():
        return ""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    # Focusable: a click enlarges it to the whole window (the CSS's :focus rule), a click elsewhere shrinks it.
    return f'<img alt="overlay screenshot (click to enlarge)" title="click to enlarge" tabindex="0" src="data:image/jpeg;base64,{data}">'


def event_html(folder: Path, ev: dict[str, Any]) -> str:
    """One trace event as the trace page shows it, in words ("" for events the page does not show):
    a plan's steps, a step's action, verdict and checks with its screenshot, a required step that failed."""
    e = html.escape
    kind = ev.get("event")
    if kind in ("plan", "replan"):
        items = "".join(f"<li>{e(str(s.get('intent', '')))}</li>" for s in ev.get("steps", []))
        return f"<div class='plan'><b>{'Replan' if kind == 'replan' else 'Plan'}</b><ol>{items}</ol></div>"
    if kind == "step":
        verdict = str(ev.get("verdict", ""))
        cls = "ok" if verdict in ("passed", "done") else "bad"
        checks = "".join(
            f"<li class='{'ok' if c.get('ok') else 'bad'}'>{'✓' if c.get('ok') else '✗'} {e(check_words(c.get('predicate')))}"
            f"{' <span class=meta>' + e(str(c['detail'])) + '</span>' if c.get('detail') else ''}</li>"
            for c in ev.get("checks") or [])
        notes = "".join(f"<li>{e(str(n))}</li>" for n in (ev.get("repair") or []))
        problems = "".join(f"<li>unusable answer [{e(str(p.get('kind')))}]</li>" for p in (ev.get("parse_failures") or []))
        timing = ", ".join(f"{k} {v:.0f}" for k, v in (ev.get("timing") or {}).items() if isinstance(v, (int, float)))
        return (
            f"<div class='step'><div><h3>{ev.get('step')}. {e(str(ev.get('intent', '')))} "
            f"<span class='{cls}'>{e(verdict)}</span></h3>"
            f"<p><code>{e(str(ev.get('action_line', '')))}</code></p>"
            f"<p>{e(str(ev.get('thought') or ''))}</p>"
            f"{'<ul>' + checks + '</ul>' if checks else ''}{'<ul>' + notes + problems + '</ul>' if notes or problems else ''}"
            f"<p>{e(str(ev.get('reason', '')))}</p>"
            f"<p class='meta'>attempt {ev.get('attempt')} · {e(timing)} · {ev.get('tokens', 0)} tokens</p></div>"
            f"<div>{_img(folder, ev.get('screenshot'))}</div></div>")
    if kind == "step_failed":
        arts = ev.get("artifacts") or {}
        return (f"<div class='step'><div><h3 class='bad'>Required step failed: {e(str(ev.get('intent', '')))}</h3>"
                f"<p>{e(str(ev.get('reason', '')))}</p></div><div>{_img(folder, arts.get('screenshot'))}</div></div>")
    return ""


def render_html(folder: Path, events: list[dict[str, Any]], summary: dict[str, Any] | None) -> str:
    """The whole trace as one HTML page (screenshots inlined as data URLs); every value escaped."""
    from waymark.host.agent.timeline import OUTCOMES

    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Waymark run {e(folder.name)}</title>"
             f"<style>{CSS}</style></head><body><header><h1>Waymark run {e(folder.name)}</h1></header><main>"]
    start = next((ev for ev in events if ev.get("event") == "run"), {})
    if summary:
        cls = "ok" if summary.get("success") else "bad"
        parts.append(
            f"<div class='summary'><p><b>Task:</b> {e(str(start.get('task', summary.get('task', ''))))}</p>"
            f"<p class='{cls}'><b>{'Success' if summary.get('success') else e(OUTCOMES.get(str(summary.get('outcome')), str(summary.get('outcome', 'failed'))).capitalize())}</b>: "
            f"{summary.get('steps_passed')}/{summary.get('steps_total')} steps verified, {summary.get('duration_ms', 0) / 1000:.1f} s, "
            f"{summary.get('tokens_total', 0)} tokens</p><p>{e(str(summary.get('reason', '')))}</p></div>")
        parts.append(answer_html(summary))
    parts.extend(event_html(folder, ev) for ev in events)
    parts.append("</main></body></html>")
    return "".join(parts)


def answer_html(summary: dict[str, Any]) -> str:
    """The run's answer as a table: each value's JSON path, the value, and where it was found
    (page, element or frame, the text around it), that it was not, or that it is computed."""
    if summary.get("data") is None:
        return ""
    e = html.escape
    rows = []
    for v in (summary.get("grounding") or {}).get("values", []):
        src = v.get("source") or {}
        status = str(v.get("status", ""))
        where = (f"{e(str(src.get('element') or src.get('where', '')))} on {e(str(src.get('url', '')))}"
                 f"<br><span class='meta'>…{e(str(src.get('excerpt', '')))}…</span>") if src else (
            "computed, not looked for" if status == "computed" else "not found on any page the run saw")
        rows.append(f"<tr class='{'ok' if status != 'ungrounded' else 'bad'}'><td><code>{e(str(v.get('path')))}</code></td>"
                    f"<td>{e(json.dumps(v.get('value'), ensure_ascii=False))}</td><td>{e(status)}</td><td>{where}</td></tr>")
    table = f"<table class='answer'><tr><th>Path</th><th>Value</th><th></th><th>Source</th></tr>{''.join(rows)}</table>" if rows else ""
    return (f"<div class='summary'><b>Answer</b><pre>{e(json.dumps(summary['data'], ensure_ascii=False, indent=1))}</pre>"
            f"{table}</div>")
