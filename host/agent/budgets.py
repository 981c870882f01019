"""Budgets of one run: steps, retries per step, replans, wall clock and tokens.

Every limit is checked before the work it would pay for starts; exhausting one ends the run
with `BudgetExhausted(kind)` and that kind is the run's stop reason.
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BudgetKind = Literal["steps", "retries", "replans", "wall_clock", "tokens"]


class Budgets(BaseModel):
    """Limits of one agent run."""

    model_config = ConfigDict(extra="forbid")

    #: Executor turns (each asks the model for one action).
    max_steps: int = Field(default=40, ge=1, le=1000)
    #: Extra attempts at one plan step after its first one failed.
    retries_per_step: int = Field(default=2, ge=0, le=20)
    #: New plans after a required step failed.
    max_replans: int = Field(default=2, ge=0, le=20)
    wall_clock_s: float = Field(default=600.0, gt=0, le=24 * 3600)
    #: Input + output tokens reported by the providers.
    max_tokens: int = Field(default=500_000, ge=1)


class BudgetExhausted(Exception):
    """A budget ran out; `kind` names which."""

    def __init__(self, kind: BudgetKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class BudgetTracker:
    """Counts what a run has spent against its Budgets."""

    def __init__(self, budgets: Budgets, clock: "type[time.monotonic] | None" = None) -> None:
        self.budgets = budgets
        self._clock = clock or time.monotonic
        self.started = self._clock()
        self.steps = 0
        self.replans = 0
        self.tokens = 0
        self.tokens_in = 0
        self.tokens_out = 0

    def elapsed_s(self) -> float:
        return self._clock() - self.started

    def remaining_s(self) -> float:
        """Seconds left on the wall clock (never negative)."""
        return max(0.0, self.budgets.wall_clock_s - self.elapsed_s())

    def check_clock(self) -> None:
        if self.elapsed_s() >= self.budgets.wall_clock_s:
            raise BudgetExhausted("wall_clock", f"the run used its {self.budgets.wall_clock_s:g} s wall-clock budget")

    def check_tokens(self) -> None:
        if self.tokens >= self.budgets.max_tokens:
            raise BudgetExhausted("tokens", f"the run used {self.tokens} tokens of its {self.budgets.max_tokens} budget")

    def take_step(self) -> None:
        """Account one executor turn; raises when the step, clock or token budget is spent."""
        self.check_clock()
        self.check_tokens()
        if self.steps >= self.budgets.max_steps:
            raise BudgetExhausted("steps", f"the run took its {self.budgets.max_steps} steps")
        self.steps += 1

    def take_replan(self) -> None:
        """Account one replan; raises when none are left."""
        self.check_clock()
        self.check_tokens()
        if self.replans >= self.budgets.max_replans:
            raise BudgetExhausted("replans", f"the run used its {self.budgets.max_replans} replans")
        self.replans += 1

    def retries_left(self, attempts_made: int) -> bool:
        """Whether a plan step that has made `attempts_made` attempts may try again."""
        return attempts_made <= self.budgets.retries_per_step

    def add_tokens(self, tokens_in: int, tokens_out: int) -> None:
        """Account what one or more model calls reported, failed and rejected answers included."""
        self.tokens_in += max(0, tokens_in)
        self.tokens_out += max(0, tokens_out)
        self.tokens = self.tokens_in + self.tokens_out


#: Tokens kept free around the page in one executor call: the system prompt, the action format
#: or tool schemas, the task, the history and the answer.
PROMPT_RESERVE_TOKENS = 3000
#: Snapshot characters per token, on the low side (snapshot text runs at about 3.5).
CHARS_PER_TOKEN = 3
MIN_SNAPSHOT_CHARS, MAX_SNAPSHOT_CHARS = 2000, 20_000


def snapshot_chars(context_tokens: int) -> int:
    """How many snapshot characters fit a model with this context window beside the rest of the
    prompt (more is cut and paginated: the model scrolls for the rest)."""
    fit = (context_tokens - PROMPT_RESERVE_TOKENS) * CHARS_PER_TOKEN
    return max(MIN_SNAPSHOT_CHARS, min(MAX_SNAPSHOT_CHARS, fit))
