"""Plain-text lines for a run's events: the one formatter behind `waymark run`, `waymark demo`
and `waymark trace show`."""

from __future__ import annotations

import json
from typing import Any

MARKS = {"passed": "✓", "done": "✓", "failed": "✗", "error": "✗", "retry": "↻", "declined": "■", "blocked": "■", "refused": "■",
         "answered": "?", "unanswered": "?", "unproven": "~", "acted": "·"}


def _ms(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return ""
    return f"{v / 1000:.1f} s" if v >= 1000 else f"{v:.0f} ms"


def step_line(event: dict[str, Any]) -> str:
    """One step attempt: mark, number, intent, action, and time (with reasons when it did not pass)."""
    verdict = event.get("verdict", "")
    mark = MARKS.get(verdict, "·")
    timing = event.get("timing") or {}
    total = sum(v for v in timing.values() if isinstance(v, (int, float)))
    attempt = f" (attempt {event['attempt']})" if event.get("attempt", 1) > 1 else ""
    head = f"  {mark} {event.get('step', '?'):>2}  {event.get('intent', '')}{attempt}"
    lines = [f"{head:<68} {_ms(total):>8}"]
    if event.get("action_line"):
        lines.append(f"        {event['action_line']}")
    for problem in event.get("parse_failures") or []:
        lines.append(f"        unusable answer [{problem.get('kind')}]: reminded the model")
    for note in event.get("repair") or []:
        lines.append(f"        repair: {note}")
    if verdict not in ("passed", "done") and event.get("reason"):
        lines.append(f"        {event['reason']}")
    return "\n".join(lines)


def plan_lines(event: dict[str, Any]) -> str:
    title = "Replanned" if event.get("event") == "replan" else "Plan"
    if event.get("fallback"):
        title += f" (no usable plan: {event.get('reason', '')}; the task is one step)"
    lines = [f"{title} ({len(event.get('steps', []))} steps):"]
    for i, step in enumerate(event.get("steps", []), 1):
        optional = "" if step.get("required", True) else " (optional)"
        lines.append(f"  {i:>2}. {step.get('intent', '')}{optional}")
    for criterion in event.get("success_criteria") or []:
        lines.append(f"      done when: {json.dumps(criterion, ensure_ascii=False)}")
    return "\n".join(lines)


OUTCOMES = {"declined": "STOPPED AT CONFIRMATION", "blocked": "BLOCKED BY POLICY", "cancelled": "CANCELLED",
            "budget_steps": "OUT OF STEPS", "budget_replans": "OUT OF REPLANS", "budget_tokens": "OUT OF TOKENS",
            "budget_wall_clock": "OUT OF TIME", "error": "ERROR", "failed": "FAILED", "unproven": "UNPROVEN"}


def summary_lines(summary: dict[str, Any]) -> str:
    outcome = summary.get("outcome", "")
    verdict = "SUCCESS" if summary.get("success") else OUTCOMES.get(outcome, outcome.upper() or "FAILED")
    lines = [
        f"{verdict}: {summary.get('steps_passed', 0)}/{summary.get('steps_total', 0)} steps verified in "
        f"{_ms(summary.get('duration_ms', 0))}, {summary.get('tokens_total', 0)} tokens"
        + (f", {summary.get('steps_unproven')} unproven" if summary.get("steps_unproven") else "")
        + (f", {summary.get('retries')} retries" if summary.get("retries") else "")
        + (f", {summary.get('replans')} replans" if summary.get("replans") else ""),
    ]
    if summary.get("reason"):
        lines.append(f"  {summary['reason']}")
    if summary.get("result"):
        lines.append(f"  result: {summary['result']}")
    if summary.get("data") is not None:
        lines.append("  data: " + json.dumps(summary["data"], ensure_ascii=False)[:1000])
    lines.extend(grounding_lines(summary.get("grounding")))
    return "\n".join(lines)


def grounding_lines(grounding: dict[str, Any] | None) -> list[str]:
    """One line per value of an answer: found (where), not found on any page, or computed."""
    out = []
    for v in (grounding or {}).get("values", []):
        head = f"{v.get('path')} = {json.dumps(v.get('value'), ensure_ascii=False)}"
        if v.get("status") == "found":
            src = v.get("source") or {}
            out.append(f"    ✓ {head}: {src.get('element') or src.get('where', '')} on {src.get('url', '')}")
        elif v.get("status") == "computed":
            out.append(f"    = {head}: computed (not looked for)")
        else:
            out.append(f"    ✗ {head}: not found on any page the run saw{'' if v.get('required', True) else ' (optional)'}")
    return out


def event_text(event: dict[str, Any]) -> str | None:
    """The text for any event kind, or None for events that print nothing."""
    kind = event.get("event")
    if kind in ("plan", "replan"):
        return plan_lines(event)
    if kind == "step":
        return step_line(event)
    if kind == "step_failed":
        return f"  ✗ required step failed: {event.get('intent', '')} — evidence saved ({', '.join(event.get('artifacts', {}))})"
    if kind == "finished":
        return summary_lines(event)
    if kind == "criteria":
        failed = [c for c in event.get("checks", []) if not c.get("ok")]
        return "  ✓ success criteria hold" if event.get("ok") else "  ✗ success criteria fail: " + "; ".join(
            f"{json.dumps(c.get('predicate'), ensure_ascii=False)} ({c.get('detail', '')})" for c in failed)
    if kind == "run":
        return f"Task: {event.get('task', '')}\nTrace: {event.get('trace_dir', '')}"
    return None
