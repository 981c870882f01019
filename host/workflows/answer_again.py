"""A replay's answer: the saved answer read again on the final page (host.workflows.reread), and,
when a value cannot be read again, asked of the executor once for that page (healing), grounded
as any run's answer is. A healed answer gives the words around each value as this page shows
them, for the workflow to read there next time.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.agent.answers import (
    ANSWER_INTENT,
    Answers,
    Grounding,
    SeenText,
    element_text,
    ground,
)
from waymark.host.agent.executor import Executor
from waymark.host.agent.prompts import snapshot_block
from waymark.host.core.actions import Done
from waymark.host.core.snapshot import Snapshot
from waymark.host.workflows.model import Answer
from waymark.host.workflows.reread import bound, reread, value_at
from waymark.host.workflows.save import NotSaveable, answer_from

#: Gives the executor to heal with, or None (no model configured, healing off).
HealExecutor = Callable[[], Awaitable[Executor | None]]


class AnswerAgain(BaseModel):
    """The answer a replay gives, and how it got it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    data: Any = None
    grounding: Grounding | None = None
    #: The paths whose value differs from the saved answer's.
    changed: list[str] = Field(default_factory=list)
    #: The values that could not be read again (path and the words looked for): empty when read or healed.
    missing: list[str] = Field(default_factory=list)
    #: The answer as this page shows it, when the executor healed it (None when it was read again or
    #: when the page gives no words around one of its values).
    healed: Answer | None = None
    model_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    #: Why the executor's answer was not taken (empty when it was, or none was asked).
    heal_problem: str = ""


async def answer_again(saved: Answer, values: dict[str, str], page: Snapshot, text: str, *, task: str, step_index: int,
                       executor: HealExecutor, attempts: int, timeout: float | None) -> AnswerAgain:
    """The saved answer on `page` (redacted, with its readable `text`): read again, else healed by
    the executor in up to `attempts` turns; `missing` names what neither could give."""
    answer = bound(saved, values)
    read = reread(answer, [text, page.title, *(element_text(e) for e in page.elements)])
    seen = SeenText()
    seen.snapshot(page)
    seen.text(page.url, page.title, text)
    if not read.missing:
        return AnswerAgain(data=read.data, grounding=ground(read.data, answer.output_schema, seen), changed=read.changed)
    out = AnswerAgain(missing=read.missing)
    model = await executor()
    if model is None:
        return out
    answers = Answers(answer.output_schema)
    feedback = ("This task's answer was read on this page before, and can no longer be read where it stood: " + "; ".join(read.missing)
                + ". Answer done with the data as this page shows it.")
    for attempt in range(1, attempts + 1):
        turn = await model.decide(task=task, intent=ANSWER_INTENT, verify=[], history=[], feedback=feedback,
                                  page=snapshot_block(page.url, page.title, page.text, None), snapshot=page, step_index=step_index,
                                  attempt=attempt, reminders=2, timeout=timeout, allowed=("done",))
        out.model_calls += turn.calls
        out.tokens_in += turn.tokens_in
        out.tokens_out += turn.tokens_out
        action = turn.decision.action if turn.decision is not None else None
        if not isinstance(action, Done) or not action.success:
            out.heal_problem = "the executor gave no answer"
            continue
        verdict = answers.take(action.data, action.result, True)
        if verdict.kind != "accepted" or answers.data is None:
            out.heal_problem = verdict.message or "the executor's answer has no data"
            feedback = verdict.message or feedback
            continue
        grounding = ground(answers.data, answer.output_schema, seen)
        if grounding.missing():
            out.heal_problem = "the executor's answer holds values not on this page: " + grounding.line(grounding.missing())
            feedback = out.heal_problem + ". Copy each value exactly as this page shows it."
            answers.data = None
            continue
        out.data, out.grounding, out.missing, out.heal_problem = answers.data, grounding, [], ""
        out.changed = [v.path for v in answer.values if v.value != value_at(answers.data, v.parts)]
        try:
            out.healed = answer_from(answers.data, answer.output_schema, [v.model_dump() for v in grounding.values], "this replay")
        except NotSaveable:
            out.healed = None  # a value with no words around it here: the answer stands, the file keeps its old places
        return out
    return out

