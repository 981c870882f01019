"""The verdicts of a run's steps and the outcomes of a run: the one place their names are spelled
(the side panel's types are generated from here by `waymark schema`)."""

from __future__ import annotations

from typing import Literal, get_args

#: How one attempt at a step ended: `passed` (a check changed to holding, or the step had none),
#: `unproven` (it acted but every check held before), `acted` (an open step acted; the executor
#: goes on), `retry` (the attempt did not pass; another follows), `failed`, `refused` (not
#: dispatched: policy, a tab not this task's), `done` (the executor ended the run), `answered` /
#: `unanswered` (ask_user), `blocked` / `declined` (policy, the user), `error` (the browser failed).
StepVerdict = Literal["passed", "unproven", "acted", "retry", "failed", "refused", "done", "answered", "unanswered",
                      "blocked", "declined", "error"]

#: How a run ended; `success` in the summary is true only with `done`.
RunOutcome = Literal["done", "failed", "unproven", "declined", "blocked", "cancelled", "error",
                     "budget_steps", "budget_replans", "budget_tokens", "budget_wall_clock"]

#: How a step's verdict reads to the user: `ok` (it went as asked), `bad` (it failed or was
#: stopped: the reason is the news), `warn` (neither: acted without proof, retried, unanswered, a
#: browser error). The side panel colours its badges by it (generated into agent_types.js).
StepTone = Literal["ok", "warn", "bad"]
STEP_VERDICT_TONES: dict[StepVerdict, StepTone] = {
    "passed": "ok", "done": "ok", "answered": "ok",
    "failed": "bad", "refused": "bad", "blocked": "bad", "declined": "bad",
    "unproven": "warn", "acted": "warn", "retry": "warn", "unanswered": "warn", "error": "warn",
}

STEP_VERDICTS: tuple[str, ...] = get_args(StepVerdict)
RUN_OUTCOMES: tuple[str, ...] = get_args(RunOutcome)
