"""The run summary's closing message where no `done` wrote one: a run that ends because its
plan's last step passed (or a new plan found nothing left) says what it did and how it ended,
instead of leaving the user an empty result."""

from __future__ import annotations

#: Most characters of the steps' list in the message.
_MOST = 600


def closing_message(steps_done: list[str], success: bool, reason: str) -> str:
    """What the run did (the intents of its steps that passed or acted) and its verdict's reason."""
    did = "; ".join(steps_done) or "no step"
    did = did if len(did) <= _MOST else did[:_MOST - 1] + "…"
    count = f"{len(steps_done)} step{'s' if len(steps_done) != 1 else ''}"
    if success:
        return f"Done: {reason} ({count}: {did})."
    return f"Not done: {reason} ({count} done: {did})."
