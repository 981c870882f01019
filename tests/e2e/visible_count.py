"""An independent count of the visible interactive elements of a page, in every frame
(cross-origin ones included, each read by Playwright in its own world): the authority recall and
precision of the snapshot are measured against. An element counts when it is a link, button,
field, summary, [onclick], contenteditable or ARIA widget, is rendered (checkVisibility with
opacity and visibility) at a non-zero size, and its frame is shown along the whole frame chain."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from waymark.eval.bench.snapshot import COUNTED_SELECTOR_JS

MARK = "data-wm-count"

#: The benchmark's definition of what counts (eval/bench/snapshot.py), for one document.
COUNT_JS = r"""
(attr) => {""" + COUNTED_SELECTOR_JS + r"""
  const found = [], ours = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll(SELECTOR)) found.push(el);
    for (const el of root.querySelectorAll(`[${attr}]`)) ours.push(el);
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
  };
  if (innerWidth > 0 && innerHeight > 0) visit(document);
  const describe = (el) => `${location.host} ${el.outerHTML.slice(0, 140)}`;
  const counted = new Set(found.filter((el) => {
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }));
  return {
    total: counted.size,
    marked: [...counted].filter((el) => el.hasAttribute(attr)).length,
    missed: [...counted].filter((el) => !el.hasAttribute(attr)).map(describe),
    listed: ours.length,
    extras: ours.filter((el) => !counted.has(el)).map(describe),
  };
}
"""

_SHOWN_JS = """(el) => {
  const r = el.getBoundingClientRect();
  return el.checkVisibility({opacityProperty: true, visibilityProperty: true}) && r.width > 0 && r.height > 0;
}"""


@dataclass
class Count:
    total: int = 0
    marked: int = 0
    listed: int = 0
    missed: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)
    #: Shown frames that could not be read (a document that never came).
    uncounted: int = 0

    @property
    def recall(self) -> float:
        return self.marked / self.total if self.total else 1.0

    @property
    def precision(self) -> float:
        return 1 - len(self.extras) / self.listed if self.listed else 1.0

    def __str__(self) -> str:
        return f"recall {self.recall:.1%} ({self.marked}/{self.total}), precision {self.precision:.1%} ({len(self.extras)} extra of {self.listed})"


async def _shown(frame: Any) -> bool:
    """Whether a frame is drawn: its iframe element and every one above it rendered, of some size."""
    while frame.parent_frame is not None:
        try:
            element = await frame.frame_element()
            if not await element.evaluate(_SHOWN_JS):
                return False
        except Exception:  # a frame detached while it was being asked shows nothing
            return False
        frame = frame.parent_frame
    return True


async def count(sw: Any, page: Any, tab_id: int, snapshot: dict[str, Any]) -> Count:
    """Mark the snapshot's elements in their frames, then count in every shown frame."""
    refs = [e["ref"] for e in snapshot["elements"]]
    await sw.evaluate("([t, r, a]) => globalThis.waymark.snapshot.markRefs(t, r, a)", [tab_id, refs, MARK])
    result = Count()
    for frame in page.frames:
        # A lazily loaded frame not yet near the viewport has no document: nothing to count.
        if frame.is_detached() or not frame.url or not await _shown(frame):
            continue
        try:
            one = await asyncio.wait_for(frame.evaluate(COUNT_JS, MARK), 20)
        except Exception:  # navigated away, or never got a document, while counted
            result.uncounted += 1
            continue
        result.total += one["total"]
        result.marked += one["marked"]
        result.listed += one["listed"]
        result.missed += one["missed"]
        result.extras += one["extras"]
    return result
