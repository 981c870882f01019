"""What a model that answers in screen coordinates asks for, in the form the grammar takes.

Computer-use models (providers.computer_use) type without a ref, at the focused element or at
a point of the screenshot, and right-click at a point. Waymark types and right-clicks only on
a ref, so that these keep the checks every ref-based action has (actionability, secrets, stale
refs): a `type`, `fill` or `right_click` without a ref gets the ref of what is at its point
(Snapshot.covering: the smallest box there; a text field for typing), else, for typing, of the
focused element, the way `press` without a ref goes to the focused element. With neither, the
answer is refused with a reason the model can act on. A scroll distance given in screenshot
pixels (`amount_px`, Gemini's) becomes the CSS pixels `scroll_at` takes.
"""

from __future__ import annotations

from typing import Any

from waymark.host.agent.grammar import DecisionRejected
from waymark.host.core.snapshot import Snapshot, SnapshotElement

#: Roles a person can type into.
TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "textarea"})
_AT_A_POINT = ("type", "fill", "right_click")


def focused(snapshot: Snapshot) -> SnapshotElement | None:
    """The element the snapshot says has focus."""
    return next((e for e in snapshot.elements if e.states.get("focused")), None)


def screenshot_scale(snapshot: Snapshot, image_width: int) -> float:
    """Screenshot pixels per CSS pixel: the snapshot's own figure, else the screenshot's width
    over the viewport's."""
    if snapshot.screenshot_scale:
        return snapshot.screenshot_scale
    width = snapshot.viewport.get("width")
    return image_width / float(width) if isinstance(width, (int, float)) and width > 0 and image_width > 0 else 1.0


def _with_point(snapshot: Snapshot, image_width: int) -> Snapshot:
    """The snapshot with the scale its `covering` reads, when the extension did not say it."""
    if snapshot.screenshot_scale:
        return snapshot
    return snapshot.model_copy(update={"screenshot_scale": screenshot_scale(snapshot, image_width)})


def dispatchable(arguments: dict[str, Any], snapshot: Snapshot, image_width: int, notes: list[str]) -> dict[str, Any]:
    """The `act` arguments of a computer-use answer as the grammar takes them; others unchanged.
    Raises DecisionRejected (`no_field`, `no_element`) when nothing is at the point (and, for
    typing, nothing has focus). `press_enter` (Gemini's) is dropped with a note: one turn is one
    action, so Enter is the model's next one."""
    kind = arguments.get("action")
    if kind == "scroll_at" and "amount_px" in arguments:
        out = {k: v for k, v in arguments.items() if k != "amount_px"}
        pixels = arguments["amount_px"]
        if isinstance(pixels, (int, float)) and pixels > 0:
            out["amount"] = max(1, round(pixels / screenshot_scale(snapshot, image_width)))
        return out
    if kind not in _AT_A_POINT or arguments.get("ref") is not None:
        return arguments
    out = dict(arguments)
    if out.pop("press_enter", None):
        notes.append("press_enter: Enter is not pressed with the text; press it next")
    x, y = out.pop("x", None), out.pop("y", None)
    at_point = False
    covering: list[SnapshotElement] = []
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        at_point, covering = True, _with_point(snapshot, image_width).covering(x, y)
    if kind == "right_click":
        if not covering:
            raise DecisionRejected("no_element", f"nothing Waymark can act on is at ({x}, {y}); choose a point on an element")
        target, how = covering[0], "the element at the point"
    else:
        target = next((e for e in covering if e.role in TEXT_ROLES), None)
        how = "the field at the point"
        if target is None:
            target, how = focused(snapshot), "the focused element"
        if target is None:
            where = f"at ({x}, {y})" if at_point else "focused"
            raise DecisionRejected("no_field", f"there is no text field {where}; click the field first, then type")
    notes.append(f"{kind}_target: ref {target.ref}, {how}")
    out["ref"] = target.ref
    return out
