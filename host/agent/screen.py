"""Typing asked for by a model that answers in screen coordinates, made a ref-based action.

Computer-use models type without a ref: at the focused element, or at a point of the
screenshot (providers.computer_use). Waymark types only into a ref, so that typing keeps the
checks every `type` and `fill` have (actionability, secrets, stale refs): a `type` or `fill`
without a ref becomes one with the ref of the text field at its point, else of the focused
element, the way `press` without a ref goes to the focused element. With neither, it is
refused with a reason the model can act on.
"""

from __future__ import annotations

from typing import Any

from waymark.host.agent.grammar import DecisionRejected
from waymark.host.core.snapshot import Snapshot, SnapshotElement

#: Roles a person can type into.
TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "textarea"})
_TYPING = ("type", "fill")


def _contains(element: SnapshotElement, x: float, y: float) -> bool:
    left, top, width, height = element.bbox
    return width > 0 and height > 0 and left <= x <= left + width and top <= y <= top + height


def field_at(snapshot: Snapshot, x: float, y: float) -> SnapshotElement | None:
    """The smallest text field whose box holds the point (top-level CSS pixels)."""
    fields = [e for e in snapshot.elements if e.role in TEXT_ROLES and _contains(e, x, y)]
    return min(fields, key=lambda e: e.bbox[2] * e.bbox[3], default=None)


def focused(snapshot: Snapshot) -> SnapshotElement | None:
    """The element the snapshot says has focus."""
    return next((e for e in snapshot.elements if e.states.get("focused")), None)


def css_scale(snapshot: Snapshot, image_width: int) -> float:
    """CSS pixels per screenshot pixel: the viewport's width over the screenshot's."""
    width = snapshot.viewport.get("width") if isinstance(snapshot.viewport, dict) else None
    if isinstance(width, (int, float)) and width > 0 and image_width > 0:
        return float(width) / image_width
    dpr = snapshot.viewport.get("dpr") if isinstance(snapshot.viewport, dict) else None
    return 1.0 / dpr if isinstance(dpr, (int, float)) and dpr > 0 else 1.0


def typing_with_ref(arguments: dict[str, Any], snapshot: Snapshot, image_width: int, notes: list[str]) -> dict[str, Any]:
    """The `act` arguments with the ref a refless `type`/`fill` means; other answers unchanged.
    Raises DecisionRejected (`no_field`) when no field is at the point and none has focus.
    `press_enter` (Gemini's) is dropped with a note: one turn is one action, Enter is the next."""
    if arguments.get("action") not in _TYPING or arguments.get("ref") is not None:
        return arguments
    out = dict(arguments)
    if out.pop("press_enter", None):
        notes.append("press_enter: Enter is not pressed with the text; press it next")
    x, y = out.pop("x", None), out.pop("y", None)
    target: SnapshotElement | None = None
    how = "the field at the point"
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        scale = css_scale(snapshot, image_width)
        target = field_at(snapshot, x * scale, y * scale)
    if target is None:
        target, how = focused(snapshot), "the focused element"
    if target is None:
        where = f"at ({x}, {y})" if x is not None else "focused"
        raise DecisionRejected("no_field", f"there is no text field {where}; click the field first, then type")
    notes.append(f"typing_target: ref {target.ref}, {how}")
    out["ref"] = target.ref
    return out
