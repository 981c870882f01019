"""The values a task gives the agent to enter, checked before a claimed success is accepted.

A plan's success criteria are the planner's words, and a small model's can miss the point of the
task: after a newsletter was subscribed with an empty email field, the real model's criterion was
the confirmation page's title, which held. An email address written in the task is a value the
task is about (to enter, to find, to send to), so a success is accepted only when the run typed
it or the final page shows it. Other words of a task (a button's label, a product's name) may
rightly be gone from the final page, so only email addresses are held to this.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

from waymark.host.agent.verifier import shown_text
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import normalise

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def task_values(task: str) -> list[str]:
    """The email addresses a task gives, each once, in order."""
    return list(dict.fromkeys(m.group(0).rstrip(".") for m in _EMAIL.finditer(task)))


def untyped(values: list[str], typed: list[str]) -> list[str]:
    """The values the run has not typed yet: the executor is reminded of them, since the real
    model subscribed a newsletter with its email field left empty."""
    entered = normalise(" ".join(typed))
    return [v for v in values if normalise(v) not in entered]


def missing_values(values: list[str], typed: list[str], snapshot: Snapshot, page_text: str = "") -> list[str]:
    """The values the run never typed and the page (its text, fields, title and URL) does not show."""
    shown = shown_text(snapshot, page_text) + " " + normalise(unquote_plus(snapshot.url))
    entered = normalise(" ".join(typed))
    return [v for v in values if normalise(v) not in entered and normalise(v) not in shown]
