"""The elements of a page named with the words of the task, and the lines of its text that use
them, shown to the planner.

A long element list read as a whole favours the most familiar name over the one the user's words
describe ("Accept all" beside "Reject non-essential" for "only the essential cookies"). Listing,
beside the page, the elements whose names share a word with the task (the word named) points a
plan at the one the user described (words as host.agent.words reads them). The executor is not shown them: on the smoke suite's
single decisions the list put the cookie wall right and a card field in a frame wrong (12/16
either way), so it did not pay for a longer prompt on every turn.

The element list names controls and headings, never paragraphs: a price, a description or a table
row is only in the page's text. The lines of that text sharing a word with the task, each with the
line after it (a product's name, then its price), are what a question about the page needs, at a
fraction of the whole text's tokens.
"""

from __future__ import annotations

from waymark.host.agent.guards.before_dispatch import CONTAINER_ROLES
from waymark.host.agent.words import words
from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.core.targets import document_order

#: At most this many elements are named: more would be a second copy of the page.
MOST = 6
#: At most this many lines of text are quoted (each with its next line), and this many characters.
MOST_LINES = 6
TEXT_CHARS = 1200
#: A quoted line is cut here: a paragraph, not a page.
LINE_CHARS = 300


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


def text_like(task: str, text: str, snapshot: Snapshot) -> list[str]:
    """The lines of the page's text that share words with the task, each followed by the line
    after it, in document order: the lines sharing most words first chosen, at most MOST_LINES of
    them and TEXT_CHARS in all. A line that is only an element's name is left out (the element
    list shows it); a table's cells stay apart by their tabs."""
    wanted = words(task)
    names = {" ".join(e.name.split()).casefold() for e in snapshot.elements if e.name}
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    scored = []
    for i, line in enumerate(lines):
        if " ".join(line.split()).casefold() in names:
            continue
        shared = len(wanted & words(line))
        if shared:
            scored.append((-shared, i))
    chosen: set[int] = set()
    for _, i in sorted(scored)[:MOST_LINES]:
        chosen.add(i)
        if i + 1 < len(lines):
            chosen.add(i + 1)
    quoted, used = [], 0
    for i in sorted(chosen):
        line = lines[i] if len(lines[i]) <= LINE_CHARS else lines[i][:LINE_CHARS] + " [...]"
        if used + len(line) > TEXT_CHARS:
            break
        quoted.append(line)
        used += len(line)
    return quoted
