"""Joining streamed deltas: the one definition of what a stream means as a whole completion."""

from __future__ import annotations

import time
from typing import AsyncIterator, Iterable

from waymark.providers.base import Completion, Delta


def join_deltas(deltas: Iterable[Delta], *, model: str = "", latency_ms: float = 0.0) -> Completion:
    """The completion a sequence of deltas adds up to: texts concatenated, tool calls in order,
    the last finish_reason and usage given."""
    text: list[str] = []
    completion = Completion(model=model, latency_ms=latency_ms)
    finish = None
    for delta in deltas:
        text.append(delta.text)
        completion.tool_calls.extend(delta.tool_calls)
        if delta.finish_reason is not None:
            finish = delta.finish_reason
        if delta.usage is not None:
            completion.usage = delta.usage
    joined = "".join(text)
    completion.text = joined or None
    completion.finish_reason = finish or "stop"
    return completion


async def collect(stream: AsyncIterator[Delta], *, model: str = "") -> Completion:
    """Consume a stream and join it."""
    started = time.perf_counter()
    deltas = [delta async for delta in stream]
    return join_deltas(deltas, model=model, latency_ms=(time.perf_counter() - started) * 1000)
