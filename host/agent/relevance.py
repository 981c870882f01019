"""The elements of a page named with the words of the task, shown to the planner.

A long element list read as a whole favours the most familiar name over the one the user's words
describe ("Accept all" beside "Reject non-essential" for "only the essential cookies"). Listing,
beside the page, the elements whose names share a word with the task (the word named) points a
plan at the one the user described (words as host.agent.words reads them). The executor is not shown them: on the smoke suite's
single decisions the list put the cookie wall right and a card field in a frame wrong (12/16
either way), so it did not pay for a longer prompt on every turn.
"""

from __future__ import annotations

from waymark.host.agent.guards.before_dispatch import CONTAINER_ROLES
from waymark.host.agent.words import words
from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.core.targets import document_order

#: At most this many elements are named: more would be a second copy of the page.
MOST = 6


def named_like(task: str, snapshot: Snapshot) -> list[tuple[SnapshotElement, list[str]]]:
    """The controls whose names share words with the task, each with the words it shares, most
    shared words first, then in document order; at most MOST of them."""
    wanted = words(task)
    found: list[tuple[SnapshotElement, list[str]]] = []
    for element in snapshot.elements:
        if element.role in CONTAINER_ROLES or not element.name:
            continue
        shared = sorted(wanted & words(element.name))
        if shared:
            found.append((element, shared))
    found.sort(key=lambda pair: (-len(pair[1]), document_order(pair[0])))
    return found[:MOST]
