"""Guards on what an action did, judged on the page it left, in the order they run."""

from __future__ import annotations

import json
from typing import Any

from waymark.host.agent.guards.base import Finding, Guard, GuardContext
from waymark.host.agent.verifier import Predicate, key, unreachable_by_link
from waymark.host.core.actions import Scroll
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot


def _named(ref: int, snapshot: Snapshot) -> str:
    element = snapshot.find(ref)
    return f'[{ref}] {element.role} "{element.name[:60]}"' if element else f"[{ref}]"


class AfterDispatchGuard(Guard):
    """A rule over what an action did: it reads the browser's answer for it (`result`), given as an argument."""

    stage = "after_dispatch"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot, result: ActionResult | None = None) -> Finding | None:
        raise NotImplementedError


class ScrollMovedNothing(AfterDispatchGuard):
    """A scroll the browser reports moved nothing (the page or the list is at its end that way)
    did nothing for the step; the elements of the snapshot are acted on by their refs, in view or not."""

    name = "scroll_moved_nothing"
    strength = "refusal"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot, result: ActionResult | None = None) -> Finding | None:
        """`result`: what the browser answered for the action."""
        moved = (result.model_extra or {}).get("scroll") if isinstance(action, Scroll) and result is not None else None
        if not isinstance(moved, dict) or not moved.get("at_edge"):
            return None
        way = f"cannot scroll {action.direction} any further"
        if action.ref is None:
            return self.finding("already_done", f"the scroll moved nothing: the page {way}; act on an element of the snapshot by its ref, or answer done")
        named = _named(action.ref, snapshot)
        if moved.get("target") == "page":
            return self.finding("already_done", f"the scroll moved nothing: {named} is not inside a scrolling list, and the page {way}. "
                                                f"The snapshot lists every element of the page, in view or not: act on {named} directly by its ref")
        return self.finding("already_done", f"the scroll moved nothing: the list around {named} {way}; act on one of the elements the snapshot lists")


AFTER_DISPATCH: tuple[AfterDispatchGuard, ...] = (ScrollMovedNothing(),)


class UnreachableCheck(Guard):
    """A step's URL check that neither the page before the action nor the page after it leads to
    (no link, not the URL) is a guess of the plan: it is dropped from the step, which is judged by
    its other checks, instead of failing an action that may have been right."""

    name = "unreachable_check"
    stage = "after_dispatch"
    strength = "advisory"

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        raise NotImplementedError("judged over a step's checks: use dropped()")

    def dropped(self, predicates: list[Predicate], failed: set[str], unreachable_before: set[str],
                latest: Snapshot) -> tuple[list[Predicate], Finding | None]:
        """The checks kept, and the finding naming those dropped (None when none are)."""
        stuck = {key(p.to_json()) for p in unreachable_by_link(predicates, latest)} & failed & unreachable_before
        if not stuck:
            return predicates, None
        kept = [p for p in predicates if key(p.to_json()) not in stuck]
        named = ", ".join(json.dumps(p.to_json()) for p in predicates if key(p.to_json()) in stuck)
        return kept, self.finding("unreachable_check", f"no link on the page before or after the action leads to a URL that meets {named}: "
                                                       "the check is dropped and the step judged by the others")


UNREACHABLE_CHECK = UnreachableCheck()
