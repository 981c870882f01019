"""What a guard is: a named rule with one signature, `(context, action, snapshot) -> Finding | None`,
run at one stage of a step, with one of two strengths.

- A `refusal` stops the action (or, at conclusion, withholds success): only where the action
  physically cannot do what it claims (the page cannot scroll further that way, a secret field
  refilled with the same secret), or where the page contradicts the claimed outcome.
- An `advisory` guesses what was meant: the model is told once, and the same action given again
  is dispatched (as Playwright's `force` does). It is recorded in the trace and counted either way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from waymark.host.agent.effects import Effect
from waymark.host.agent.secret_fills import FilledSecrets
from waymark.host.core.snapshot import Snapshot

Stage = Literal["before_dispatch", "after_dispatch", "conclusion"]
Strength = Literal["refusal", "advisory"]


class Finding(BaseModel):
    """What one guard found about one action (or one claimed outcome)."""

    model_config = ConfigDict(extra="forbid")

    #: The guard's name (docs/guards.md lists them).
    guard: str
    stage: Stage
    strength: Strength
    #: What kind of finding, for the model's reminder (`already_done`, `value_missing`...).
    code: str
    #: What the model is told: the rule as it applies here, and what to do instead.
    message: str
    #: An advisory the model overruled by giving the same action again: it was dispatched.
    overruled: bool = False


@dataclass(frozen=True)
class GuardContext:
    """What guards know of the run besides the action and the page: a frozen view of the run's
    state (host.agent.run_state.RunState.view), built at each check; no guard can change it."""

    task: str
    #: The values the task gives to enter (host.agent.task_values), each once.
    task_values: tuple[str, ...] = ()
    #: The texts this run typed, as the model wrote them (placeholders, never secrets).
    typed: tuple[str, ...] = ()
    #: The pages this run has been on.
    visited: frozenset[str] = frozenset()
    secret_fills: FilledSecrets = field(default_factory=FilledSecrets)
    #: The page the run started on and its readable text.
    start: Snapshot | None = None
    start_text: str = ""
    #: Actions dispatched on a page that they left exactly as it was (`action_key`).
    without_effect: frozenset[str] = frozenset()
    #: What the actions sent for the current step (its retries, and the plans made after it failed)
    #: changed, by each of its `effect_keys`; a step that passes or acts unproven forgets them.
    effects: Mapping[str, Effect] = field(default_factory=lambda: MappingProxyType({}))
    #: Advisories already told, by `told_key`: the same action again overrules them.
    told: frozenset[str] = frozenset()


def _fields(action: Any) -> Any:
    return action.model_dump(mode="json") if isinstance(action, BaseModel) else action


def action_key(action: Any, snapshot: Snapshot) -> str:
    """An action's identity on one state of a page: its fields, the page's URL and the page's listing."""
    return json.dumps([_fields(action), snapshot.url, hashlib.sha256(snapshot.text.encode()).hexdigest()[:16]], sort_keys=True, default=str)


def told_key(finding: Finding, action: Any, snapshot: Snapshot) -> str:
    """An advisory's identity: the guard, the action and the page's URL (the page may change a little between turns)."""
    return json.dumps([finding.guard, _fields(action), snapshot.url], sort_keys=True, default=str)


class Guard:
    """A named rule. Subclasses set `name`, `stage`, `strength` and implement `check`; the
    docstring of each states its rule in terms that hold on any website."""

    name: ClassVar[str]
    stage: ClassVar[Stage]
    strength: ClassVar[Strength]

    def check(self, context: GuardContext, action: Any, snapshot: Snapshot) -> Finding | None:
        raise NotImplementedError

    def finding(self, code: str, message: str) -> Finding:
        return Finding(guard=self.name, stage=self.stage, strength=self.strength, code=code, message=message)
