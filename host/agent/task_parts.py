"""The parts of a task, listed for the planner.

Asked to "Order 3 bouquets with gift wrap, rate the bouquet 4 stars and save the options", the
real 1.5B model planned one step, "Click the button 'Save options'": the order and the rating
were never planned, so never done. A task's clauses (split at commas, semicolons and "and") are
its parts, and the planner is shown them. A plan that leaves one out is not sent back: told so
once, the model dropped the right answer of its first plan (Reject non-essential) for Accept all.
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
