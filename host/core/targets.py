"""Elements described the way a person would: role, accessible name and text, matched over a
snapshot (never CSS). One authority for the verifier's predicates and the scripted provider's
action targets: names compare case-insensitively with whitespace collapsed, `nth` is 0-based
in document order (the elements' `order`), as a person counts them. Not the snapshot's order,
which lists the elements in view first, so a scroll does not change which element `nth` means;
not ref order, which is the order elements were first seen: an icon whose image loads late is
first seen after the button beside it, yet it is still the first of the two."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.core.snapshot import Snapshot, SnapshotElement


class Target(BaseModel):
    """Which elements are meant: all given fields must match."""

    model_config = ConfigDict(extra="forbid")

    role: str | None = None
    name: str | None = None
    name_contains: str | None = None
    text_contains: str | None = None
    nth: int | None = Field(default=None, ge=0)


def normalise(text: str | None) -> str:
    """Text as names are compared: whitespace collapsed, case folded."""
    return " ".join((text or "").split()).casefold()


def element_matches(element: SnapshotElement, target: Target) -> bool:
    """Whether one element fits a target (role exact, names case- and whitespace-insensitive)."""
    if target.role is not None and normalise(element.role) != normalise(target.role):
        return False
    name = normalise(element.name)
    if target.name is not None and name != normalise(target.name):
        return False
    if target.name_contains is not None and normalise(target.name_contains) not in name:
        return False
    if target.text_contains is not None:
        haystack = " ".join(normalise(t) for t in (element.name, element.value, (element.model_extra or {}).get("text")) if t)
        if normalise(target.text_contains) not in haystack:
            return False
    return True


def document_order(element: SnapshotElement) -> tuple[bool, int, int]:
    """Sort key putting elements in document order; elements without an `order` (a snapshot
    built by hand) come after those with one, in ref order."""
    return (element.order is None, element.order or 0, element.ref)


def find_elements(snapshot: Snapshot, target: Target | dict[str, Any]) -> list[SnapshotElement]:
    """The elements of `snapshot` that fit `target`, in document order (`nth` picks one).

    A snapshot whose elements carry no `order` (one built by hand) is taken in ref order."""
    target = target if isinstance(target, Target) else Target.model_validate(target)
    found = sorted((e for e in snapshot.elements if element_matches(e, target)), key=document_order)
    if target.nth is not None:
        return found[target.nth : target.nth + 1]
    return found


class ElementPlace(BaseModel):
    """Where an element stood, described so it can be found again on a later visit of the page:
    never by ref (refs live only as long as the document), but by what a person sees."""

    model_config = ConfigDict(extra="forbid")

    role: str
    name: str = ""
    #: The names of the elements just before it in document order, nearest first (its label, its heading).
    before: list[str] = Field(default_factory=list)
    #: The names of the elements just after it in document order, nearest first.
    after: list[str] = Field(default_factory=list)
    #: Which frame held it: 0 the top document, n the n-th frame in document order.
    frame: int = Field(default=0, ge=0)
    #: Its index among the elements of the same role and name, in document order.
    nth: int = Field(default=0, ge=0)
    #: Its index among the elements of the same role, in document order.
    index: int = Field(default=0, ge=0)
    #: [x, y, width, height] where it was, in CSS pixels of the top document.
    bbox: list[float] = Field(default_factory=list)


#: Neighbours kept on each side in an ElementPlace.
NEAR = 2


def frame_orders(snapshot: Snapshot) -> dict[int, int]:
    """Each frame id of the snapshot mapped to its place in document order (the top document first)."""
    ids = [e.frame for e in sorted(snapshot.elements, key=document_order)]
    return {frame: i for i, frame in enumerate(dict.fromkeys([0, *ids]))}


def near_names(ordered: list[SnapshotElement], position: int) -> tuple[list[str], list[str]]:
    """The names of up to NEAR named elements before and after `ordered[position]`, nearest first
    (elements of its own name are skipped: a list of "Add to cart" buttons tells them apart by the rest)."""
    own = normalise(ordered[position].name)
    before = [e.name[:80] for e in reversed(ordered[:position]) if e.name and normalise(e.name) != own][:NEAR]
    after = [e.name[:80] for e in ordered[position + 1:] if e.name and normalise(e.name) != own][:NEAR]
    return before, after


def element_place(snapshot: Snapshot, ref: int) -> ElementPlace | None:
    """Where the element with this ref stands on `snapshot` (None when it is not there)."""
    ordered = sorted(snapshot.elements, key=document_order)
    position = next((i for i, e in enumerate(ordered) if e.ref == ref), None)
    if position is None:
        return None
    element = ordered[position]
    same_role = [e for e in ordered if normalise(e.role) == normalise(element.role)]
    same_name = [e for e in same_role if normalise(e.name) == normalise(element.name)]
    before, after = near_names(ordered, position)
    return ElementPlace(role=element.role, name=element.name, before=before, after=after,
                        frame=frame_orders(snapshot).get(element.frame, 0), nth=same_name.index(element),
                        index=same_role.index(element), bbox=[round(v, 1) for v in element.bbox])


def places_of(action: Any, snapshot: Snapshot) -> dict[str, Any]:
    """The trace fields naming where an action's elements stood (`target`, `to_target`), for a
    workflow saved from the run to find them again; empty for an action on no element."""
    out: dict[str, Any] = {}
    for field, key in (("ref", "target"), ("to_ref", "to_target")):
        ref = getattr(action, field, None)
        place = element_place(snapshot, ref) if isinstance(ref, int) else None
        if place is not None:
            out[key] = place.model_dump()
    return out
