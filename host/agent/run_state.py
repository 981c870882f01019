"""What a run (or a workflow's replay) knows of itself that its guards, its step judge and its
conclusion read: the task and its values, what it typed, the pages it reached, its secret fills,
the page it began on, and what its actions changed or did not.

The state is the one writer of these: the run and the judge tell it what happened through its
methods, and a guard is handed a frozen view of it (`view()`, a `GuardContext`) built at each
check, so no guard can change what the next one reads.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from waymark.host.agent import guards
from waymark.host.agent.effects import Effect, effect_keys
from waymark.host.agent.guards import Finding, GuardContext, action_key, told_key
from waymark.host.agent.secret_fills import SecretFills
from waymark.host.agent.task_values import task_values
from waymark.host.core.actions import Fill, Type
from waymark.host.core.snapshot import Snapshot, SnapshotElement


class RunState:
    """One run's state as its guards and judges see it; see the module docstring."""

    def __init__(self, task: str, values: list[str] | None = None) -> None:
        """`values`: the values the task gives to enter (default: those host.agent.task_values reads in it)."""
        self.task = task
        self.task_values = tuple(task_values(task) if values is None else values)
        #: What the run filled into secret fields: their value never leaves the page, so only this
        #: shows that a fill changes nothing or that a check of one holds. The verifier reads it
        #: live, as the run fills fields (host.agent.verifier.VerifyContext).
        self.secret_fills = SecretFills()
        #: The page the run began on and its readable text.
        self.start: Snapshot | None = None
        self.start_text = ""
        self._typed: list[str] = []
        self._visited: set[str] = set()
        self._without_effect: set[str] = set()
        self._effects: dict[str, Effect] = {}
        self._told: set[str] = set()

    @property
    def typed(self) -> tuple[str, ...]:
        """The texts this run typed, as the model wrote them (placeholders, never secrets)."""
        return tuple(self._typed)

    @property
    def visited(self) -> frozenset[str]:
        """The pages this run has acted on or reached: opening one again is never a made-up address."""
        return frozenset(self._visited)

    def began(self, start: Snapshot, text: str) -> None:
        """The run began on `start`, whose readable text is `text`: what held there proves nothing."""
        self.start, self.start_text = start, text

    def reached(self, *urls: str | None) -> None:
        """The run acted on or arrived at these pages."""
        self._visited.update(u for u in urls if u)

    def typed_into(self, url: str, element: SnapshotElement | None, action: Fill | Type, dispatched: str, secret: bool) -> None:
        """A fill or a typing was sent (`dispatched`: its text as sent, a placeholder resolved;
        `secret`: a secret went into the field)."""
        self.secret_fills.typed(url, element, action, dispatched, secret=secret)
        self._typed.append(action.text)

    def left_as_it_was(self, action: Any, before: Snapshot) -> None:
        """`action`, sent on `before`, left the page exactly as it was."""
        self._without_effect.add(action_key(action, before))

    def changed(self, action: Any, before: Snapshot, effect: Effect) -> None:
        """`action`, sent on `before`, changed the page so (for the current step's retries and replans)."""
        self._effects.update(dict.fromkeys(effect_keys(action, before), effect))

    def step_ended(self) -> None:
        """The current step passed or acted: what its actions changed matters no longer."""
        self._effects.clear()

    def before_dispatch(self, action: Any, snapshot: Snapshot) -> tuple[Finding | None, list[Finding]]:
        """The before-dispatch guards on a view of this state (host.agent.guards.before_dispatch);
        an advisory that holds the action back is remembered as told, so the same action given
        again overrules it."""
        held, findings = guards.before_dispatch(self.view(), action, snapshot)
        if held is not None and held.strength == "advisory":
            self._told.add(told_key(held, action, snapshot))
        return held, findings

    def view(self) -> GuardContext:
        """The state as guards read it now: frozen, and never changed by what happens after."""
        return GuardContext(task=self.task, task_values=self.task_values, typed=self.typed, visited=self.visited,
                            secret_fills=self.secret_fills.view(), start=self.start, start_text=self.start_text,
                            without_effect=frozenset(self._without_effect), effects=MappingProxyType(dict(self._effects)),
                            told=frozenset(self._told))
