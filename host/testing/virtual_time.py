"""An event loop whose clock jumps ahead when nothing is ready, for tests over the fake browser.

The agent waits on purpose (a check is read again after 0.5 s, 1 s, 2 s... since a real page may
still be changing); a scripted page changes only when acted on, so those waits prove nothing and
only cost time. On this loop a sleep, a timeout and the run's budget all read the loop's clock,
which moves straight to the next timer whenever no callback is ready and no I/O is waiting: the
same waits happen in the same order, in no time. For code with no real I/O of its own.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _JumpingSelector(selectors.DefaultSelector):
    """A selector that never blocks: a wait for `timeout` s moves the loop's clock on by it instead."""

    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if not ready and timeout:
            self._loop.advance(timeout)
        return ready


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector loop on a clock of its own that starts at 0."""

    def __init__(self) -> None:
        self._now = 0.0
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds


def run_instantly(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)` on a `VirtualTimeLoop`: its sleeps and timeouts take no wall time."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(coro)
