"""Where an agent step spends its time, told to whoever listens (`waymark bench`'s host section):
code marks its phases with `@timed("prompt")`, and a listener set with `listening(...)` hears
when each begins and what CPU and wall time it took. With nobody listening a mark costs one
context-variable read; nothing is patched."""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Protocol, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class PhaseListener(Protocol):
    """Hears the phases of the code running in its context."""

    def begin(self, phase: str) -> None:
        """A phase starts."""

    def end(self, phase: str, cpu_s: float, wall_s: float) -> None:
        """A phase ended after this much CPU time (of this thread) and wall time."""


_listener: ContextVar[PhaseListener | None] = ContextVar("waymark_phase_listener", default=None)


@contextlib.contextmanager
def listening(listener: PhaseListener) -> Iterator[None]:
    """Tell `listener` of every timed phase run in this context (tasks started in it included)."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def timed(phase: str) -> Callable[[F], F]:
    """Mark a function (sync or async) as one `phase` of the agent's work."""

    def mark(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                listener = _listener.get()
                if listener is None:
                    return await fn(*args, **kwargs)
                listener.begin(phase)
                cpu, wall = time.thread_time(), time.perf_counter()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    listener.end(phase, time.thread_time() - cpu, time.perf_counter() - wall)
            return timed_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def timed_sync(*args: Any, **kwargs: Any) -> Any:
            listener = _listener.get()
            if listener is None:
                return fn(*args, **kwargs)
            listener.begin(phase)
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                listener.end(phase, time.thread_time() - cpu, time.perf_counter() - wall)
        return timed_sync  # type: ignore[return-value]

    return mark
