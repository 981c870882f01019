"""The parts of a task, and the parts a plan leaves out.

Asked to "Order 3 bouquets with gift wrap, rate the bouquet 4 stars and save the options", the
real 1.5B model planned one step, "Click the button 'Save options'": the order and the rating
were never planned, so never done. A task's clauses (split at commas, semicolons and "and") are
its parts; the planner is shown them, and a first plan with no step whose intent shares a telling
word with a part is sent back once, naming the part.
"""

from __future__ import annotations

import re

from waymark.host.agent.words import words

_SPLIT = re.compile(r"\s*[,;]\s+|\s+and\s+", re.IGNORECASE)


#: A clause opening with one of these says where or how, not what to do ("In Kanbanish, ...").
_SETTING = frozenset({"in", "on", "at", "from", "with", "for", "using", "via", "as"})


def task_parts(task: str) -> list[str]:
    """The task's clauses that ask for something, in order; none for a task of one clause."""
    # Kept as written, full stops too: shown "Ada L" for "Ada L.", a small model types "Ada L".
    parts = [p.strip() for p in _SPLIT.split(task.strip())]
    parts = [p for p in parts if words(p) and p.split()[0].casefold() not in _SETTING]
    return parts if len(parts) > 1 else []


def unplanned(parts: list[str], intents: list[str]) -> list[str]:
    """The parts no step's intent shares a telling word with (checks are not counted: their keys,
    "name" and "value", would cover any part that says them)."""
    planned = words(" ".join(intents))
    return [p for p in parts if not words(p) & planned]
