"""`waymark eval html`: one self-contained HTML page for a report: the summary, then every task
with its verdict, reason and, from the agent run's trace, each step with its overlay screenshot.

Screenshots are embedded as data URIs, so the page can be mailed or archived as one file. The
page has no script; each task is a <details> element, failures open by default.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from waymark.eval.report import Row, format_summary, summarize
from waymark.host.agent.trace_page import CSS as STEP_CSS
from waymark.host.agent.trace_page import event_html

_STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;color:#111;background:#fafafa}
h1{margin:0 0 8px} pre.summary{background:#fff;border:1px solid #ddd;padding:10px;border-radius:6px}
details{background:#fff;border:1px solid #ddd;border-radius:6px;margin:8px 0;padding:6px 10px}
summary{cursor:pointer;font-weight:600}
.pass{color:#15803d}.fail{color:#b91c1c}.error{color:#b45309}
table{border-collapse:collapse;margin:8px 0;width:100%}td,th{border-bottom:1px solid #eee;padding:4px 6px;text-align:left;vertical-align:top;font-size:13px}
img{max-width:640px;border:1px solid #ccc;display:block;margin:4px 0}
code{font-size:12px;white-space:pre-wrap;word-break:break-word}
.meta{color:#555;font-size:13px}
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _read_events(trace_dir: Path) -> list[dict[str, Any]]:
    trace = trace_dir / "trace.jsonl"
    if not trace.is_file():
        return []
    events = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _steps_html(trace_dir: Path) -> str:
    """The run's plan and steps in words, as its trace page shows them (host.agent.trace_page)."""
    events = _read_events(trace_dir)
    if not events:
        return f'<p class="meta">no trace at {_esc(trace_dir)}</p>'
    return "".join(event_html(trace_dir, event) for event in events)


def _details_html(details: dict[str, Any]) -> str:
    """A row's details as a list of named values, not one JSON blob."""
    items = "".join(f"<li><b>{_esc(k)}</b>: {_esc(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))}</li>"
                    for k, v in details.items())
    return f"<ul class=\"details\">{items}</ul>"


def _task_html(row: Row) -> str:
    opened = " open" if row.verdict != "pass" else ""
    head = (
        f'<summary><span class="{row.verdict}">{row.verdict.upper()}</span> {_esc(row.task)} '
        f'<span class="meta">{row.latency_ms / 1000:.2f} s · {row.steps} steps · {row.tokens} tokens</span></summary>'
    )
    meta = (
        f'<p class="meta">reason: {_esc(row.reason or "-")}<br>provider {_esc(row.provider)} · model {_esc(row.model)}'
        + (f" · planner {_esc(row.planner)}" if row.planner else "")
        + f" · retries {row.retries} · replans {row.replans}</p>"
    )
    details = _details_html(row.details) if row.details else ""
    steps = _steps_html(Path(row.trace_dir)) if row.trace_dir else ""
    return f"<details{opened}>{head}{meta}{details}{steps}</details>"


def render(rows: list[Row], title: str) -> str:
    """The whole page as a string."""
    summary = format_summary(summarize(rows))
    first = rows[0] if rows else None
    run = f"{_esc(first.git_sha)} · {_esc(first.timestamp)}" if first else ""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title>'
        f"<style>{STEP_CSS}{_STYLE}</style></head><body><h1>{_esc(title)}</h1><p class=\"meta\">{run}</p>"
        f'<pre class="summary">{_esc(summary)}</pre>'
        + "".join(_task_html(r) for r in rows)
        + "</body></html>"
    )


def write_html(rows: list[Row], out: Path, title: str) -> Path:
    """Write the page to `out` and return its path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(rows, title), encoding="utf-8")
    return out
