"""A bench section's time bound and its progress.

Every section gets a `Bound`: it walks its work (pages, rounds, sizes) through `each`, which
stops handing out items once the section's time is up, and awaits each item through `within`,
which cuts an item still running when the time runs out. The section then reports what it
measured so far, and `report()` says which parts were cut and how much of each was covered, so
a slow machine or a large corpus gives a partial table, marked as such, instead of silence.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

from waymark.eval.progress import Progress

T = TypeVar("T")


class SectionCut(Exception):
    """The section's bound passed while one of its items was still running."""


class Bound:
    """The time a section may take (`seconds`, math.inf for none) and a progress line per part
    of its work on `stream` when `progress` is on."""

    def __init__(self, section: str, seconds: float = math.inf, progress: bool = False, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.section = section
        self.seconds = seconds
        self.progress = progress
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.cut = False
        self.parts: list[dict[str, Any]] = []
        self._status: Progress | None = None
        self._show_status("starting")

    def elapsed(self) -> float:
        """Seconds since the section started."""
        return self.clock() - self.started

    def remaining(self) -> float:
        """Seconds left before the bound (never below zero)."""
        return max(0.0, self.seconds - self.elapsed())

    def expired(self) -> bool:
        """True once the section's time is up."""
        return self.elapsed() >= self.seconds

    def _show_status(self, text: str) -> None:
        """The section's line while no part counts items: what it does and the time spent."""
        self._hide_status()
        self._status = Progress(self.section, None, "", self.progress, self.stream, self.elapsed())
        self._status.note(text)

    def _hide_status(self) -> None:
        if self._status is not None:
            self._status.close()
            self._status = None

    def close(self) -> None:
        """Take the section's progress off the terminal."""
        self._hide_status()

    def each(self, items: Iterable[T], unit: str, part: str | None = None) -> Iterator[T]:
        """Yield `items` one by one while the section has time, counting those done under `part`
        (the section's name by default) and showing `part: n of N unit [elapsed]` meanwhile."""
        items = list(items)
        record = {"part": part or self.section, "unit": unit, "covered": 0, "of": len(items)}
        self.parts.append(record)
        label = self.section if part is None else f"{self.section} {part}"
        self._hide_status()
        bar = Progress(label, len(items), unit, self.progress, self.stream, self.elapsed())
        try:
            for item in items:
                if self.expired():
                    self.cut = True
                    return
                bar.note(str(item)[:60] if isinstance(item, str) else "")
                yield item
                record["covered"] += 1
                bar.advance()
        finally:
            bar.close()
            self._show_status(f"{record['part']}: {record['covered']} of {record['of']} {unit} done")

    async def within(self, work: Awaitable[T], seconds: float = math.inf) -> T:
        """Await one item's `work` for at most `seconds` and never past the bound. A TimeoutError
        means the item itself took too long; SectionCut means the section's time ran out."""
        limit = min(seconds, self.remaining())
        if limit <= 0:
            self.cut = True
            close = getattr(work, "close", None)
            if close is not None:
                close()  # a coroutine never awaited would warn
            raise SectionCut(self.section)
        try:
            return await asyncio.wait_for(work, None if math.isinf(limit) else limit)
        except TimeoutError:
            if self.expired():
                self.cut = True
                raise SectionCut(self.section) from None
            raise

    def report(self) -> dict[str, Any]:
        """The bound, whether it cut the section, and how much of each part was covered."""
        cut = self.cut or any(p["covered"] < p["of"] for p in self.parts)
        return {"bound_s": None if math.isinf(self.seconds) else self.seconds, "cut": cut, "parts": self.parts}


def bound_of(options: dict[str, Any] | None, section: str) -> Bound:
    """The section's bound from the bench's options; unbounded and quiet when run on its own."""
    given = (options or {}).get("bound")
    return given if isinstance(given, Bound) else Bound(section)


def describe_cut(report: dict[str, Any]) -> str:
    """One line saying that, and where, the bound cut a section ('' when it did not)."""
    if not report.get("cut"):
        return ""
    covered = "; ".join(f"{p['part']} {p['covered']} of {p['of']} {p['unit']}" for p in report["parts"])
    return f"  CUT at its bound of {report['bound_s']:g} s: measured {covered or 'nothing'}"
