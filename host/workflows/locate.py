"""Finding a recorded element again on today's page: by role and accessible name, then by the
text around it, then by where it stood, in that order. Never by a ref."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.core.targets import (
    ElementPlace,
    document_order,
    frame_orders,
    near_names,
    normalise,
)

#: How far (CSS pixels) an element's centre may have moved and still be taken for the recorded one by position alone.
POSITION_TOLERANCE = 24.0


class Located(BaseModel):
    """The element a recorded target means on this page, and which clue found it."""

    element: SnapshotElement
    by: Literal["name", "near", "position"]


def _centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2] / 2, box[1] + box[3] / 2) if len(box) == 4 else (0.0, 0.0)


def locate(snapshot: Snapshot, place: ElementPlace) -> Located | None:
    """The element of `snapshot` that `place` describes, or None when no clue picks one out.

    Role and name first (several with that name: the one whose neighbours match, then the recorded
    nth); then, among the elements of that role, the only one whose neighbours share most of the
    recorded ones (a renamed button between the same fields); then the one of that role whose box
    is where the recorded one was. A replayed step is still proven by its checks: a clue finds a
    candidate, it proves nothing."""
    ordered = sorted(snapshot.elements, key=document_order)
    frames = frame_orders(snapshot)
    recorded_near = {normalise(n) for n in [*place.before, *place.after]}
    nearest = [normalise(side[0]) if side else None for side in (place.before, place.after)]

    def near_score(element: SnapshotElement) -> int:
        """Shared neighbours, the nearest one on each side counting three times: a label right
        before a field, a heading right before its button, say more than the names further away."""
        before, after = near_names(ordered, ordered.index(element))
        shared = len(recorded_near & {normalise(n) for n in [*before, *after]})
        adjacent = sum(2 for mine, theirs in zip(nearest, (before, after)) if mine is not None and theirs and normalise(theirs[0]) == mine)
        return shared + adjacent

    def same_frame(element: SnapshotElement) -> bool:
        return frames.get(element.frame, 0) == place.frame

    same_role = [e for e in ordered if normalise(e.role) == normalise(place.role)]
    named = [e for e in same_role if normalise(e.name) == normalise(place.name)]
    if named:
        best = max(named, key=lambda e: (same_frame(e), near_score(e), -abs(named.index(e) - place.nth)))
        return Located(element=best, by="name")
    if recorded_near:
        scored = sorted(((near_score(e), e) for e in same_role), key=lambda pair: -pair[0])
        needed = max(2, (len(recorded_near) + 1) // 2)
        if scored and scored[0][0] >= needed and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            return Located(element=scored[0][1], by="near")
    if len(place.bbox) == 4:
        cx, cy = _centre(place.bbox)
        close = [(abs(_centre(e.bbox)[0] - cx) + abs(_centre(e.bbox)[1] - cy), e) for e in same_role if same_frame(e)]
        close = [pair for pair in close if pair[0] <= POSITION_TOLERANCE]
        if len(close) == 1:
            return Located(element=close[0][1], by="position")
    return None


def described(place: ElementPlace) -> str:
    """The recorded target in words, for a failure's reason and the executor's context."""
    near = ", ".join(f'"{n}"' for n in [*reversed(place.before), *place.after])
    return f'{place.role} "{place.name}"' + (f" near {near}" if near else "") + (f" in frame {place.frame}" if place.frame else "")
