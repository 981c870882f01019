"""The parts of a task: listed for the planner, and each one needing evidence before a success
resting on success criteria alone is accepted.

A plan that leaves out a part of the task never does it. A task's clauses (split at commas,
semicolons and "and") are its parts, and the planner is shown them. A plan that leaves one out is not sent back: told so
once, the model dropped the right answer of its first plan (Reject non-essential) for Accept all.
"""

from __future__ import annotations

import re
from typing import Any

from waymark.host.agent.words import words

_SPLIT = re.compile(r"\s*[,;]\s+|\s+and\s+", re.IGNORECASE)


#: A clause opening with one of these says where or how, not what to do ("In Kanbanish, ...").
_SETTING = frozenset({"in", "on", "at", "from", "with", "for", "using", "via", "as"})


def task_parts(task: str) -> list[str]:
    """The task's clauses that ask for something, in order; none for a task of one clause."""
    # Kept as written, full stops too: a value shown without its last character is typed without it.
    parts = [p.strip() for p in _SPLIT.split(task.strip())]
    parts = [p for p in parts if words(p) and p.split()[0].casefold() not in _SETTING]
    return parts if len(parts) > 1 else []


def parts_unnamed(task: str, predicates: list[dict[str, Any]]) -> list[str]:
    """The task's parts that share no word with any of `predicates` (their texts, names and
    values; not their kinds). Words differ between a task and a site, so this is advice
    (host.agent.guards.conclusion.PartsUnnamed), never a verdict."""
    said: set[str] = set()
    for predicate in predicates:
        said |= words(" ".join(_texts(predicate)))
    return [part for part in task_parts(task) if not any(_alike(w, s) for w in words(part) for s in said)]


def _alike(one: str, other: str) -> bool:
    """The same word, or one a form of the other ("save" and "saved=1", "order" and "ordered")."""
    return one == other or (min(len(one), len(other)) >= 4 and (one.startswith(other) or other.startswith(one)))


def _texts(value: Any) -> list[str]:
    """The string leaves of a predicate (dict values, list items), not its keys."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []
