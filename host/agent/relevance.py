"""The elements of a page named with the words of the task or the current step.

A small model reads a long element list as a whole and takes the most familiar name: asked to get
rid of a cookie banner "allowing only the essential cookies", the real 1.5B model clicked
"Accept all" with "Reject non-essential" listed beside it. Listing the elements whose names share a
word with the task or step (the word named) points it at the one the user's words describe
(words as host.agent.words reads them).
"""

from __future__ import annotations

from waymark.host.agent.grammar import CONTAINER_ROLES
from waymark.host.agent.words import words
from waymark.host.core.snapshot import Snapshot, SnapshotElement

#: At most this many elements are named: more would be a second copy of the page.
MOST = 6


def named_like(task: str, intent: str, snapshot: Snapshot) -> list[tuple[SnapshotElement, list[str]]]:
    """The controls whose names share words with the task or step, each with the words it shares;
    at most MOST of them. Those sharing most words with the step come first, then most with either,
    then document order: on the step "click the sign in button" the real model filled the password
    three times over, listed first of the task's fields."""
    step = words(intent)
    wanted = words(task) | step
    found: list[tuple[SnapshotElement, list[str]]] = []
    for element in snapshot.elements:
        if element.role in CONTAINER_ROLES or not element.name:
            continue
        shared = sorted(wanted & words(element.name))
        if shared:
            found.append((element, shared))
    found.sort(key=lambda pair: (-len(step.intersection(pair[1])), -len(pair[1]),
                                 pair[0].order if pair[0].order is not None else pair[0].ref))
    return found[:MOST]
