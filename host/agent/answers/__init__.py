"""Answers a program can use: `done` carries `data`, validated against the caller's output schema
(JSON Schema Draft 2020-12) and grounded in text the run saw on its pages.

`Answers` is what one run holds: the schema, the text seen so far, and the judgement of the
answer. The agent loop calls it at four points: as it reads a page (`saw_snapshot`, `saw_text`),
when the executor answers `done` (`take`), and when the run concludes (`judge`).

- An answer that does not validate is sent back once with the validator's message; a second one
  ends the run as failed with that message, never as a success.
- Given a schema, an answer whose required values were not all found on a page the run saw is
  `unproven`, with the ungrounded values and their JSON paths; values that are not required are
  listed all the same. Data given without a schema (a model may add it unasked) is grounded and
  listed, and leaves the verdict as it is: no caller asked for it.
- A grounded answer is evidence of a task that asks to find something out: given an output
  schema, when every required value was found on a page, the run's answer is proven even where
  no step changed the page (reading changes nothing).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

from waymark.host.agent.answers.grounding import (
    GroundedValue,
    Grounding,
    SeenText,
    Source,
    element_text,
    ground,
)
from waymark.host.agent.answers.schema import (
    COMPUTED,
    SchemaProblem,
    check_schema,
    constrained,
    validation_error,
)
from waymark.host.core.snapshot import Snapshot

__all__ = ["Answers", "AnswerVerdict", "COMPUTED", "GroundedValue", "Grounding", "SchemaProblem", "SeenText", "Source",
           "answer_instructions", "check_schema", "constrained", "element_text", "ground", "ANSWER_INTENT"]

#: Times an answer that does not validate is sent back before the run fails with the validator's message.
RESENDS = 1
#: The intent of the step a run with an output schema ends with: worked on until the executor answers.
ANSWER_INTENT = "Answer the task: done with `data` that matches the output schema, each value copied from the page"


def answer_instructions(schema: dict[str, Any]) -> str:
    """What the executor is told of the answer it must give."""
    return ("When you answer done, give `data`: one JSON value that matches this JSON Schema, every value copied exactly as the "
            "page shows it (fields marked x-waymark-computed may be computed, e.g. a sum or a count): "
            + json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


class AnswerVerdict(BaseModel):
    """What becomes of a `done`: accepted, sent back (`retry`) with the reason, or the run fails with it."""

    kind: Literal["accepted", "retry", "failed"]
    message: str = ""


class Answers:
    """One run's answer: its schema, the text its pages showed, the data given and its grounding."""

    def __init__(self, schema: dict[str, Any] | None) -> None:
        self.schema = check_schema(schema) if schema is not None else None
        self.seen = SeenText()
        self.rejections = 0
        self.data: Any = None
        self.grounding: Grounding | None = None

    # ------------------------------------------------------------ what the run saw

    def saw_snapshot(self, snapshot: Snapshot) -> None:
        """Record a redacted snapshot the run read."""
        self.seen.snapshot(snapshot)

    def saw_text(self, url: str, title: str, text: str) -> None:
        """Record redacted page text the run read (extracted, or the page's readable text)."""
        self.seen.text(url, title, text)

    # ------------------------------------------------------------ the answer

    def wanted(self) -> bool:
        """Whether the caller asked for an answer (gave an output schema)."""
        return self.schema is not None

    def take(self, data: Any, result: str, success: bool) -> AnswerVerdict:
        """Judge a `done`'s data against the schema. Without `data`, a `result` that is JSON and
        validates is taken as the data (small models write the answer there)."""
        if not success:
            return AnswerVerdict(kind="accepted")
        if data is None and self.schema is not None:
            data = _json_or_none(result)
        if self.schema is None:
            self.data = data
            return AnswerVerdict(kind="accepted")
        problem = ("`data` is missing: give the answer as `data`, a JSON value matching the output schema" if data is None
                   else validation_error(data, self.schema))
        if problem is None:
            self.data = data
            return AnswerVerdict(kind="accepted")
        self.rejections += 1
        if self.rejections > RESENDS:
            return AnswerVerdict(kind="failed", message=f"the answer does not match the output schema: {problem}")
        return AnswerVerdict(kind="retry", message=(f"your answer's data does not match the output schema: {problem}. "
                                                    "Answer done again with data that matches it"))

    def judge(self, success: bool, outcome: str, reason: str) -> tuple[bool, str, str]:
        """The run's verdict with its answer judged: grounded, ungrounded (unproven) or missing (failed)."""
        if self.data is None:
            if success and self.schema is not None:
                return False, "failed", "the task asks for an answer matching the output schema, and the run gave none"
            return success, outcome, reason
        self.grounding = ground(self.data, self.schema, self.seen)
        missing = self.grounding.missing()
        if missing and self.schema is not None and (success or outcome == "unproven"):
            return False, "unproven", ("the answer holds values not found on any page the run saw: " + self.grounding.line(missing))
        # Grounded values prove an answer that changed nothing; an answer that holds no value to
        # ground ({}, []) proves nothing, however vacuously "every value" of it was found.
        if not missing and outcome == "unproven" and self.schema is not None and self.grounding.grounded:
            return True, "done", reason if not reason.startswith("nothing proves") else "every value of the answer was found on a page"
        return success, outcome, reason


def _json_or_none(text: str) -> Any:
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None
