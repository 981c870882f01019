"""Deterministic repair: cheap, model-free fixes tried before the model is asked again.

After an action failed without acting (occluded, not visible, timeout waiting to be
actionable): wait for the page to settle, close a reported occluder when the policy allows,
and try the same action on the same ref once more; it never re-binds a ref by name. After a
failed check: wait for settle and look again, scrolling when the snapshot is paginated.
"""

from __future__ import annotations

import asyncio
import re

from pydantic import BaseModel, ConfigDict

from waymark.host.agent.confirm import Policy
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.verifier import Expectation, Verification
from waymark.host.core.actions import Click, Press, Scroll, Wait
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot, box_inside

#: Names of controls that close an overlay without committing to anything.
CLOSE_NAME = re.compile(
    r"^(x|×|✕|✖)$|\b(close|dismiss|no,? thanks|not now|maybe later|skip|continue shopping|got it|cancel)\b", re.IGNORECASE
)
#: Codes for which the action did nothing, so trying it again cannot do it twice (a timeout
#: may have come after the input landed, so it is not one of them). `not_selected`: the widget
#: showed no sign of the press (its script still loading, say), so nothing was chosen.
#: `press_lost`: the press never reached the target's document, so the target was not pressed.
DID_NOT_ACT = frozenset({"occluded", "not_visible", "disabled", "not_selected", "press_lost"})
SETTLE_WAIT_MS = 400


class Repair(BaseModel):
    """What a repair did, and what it produced."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    notes: list[str]
    result: ActionResult | None = None
    snapshot: Snapshot | None = None
    verification: Verification | None = None


def occluder_ref(result: ActionResult) -> int | None:
    """The ref of the element the extension reported as covering the target."""
    data = result.error.data if result.error else {}
    for key in ("occluder_ref", "occluder", "by"):
        value = data.get(key)
        if isinstance(value, dict):
            value = value.get("ref")
        if isinstance(value, int):
            return value
    return None


def close_control(snapshot: Snapshot, occluder: int | None) -> int | None:
    """A button or link that closes the occluder: inside its box when the box is known."""
    outer = snapshot.find(occluder).bbox if occluder is not None and snapshot.find(occluder) else None
    for element in snapshot.elements:
        if element.role.lower() not in ("button", "link") or not CLOSE_NAME.search(element.name.strip()):
            continue
        if outer is None or box_inside(element.bbox, outer):
            return element.ref
    return None


async def after_action_error(session: BrowserSession, policy: Policy, admitted: Admitted, result: ActionResult) -> Repair:
    """Try to make a failed action possible and dispatch it once more, as it was admitted (under the
    same secret origins, when it types a secret); never for stale refs. The repair's own presses
    are admitted by the run's admission like any action."""
    code = result.error.code if result.error else ""
    if code not in DID_NOT_ACT:
        return Repair(notes=[])
    # The failure the repair answers: the step's trace keeps it when the repair works.
    notes = [f"the action failed with {code}: {result.error.message if result.error else ''}"]
    await session.admit_and_act(Wait(ms=SETTLE_WAIT_MS), snapshot_after=False)
    notes.append(f"waited {SETTLE_WAIT_MS} ms for the page to settle")
    if code == "occluded":
        if not policy.dismiss_occluders:
            notes.append("an overlay covers the target; the policy does not allow closing it")
            return Repair(notes=notes, snapshot=await session.snapshot())
        occluder = occluder_ref(result)
        pressed = await session.admit_and_act(Press(key="Escape"))
        notes.append("pressed Escape to close the overlay")
        snap = pressed.snapshot or await session.snapshot()
        if occluder is not None and snap.find(occluder) is not None:
            close = close_control(snap, occluder)
            if close is not None:
                closed = await session.admit_and_act(Click(ref=close), snap)
                notes.append(f'clicked [{close}] "{snap.find(close).name}" to close the overlay')  # type: ignore[union-attr]
                snap = closed.snapshot or snap
    retried = await session.act(admitted)
    notes.append("tried the same action on the same ref again" + (" — it worked" if retried.ok else f" — {retried.error.code if retried.error else 'failed'}"))
    return Repair(notes=notes, result=retried, snapshot=retried.snapshot)


async def after_failed_check(session: BrowserSession, expectation: Expectation, snapshot: Snapshot) -> Repair:
    """Look again after a settle wait, and further down a paginated snapshot."""
    notes = [f"waited {SETTLE_WAIT_MS} ms and took a fresh snapshot"]
    await asyncio.sleep(SETTLE_WAIT_MS / 1000)
    snap = await session.snapshot()
    verdict = await expectation.judge(snap)
    if not verdict.ok and snap.next_offset:
        scrolled = await session.admit_and_act(Scroll(direction="down"))
        notes.append("scrolled down: the snapshot did not fit in one page")
        snap = scrolled.snapshot or await session.snapshot()
        verdict = await expectation.judge(snap)
    return Repair(notes=notes, snapshot=snap, verification=verdict)
