"""The MiniWoB++ task types split once into a tuning half and a held-out half, and the seeds
each type runs with.

The rule is fixed in code so nobody can move a type from one half to the other after seeing how
the agent does on it: a type is in the tuning half when the first byte of the SHA-256 of its
name is even. Rules and prompts are developed against traces of the tuning half only; the
held-out half is reported, never read trace by trace.

A type runs with `seeds` problems: its task file's own seed (the one its scripted solution was
written for) and the seeds after it. The order interleaves the halves and puts every type's
first seed before any type's second, so a run cut short by its time budget has covered the
types evenly, not the alphabet's first half.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from waymark.eval.tasks import Task, TaskError

Half = Literal["tuning", "heldout"]
HALVES: tuple[Half, ...] = ("tuning", "heldout")


def _digest(name: str) -> bytes:
    return hashlib.sha256(name.encode("utf-8")).digest()


def half_of(env: str) -> Half:
    """The half a MiniWoB++ task type belongs to, by the fixed rule (SHA-256 of its name)."""
    return "tuning" if _digest(env)[0] % 2 == 0 else "heldout"


def task_half(task: Task) -> Half | None:
    """The half of a MiniWoB++ task; None for tasks of other suites (they are not split)."""
    return half_of(task.miniwob.env) if task.miniwob is not None else None


def select_half(tasks: list[Task], half: Half | None) -> list[Task]:
    """The tasks of one half (all tasks when `half` is None); refuses a selection with no
    MiniWoB++ task, where a half means nothing."""
    if half is None:
        return tasks
    if half not in HALVES:
        raise TaskError(f"--half takes {' or '.join(HALVES)}, not {half!r}")
    if not any(t.miniwob is not None for t in tasks):
        raise TaskError("--half selects MiniWoB++ task types; this selection has none")
    return [t for t in tasks if task_half(t) == half]


def with_seeds(tasks: list[Task], seeds: int) -> list[Task]:
    """Each MiniWoB++ task once per seed (its own seed, then the next `seeds - 1`), in budget
    order: seed by seed, the types in the fixed hashed order. Other tasks pass unchanged, first."""
    if seeds < 1:
        raise TaskError(f"--seeds must be at least 1, not {seeds}")
    plain = [t for t in tasks if t.miniwob is None]
    typed = sorted((t for t in tasks if t.miniwob is not None), key=lambda t: _digest(t.id))
    expanded = [
        t if k == 0 else t.model_copy(update={"miniwob": t.miniwob.model_copy(update={"seed": t.miniwob.seed + k})})
        for k in range(seeds) for t in typed if t.miniwob is not None
    ]
    return plain + expanded
