"""What a scheduled run has to tell: which counted answer fields changed since the last run that
answered, and whether that, a healed replay or a failure is worth a notification. Pure."""

from __future__ import annotations

from typing import Any

from waymark.host.workflows.model import Answer
from waymark.host.workflows.schedule import Change, RunEntry

_MISSING = object()


def _at(data: Any, parts: list[str | int]) -> Any:
    for part in parts:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return data


def changes(answer: Answer | None, fields: list[str], before: Any, now: Any) -> list[Change]:
    """The counted fields (all the answer's, when `fields` is empty) whose value differs between two answers."""
    if answer is None:
        return []
    out: list[Change] = []
    for value in answer.values:
        if fields and value.path not in fields:
            continue
        was, is_now = _at(before, value.parts), _at(now, value.parts)
        if was != is_now:
            out.append(Change(field=value.path, was=None if was is _MISSING else was, now=None if is_now is _MISSING else is_now))
    return out


def last_answer(runs: list[RunEntry]) -> tuple[bool, Any]:
    """(whether an earlier run answered, its answer): the first answer is compared with nothing."""
    for entry in reversed(runs):
        if entry.outcome == "done" and entry.answer is not None:
            return True, entry.answer
    return False, None


def worth_telling(entry: RunEntry) -> str:
    """Why the user should hear of this run, in a few words; empty when it is not worth a notification."""
    if entry.outcome != "done":
        return "failed"
    if entry.changed:
        return "answer changed"
    if entry.replay == "healed":
        return "healed"
    return ""


def message(workflow: str, entry: RunEntry) -> tuple[str, str]:
    """A notification's title and text for a run worth telling."""
    if entry.outcome != "done":
        return f"{workflow}: the scheduled run stopped", entry.reason[:300] or entry.outcome
    if entry.changed:
        said = "; ".join(f"{c.field.removeprefix('$.')}: {c.was} → {c.now}" for c in entry.changed)
        return f"{workflow}: the answer changed", said[:300]
    return f"{workflow}: replayed with a healed step", "the page changed and a step was found again another way"
