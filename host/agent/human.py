"""The person in the loop: questions (`ask_user`) and confirmations of destructive actions.

The run asks through a `Human`; the host method `agent.run` provides one that streams the
question to the caller and waits for `agent.answer`.
"""

from __future__ import annotations

import abc
from typing import Any


class Human(abc.ABC):
    """Where a run's questions go."""

    @abc.abstractmethod
    async def ask(self, question: str) -> str | None:
        """The user's answer to a question, or None when nobody answered."""

    @abc.abstractmethod
    async def confirm(self, request: dict[str, Any]) -> bool:
        """True when the user approved the destructive action described by `request`."""


class NobodyHome(Human):
    """No one to ask: every question goes unanswered and every confirmation is declined."""

    async def ask(self, question: str) -> str | None:
        return None

    async def confirm(self, request: dict[str, Any]) -> bool:
        return False
