"""The agent's guards: named rules that hold on any website, each a `(context, action, snapshot)
-> Finding | None` in one of three ordered lists (before dispatch, after dispatch, at conclusion).
An after-dispatch guard is also given the browser's answer for the action; a conclusion guard reads
a frozen view of the run, the claim and the final page, and the list of them is attached per run.
docs/guards.md has the table of them."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.guards.after_dispatch import AFTER_DISPATCH, UNREACHABLE_CHECK
from waymark.host.agent.guards.base import (
    Finding,
    Guard,
    GuardContext,
    action_key,
    told_key,
)
from waymark.host.agent.guards.before_dispatch import BEFORE_DISPATCH
from waymark.host.agent.guards.conclusion import (
    CONCLUSION,
    Conclusion,
    ConclusionGuard,
    conclude,
)
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot

__all__ = ["AFTER_DISPATCH", "BEFORE_DISPATCH", "CONCLUSION", "Conclusion", "ConclusionGuard", "Finding", "Guard", "GuardContext", "UNREACHABLE_CHECK",
           "action_key", "after_dispatch", "all_guards", "before_dispatch", "conclude"]


def before_dispatch(context: GuardContext, action: Any, snapshot: Snapshot) -> tuple[Finding | None, list[Finding]]:
    """Run the before-dispatch guards in order. Returns the finding that holds the action back
    (None: dispatch it) and every finding made. An advisory already told for this action on this
    page is overruled by the model giving the action again: it is recorded and the guards go on.
    The run's state remembers which advisory was told (host.agent.run_state); this reads it only."""
    findings: list[Finding] = []
    for guard in BEFORE_DISPATCH:
        found = guard.check(context, action, snapshot)
        if found is None:
            continue
        if found.strength == "advisory" and told_key(found, action, snapshot) in context.told:
            findings.append(found.model_copy(update={"overruled": True}))
            continue
        findings.append(found)
        return found, findings
    return None, findings


def after_dispatch(context: GuardContext, action: Any, snapshot: Snapshot, result: ActionResult) -> Finding | None:
    """The first finding of the after-dispatch guards on the page the action left, given what the
    browser answered for it (None: judge the step)."""
    for guard in AFTER_DISPATCH:
        found = guard.check(context, action, snapshot, result)
        if found is not None:
            return found
    return None


def all_guards() -> list[Guard]:
    """Every guard, in stage order (the docs' table lists them so)."""
    return [*BEFORE_DISPATCH, *AFTER_DISPATCH, UNREACHABLE_CHECK, *CONCLUSION]
