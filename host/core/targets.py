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
