"""The values a task gives the agent to enter, checked before a button sends the form and before
a claimed success is accepted.

A plan's success criteria are the planner's words, and a small model's can miss the point of the
task: after a newsletter was subscribed with an empty email field, the real model's criterion was
the confirmation page's title, which held. An email address written in the task is a value the
task is about (to enter, to find, to send to), so a success is accepted only when the run typed
it or the final page shows it. Other words of a task (a button's label, a product's name) may
rightly be gone from the final page, so only email addresses are held to this.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote_plus

from waymark.host.agent.verifier import shown_text
from waymark.host.core.snapshot import Snapshot, SnapshotElement
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


def pressed_before_filled(action: Any, snapshot: Snapshot, values: list[str]) -> str | None:
    """Why a press on a form's button now would send the form without a value the task gives: an
    email address the run has not typed yet while the same form's email field is empty. The real
    model clicked Subscribe, thinking the email field "already filled", and the newsletter was
    subscribed with no address; the submission cannot be taken back. Buttons of other forms, or
    of none, are not held back: they send nothing of that field."""
    ref = getattr(action, "ref", None)
    button = snapshot.find(ref) if values and action.type in ("click", "press") and ref is not None else None
    if button is None or button.role != "button" or button.form is None:
        return None
    field = next((e for e in snapshot.elements if (e.frame, e.doc, e.form) == (button.frame, button.doc, button.form)
                  and _empty_email_field(e)), None)
    if field is None:
        return None
    return (f'the task gives {values[0]}, which this run has not typed, and [{field.ref}] textbox "{field.name}" is empty: '
            f'fill it before you press [{button.ref}] button "{button.name}"')


def _empty_email_field(element: SnapshotElement) -> bool:
    said = " ".join(t for t in (element.name, element.placeholder, element.field) if t).casefold()
    return (element.role == "textbox" and not element.value and not element.states.get("has_value")
            and ("email" in said or "e-mail" in said))
