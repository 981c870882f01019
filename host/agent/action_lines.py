"""Short human lines for actions and where they landed, for the timeline, the trace and the model's history."""

from __future__ import annotations

from typing import Any

from waymark.host.core.actions import ActionModel
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot


def _named(ref: int, snapshot: Snapshot | None) -> str:
    element = snapshot.find(ref) if snapshot else None
    return f'[{ref}] {element.role} "{element.name[:60]}"' if element else f"[{ref}]"


def _at(x: Any, y: Any) -> str:
    return f"({x:g}, {y:g})" if isinstance(x, (int, float)) and isinstance(y, (int, float)) else ""


def action_line(action: ActionModel, snapshot: Snapshot | None) -> str:
    """A short human line for an action: `click [12] button "Add to cart"`,
    `drag [5] button "Card" to [9] dropzone "Done"`, `click_at (640, 360)`."""
    parts = [action.type]
    ref = getattr(action, "ref", None)

    def field(name: str) -> Any:
        return getattr(action, name, None)

    if isinstance(ref, int):
        parts.append(_named(ref, snapshot))
    if _at(field("x"), field("y")):
        parts.append(_at(field("x"), field("y")))
    if isinstance(field("to_ref"), int):
        parts.append("to " + _named(field("to_ref"), snapshot))
    if _at(field("to_x"), field("to_y")):
        parts.append("to " + _at(field("to_x"), field("to_y")))
    if field("dx") is not None or field("dy") is not None:
        parts.append(f"by ({field('dx') or 0:g}, {field('dy') or 0:g}) px")
    for field in ("accept", "text", "key", "value", "files", "url", "direction", "question", "result", "ms"):
        value = getattr(action, field, None)
        if isinstance(value, bool):
            parts.append(f"{field}={str(value).lower()}")
        elif value not in (None, ""):
            parts.append(f"{field}={str(value)[:80]!r}")
    return " ".join(parts)


def landed_line(result: ActionResult, snapshot: Snapshot | None) -> str:
    """Where a pointer action landed, for the timeline, the trace and the model's history:
    ` -> hit [8] button "Right target"`, ` -> dropped on [9] dropzone "Done"`; empty otherwise."""
    parts = []
    for label, where in (("hit", result.hit), ("dropped on", result.drop)):
        if where is not None:
            parts.append(f"{label} " + (_named(where.ref, snapshot) if where.ref is not None else where.element[:80]))
    return " -> " + ", ".join(parts) if parts else ""
