"""Grounding: every string and number of an answer must be found in text the run saw on a page.

The run records what it saw as it goes (`SeenText`: each snapshot's element names and values,
extracted text, the text of every frame), in memory only and bounded; the caller passes text that
is already redacted, so no secret or password value is ever held here. `ground` then looks for each
value (host.agent.answers.matching says in which forms) and says where it was found: the page, and
the element or the frame. A value declared computed is not looked for, and is said to be computed.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from waymark.host.agent.answers.matching import normalize, value_finder
from waymark.host.agent.answers.schema import leaves
from waymark.host.core.snapshot import Snapshot, SnapshotElement

#: Characters of text kept in all (oldest pages are forgotten first), and pages remembered.
MAX_CHARS = 600_000
MAX_PAGES = 64
#: Characters of page text shown either side of a match, as the value's source.
EXCERPT = 40


class Source(BaseModel):
    """Where a value was found."""

    url: str
    title: str = ""
    #: `element` (an element's name, value or options), `page text`, or `frame <origin>`.
    where: str
    #: The element, as the model read it: `[12] cell "1,234.50"`.
    element: str | None = None
    #: The normalized text around the match.
    excerpt: str = ""
    #: The value as the page wrote it (normalized), and up to EXCERPT characters of the text
    #: right before and after it: where a replay reads the value again.
    written: str = ""
    before: str = ""
    after: str = ""


class GroundedValue(BaseModel):
    """One string or number of the answer and whether the run saw it."""

    path: str
    value: str | int | float
    status: Literal["found", "ungrounded", "computed"]
    #: Whether the output schema requires it (every value, without a schema).
    required: bool = True
    source: Source | None = None


class Grounding(BaseModel):
    """Every value of an answer, grounded or not."""

    values: list[GroundedValue] = []
    grounded: int = 0
    ungrounded: int = 0
    computed: int = 0

    def missing(self, required_only: bool = True) -> list[GroundedValue]:
        """The values not found on any page (only the required ones, by default)."""
        return [v for v in self.values if v.status == "ungrounded" and (v.required or not required_only)]

    def line(self, values: list[GroundedValue]) -> str:
        """`$.total (1234.5), $.order ("A-17")`: values for a reason line."""
        return ", ".join(f"{v.path} ({v.value!r})" if isinstance(v.value, str) else f"{v.path} ({v.value})" for v in values[:8]) + (
            f" and {len(values) - 8} more" if len(values) > 8 else "")


@dataclass
class _Text:
    url: str
    title: str
    where: str
    element: str | None
    norm: str
    #: Which read recorded it (a snapshot, a page's text): later reads are searched first.
    read: int


_FRAME = re.compile(r"^\[frame ([^\]\n]{1,200})\]$", re.MULTILINE)


def element_text(element: SnapshotElement) -> str:
    """What an element shows a reader: its name, value and options, one per line."""
    return "\n".join(x for x in (element.name, element.value or "", *(element.options or [])) if x)


class SeenText:
    """What the run saw on its pages, in the order it saw it, bounded (see MAX_CHARS, MAX_PAGES)."""

    def __init__(self, max_chars: int = MAX_CHARS, max_pages: int = MAX_PAGES) -> None:
        self.max_chars = max_chars
        self.max_pages = max_pages
        self._texts: deque[_Text] = deque()
        self._keys: set[tuple[str, str, str | None, str]] = set()
        self._chars = 0
        self._reads = 0

    def snapshot(self, snap: Snapshot) -> None:
        """Record a (redacted) snapshot: its title, and each element's name, value and options."""
        self._reads += 1
        self._add(snap.url, snap.title, "page title", None, snap.title)
        for e in snap.elements:
            label = f'[{e.ref}] {e.role} "{e.name[:60]}"'
            self._add(snap.url, snap.title, "element", label, element_text(e))

    def text(self, url: str, title: str, text: str) -> None:
        """Record a page's (redacted) readable text; the blocks marked `[frame ORIGIN]` are that frame's."""
        self._reads += 1
        marks = list(_FRAME.finditer(text))
        self._add(url, title, "page text", None, text[:marks[0].start()] if marks else text)
        for mark, after in zip(marks, [*marks[1:], None]):
            self._add(url, title, f"frame {mark.group(1)}", None, text[mark.end():after.start() if after else len(text)])

    def _add(self, url: str, title: str, where: str, element: str | None, text: str) -> None:
        norm = normalize(text)
        key = (url, where, element, norm)
        if not norm or key in self._keys:
            return
        self._keys.add(key)
        self._texts.append(_Text(url, title, where, element, norm, self._reads))
        self._chars += len(norm)
        while self._texts and (self._chars > self.max_chars or len({t.url for t in self._texts}) > self.max_pages):
            old = self._texts.popleft()
            self._chars -= len(old.norm)
            self._keys.discard((old.url, old.where, old.element, old.norm))

    def find(self, value: str | int | float) -> Source | None:
        """Where the value was seen: an element before a page's text, the latest read first, and
        within one read in the page's order (the top document before its frames)."""
        find = value_finder(value)
        ordered = sorted(self._texts, key=lambda t: (t.element is None, -t.read))
        for text in ordered:
            span = find(text.norm)
            if span is not None:
                written, before, after = _around(text.norm, span)
                if not (before or after):
                    # An element that is the value alone (a table cell) says nothing around it:
                    # the page's text, where it stands among its labels, does.
                    written, before, after = next((_around(t.norm, s) for t in ordered if t.element is None and t.url == text.url
                                                   and (s := find(t.norm)) is not None), (written, before, after))
                return Source(url=text.url, title=text.title, where=text.where, element=text.element,
                              excerpt=_excerpt(text.norm, span), written=written, before=before, after=after)
        return None

    def __len__(self) -> int:
        return len(self._texts)


def _around(norm: str, span: tuple[int, int]) -> tuple[str, str, str]:
    at, end = span
    return norm[at:end], norm[max(0, at - EXCERPT):at], norm[end:end + EXCERPT]


def _excerpt(norm: str, span: tuple[int, int]) -> str:
    written, before, after = _around(norm, span)
    return before + written + after


def ground(data: Any, schema: dict[str, Any] | None, seen: SeenText) -> Grounding:
    """Each string and number of `data`: found (and where), ungrounded, or computed (declared so, not looked for)."""
    values: list[GroundedValue] = []
    for leaf in leaves(data, schema):
        if leaf.computed:
            values.append(GroundedValue(path=leaf.path, value=leaf.value, status="computed", required=leaf.required))
            continue
        source = seen.find(leaf.value)
        values.append(GroundedValue(path=leaf.path, value=leaf.value, status="found" if source else "ungrounded",
                                    required=leaf.required, source=source))
    return Grounding(values=values, grounded=sum(v.status == "found" for v in values),
                     ungrounded=sum(v.status == "ungrounded" for v in values), computed=sum(v.status == "computed" for v in values))
