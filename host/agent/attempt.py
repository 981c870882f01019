"""What one attempt at a plan step gives back: a typed outcome the loop (and a workflow replay)
matches on, never a tuple whose None means "retry".

Each stage of an attempt (the executor's turn, admission, dispatch, the step judge, a host action)
ends it with one of these, carrying the step event's verdict as that stage judged it
(`StepEvent`); the caller adds it to the attempt's record and emits the event once. No stage emits
a step event itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from waymark.host.agent.verdicts import RunOutcome, StepVerdict
from waymark.host.core.snapshot import Snapshot


class StepOutcome(BaseModel):
    """How a step ended (its attempts' verdicts are in the trace)."""

    verdict: Literal["passed", "unproven", "failed", "done"]
    reason: str = ""
    #: What proved a passed step: a check that changed from failing to holding (`check`), such
    #: checks that hold only because of what the run typed (`typing`), or only because the address
    #: changed, as any navigation makes it (`navigation`: host.agent.verifier.says_outcome), the
    #: element acted on going to the state the action sets (`state`, host.agent.target_state);
    #: None: nothing (no checks).
    proved_by: Literal["check", "typing", "navigation", "state"] | None = None
    success: bool = False
    result: str = ""
    attempts: int = 0


@dataclass(frozen=True)
class StepEvent:
    """The verdict part of one attempt's step event: `verdict`, `reason` and any evidence fields
    (`checks`, `changed`, `error`...) merged into the record as they are."""

    verdict: StepVerdict
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def event(verdict: StepVerdict, reason: str = "", **extra: Any) -> StepEvent:
    """A step event's verdict, with its evidence fields as keywords."""
    return StepEvent(verdict, reason, extra)


@dataclass(frozen=True)
class Retry:
    """The step goes on with another turn, on `snapshot`: `feedback` tells the model why (None:
    nothing went wrong, as when an open step acted or the user answered a question)."""

    event: StepEvent
    snapshot: Snapshot
    feedback: str | None = None


@dataclass(frozen=True)
class Ended:
    """The step ended (passed, unproven, failed or done, as `outcome` says) on `snapshot`."""

    event: StepEvent
    snapshot: Snapshot
    outcome: StepOutcome


@dataclass(frozen=True)
class Stopped:
    """The run (or replay) ends here, with `outcome` and `reason` (a refusal that ends it: a
    destructive action declined, a page the policy does not allow)."""

    event: StepEvent
    outcome: RunOutcome
    reason: str


#: What the step judge gives back (it never ends a run: only a refusal does).
Judged = Retry | Ended
#: What an attempt gives back.
Attempted = Retry | Ended | Stopped
