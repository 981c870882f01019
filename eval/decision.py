"""Decision tasks: one executor turn on a recorded snapshot, judged against the expected tool call.

The executor is the agent's own (host.agent.executor.Executor), with the provider and model of
the run, so a decision task measures exactly what the agent would choose on that page.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from waymark.eval.tasks import ExpectedCall, Task
from waymark.host.core.snapshot import SnapshotElement
from waymark.host.core.targets import element_matches
from waymark.providers.spec import ModelSpec


class DecisionOutcome(BaseModel):
    passed: bool
    reason: str
    #: The decision as the executor made it (action JSON), or None when it made none.
    call: dict[str, Any] | None
    tokens_in: int
    tokens_out: int
    #: Unusable replies the executor answered with a reminder before deciding.
    retries: int
    #: Every raw answer of the turn, and the near-miss coercions the accepted one needed.
    answers: list[str] = []
    coercions: list[str] = []


def judge(expect: ExpectedCall, action: dict[str, Any], elements: list[dict[str, Any]]) -> tuple[bool, str]:
    """Whether `action` is the expected call on a snapshot with these elements, and why not."""
    if action.get("type") not in expect.types():
        return False, f"expected {' or '.join(expect.types())}, got {action.get('type')}"
    if expect.target is not None:
        ref = action.get("ref")
        element = next((e for e in elements if e.get("ref") == ref), None)
        if element is None:
            return False, f"{action.get('type')} on ref {ref}, which is not in the snapshot"
        if not element_matches(SnapshotElement.model_validate(element), expect.target):
            wanted = expect.target.model_dump(exclude_none=True)
            return False, f"{action.get('type')} on [{ref}] {element.get('role')} {element.get('name')!r}, expected {wanted}"
    for key, value in expect.fields.items():
        if action.get(key) != value:
            return False, f"{key} is {action.get(key)!r}, expected {value!r}"
    for key, part in expect.fields_contain.items():
        if part.casefold() not in str(action.get(key) or "").casefold():
            return False, f"{key} is {action.get(key)!r}, expected it to contain {part!r}"
    return True, "the expected call"


async def decide_and_judge(task: Task, spec: ModelSpec) -> DecisionOutcome:
    """Build the provider, run one executor turn on the task's snapshot, judge the call."""
    from waymark.host.agent import prompts
    from waymark.host.agent.executor import Executor
    from waymark.host.core.actions import SINGLE_TAB_ACTIONS
    from waymark.host.core.snapshot import Snapshot

    assert task.expect is not None
    snapshot = Snapshot.model_validate(task.load_snapshot())
    backend = spec.build()
    try:
        turn = await Executor(backend, timeout=spec.call_timeout(), temperature=spec.call_temperature()).decide(
            task=task.goal, intent=task.goal, verify=[], history=[], feedback=None,
            # A decision task's page is the task's one tab, as in an agent run with one tab.
            page=prompts.snapshot_block(snapshot.url, snapshot.title, snapshot.text, None),
            snapshot=snapshot, step_index=0, attempt=0, reminders=2, allowed=SINGLE_TAB_ACTIONS,
        )
    finally:
        await backend.aclose()
    retries = len(turn.problems)
    if turn.decision is None:
        kinds = ", ".join(p.kind for p in turn.problems) or "none"
        return DecisionOutcome(passed=False, reason=f"no usable decision ({kinds})", call=None,
                               tokens_in=turn.tokens_in, tokens_out=turn.tokens_out, retries=retries,
                               answers=turn.answers, coercions=turn.coercions)
    action = turn.decision.action.model_dump()
    elements = [e.model_dump() for e in snapshot.elements]
    passed, reason = judge(task.expect, action, elements)
    return DecisionOutcome(passed=passed, reason=reason, call=action,
                           tokens_in=turn.tokens_in, tokens_out=turn.tokens_out, retries=retries,
                           answers=turn.answers, coercions=turn.coercions)
