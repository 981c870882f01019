"""The values a task gives the agent to enter: the executor is reminded of those not typed yet,
and the guards form_incomplete and missing_value (host.agent.guards) look for them.

An email address written in the task is a value the task is about (to enter, to find, to send
to); other words of a task (a button's label, a product's name) may rightly be gone from the
final page, so only email addresses are values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from waymark.host.core.targets import normalise

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def task_values(task: str) -> list[str]:
    """The email addresses a task gives, each once, in order."""
    return list(dict.fromkeys(m.group(0).rstrip(".") for m in _EMAIL.finditer(task)))


def untyped(values: Sequence[str], typed: Sequence[str]) -> list[str]:
    """The values the run has not typed yet, for the executor's reminder."""
    entered = normalise(" ".join(typed))
    return [v for v in values if normalise(v) not in entered]
