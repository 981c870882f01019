"""Decision tasks: one executor turn on a recorded snapshot, judged against the expected tool call.

The executor is the agent's own (host.agent.executor.Executor), with the provider and model of
the run, so a decision task measures exactly what the agent would choose on that page.
"""

from __future__ import annotations

from typing import Any, AsyncIterator

from pydantic import BaseModel

from eval.tasks import ExpectedCall, Task
from providers.base import Capabilities, Completion, CompletionRequest, Delta, LLMProvider


class DecisionOutcome(BaseModel):
    passed: bool
    reason: str
    #: The decision as the executor made it (action JSON), or None when it made none.
    call: dict[str, Any] | None
    tokens_in: int
    tokens_out: int
    #: Unusable replies the executor answered with a reminder before deciding.
    retries: int


class _CountingProvider(LLMProvider):
    """Passes every call through and adds up the usage the backend reported (input and output)."""

    def __init__(self, inner: LLMProvider) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.name = inner.name
        self.tokens_in = 0
        self.tokens_out = 0

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    async def complete(self, request: CompletionRequest) -> Completion:
        completion = await self.inner.complete(request)
        if completion.usage:
            self.tokens_in += completion.usage.input_tokens
            self.tokens_out += completion.usage.output_tokens
        return completion

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        async for delta in self.inner.stream(request):
            if delta.usage:
                self.tokens_in += delta.usage.input_tokens
                self.tokens_out += delta.usage.output_tokens
            yield delta

    async def aclose(self) -> None:
        await self.inner.aclose()


def judge(expect: ExpectedCall, action: dict[str, Any], elements: list[dict[str, Any]]) -> tuple[bool, str]:
    """Whether `action` is the expected call on a snapshot with these elements, and why not."""
    if action.get("type") not in expect.types():
        return False, f"expected {' or '.join(expect.types())}, got {action.get('type')}"
    if expect.target is not None:
        ref = action.get("ref")
        element = next((e for e in elements if e.get("ref") == ref), None)
        if element is None:
            return False, f"{action.get('type')} on ref {ref}, which is not in the snapshot"
        if not expect.target.matches(element):
            wanted = expect.target.model_dump(exclude_none=True)
            return False, f"{action.get('type')} on [{ref}] {element.get('role')} {element.get('name')!r}, expected {wanted}"
    for key, value in expect.fields.items():
        if action.get(key) != value:
            return False, f"{key} is {action.get(key)!r}, expected {value!r}"
    for key, part in expect.fields_contain.items():
        if part.casefold() not in str(action.get(key) or "").casefold():
            return False, f"{key} is {action.get(key)!r}, expected it to contain {part!r}"
    return True, "the expected call"


async def decide_and_judge(task: Task, provider: str, model: str, options: dict[str, Any]) -> DecisionOutcome:
    """Build the provider, run one executor turn on the task's snapshot, judge the call."""
    from host.agent import prompts
    from host.agent.executor import Executor
    from host.snapshot import Snapshot
    from providers.registry import create

    assert task.expect is not None
    snapshot = Snapshot.model_validate(task.load_snapshot())
    counting = _CountingProvider(create(provider, model, **options))
    try:
        turn = await Executor(counting).decide(
            task=task.goal, intent=task.goal, verify=[], history=[], feedback=None,
            page=prompts.snapshot_block(snapshot.url, snapshot.title, snapshot.text, snapshot.tab_id),
            snapshot=snapshot, step_index=0, attempt=0, reminders=2,
        )
    finally:
        await counting.aclose()
    retries = len(turn.problems)
    if turn.decision is None:
        kinds = ", ".join(p.kind for p in turn.problems) or "none"
        return DecisionOutcome(passed=False, reason=f"no usable decision ({kinds})", call=None,
                               tokens_in=counting.tokens_in, tokens_out=counting.tokens_out, retries=retries)
    action = turn.decision.action.model_dump()
    elements = [e.model_dump() for e in snapshot.elements]
    passed, reason = judge(task.expect, action, elements)
    return DecisionOutcome(passed=passed, reason=reason, call=action,
                           tokens_in=counting.tokens_in, tokens_out=counting.tokens_out, retries=retries)
