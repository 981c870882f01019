"""Counts and latency per provider and phase, for the side panel's diagnostics panel.

Latency statistics cover successful calls only: a call that failed fast (refused connection)
or slowly (timeout) says nothing about how fast the model answers, so it is counted under its
error code instead. The figures live in the host process and start afresh with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterator

from waymark.host.core.stats import quantile
from waymark.host.methods import CallContext, method
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    LLMProvider,
)
from waymark.providers.errors import error_code

#: Latencies kept per (provider, phase) for the percentiles.
WINDOW = 500

_lock = threading.Lock()


@dataclass
class _Series:
    calls: int = 0
    ok: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))


_series: dict[tuple[str, str], _Series] = {}


def record(provider: str, phase: str, *, ok: bool, latency_ms: float | None = None, error_code: str | None = None) -> None:
    """Count one call of `provider` in `phase` (chat, planner, executor, ...); latency only when ok."""
    with _lock:
        series = _series.setdefault((provider or "unknown", phase), _Series())
        series.calls += 1
        if ok:
            series.ok += 1
            if latency_ms is not None:
                series.latencies_ms.append(float(latency_ms))
        else:
            code = error_code or "error"
            series.errors[code] = series.errors.get(code, 0) + 1


@contextlib.contextmanager
def measure(provider: str, phase: str) -> Iterator[None]:
    """Record the enclosed block as one call: its latency if it returns, its error code if it raises."""
    start = time.perf_counter()
    try:
        yield
    except BaseException as exc:
        code = "cancelled" if isinstance(exc, asyncio.CancelledError) else error_code(exc)
        record(provider, phase, ok=False, error_code=code)
        raise
    record(provider, phase, ok=True, latency_ms=(time.perf_counter() - start) * 1000)


class MeasuredProvider(LLMProvider):
    """A provider whose every `complete` call is recorded under its registry name and the
    request's role (planner, executor, ...): how agent runs feed the diagnostics. Streams are
    passed through unmeasured; chat measures its own streamed turns."""

    def __init__(self, inner: LLMProvider) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.name = inner.name

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    async def complete(self, request: CompletionRequest) -> Completion:
        with measure(self.inner.name, str(request.metadata.get("role") or "chat")):
            return await self.inner.complete(request)

    def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        return self.inner.stream(request)

    async def ping(self, timeout: float = 3.0) -> str:
        return await self.inner.ping(timeout)

    async def model_ids(self, timeout: float = 3.0) -> list[str] | None:
        return await self.inner.model_ids(timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()


def summary() -> list[dict[str, Any]]:
    """One row per (provider, phase): calls, ok, errors by code, and success-only latency."""
    rows = []
    with _lock:
        items = sorted(_series.items())
        for (provider, phase), series in items:
            values = sorted(series.latencies_ms)
            latency = None
            if values:
                latency = {
                    "n": len(values),
                    "mean_ms": round(statistics.fmean(values), 1),
                    "p50_ms": round(quantile(values, 0.5), 1),
                    "p95_ms": round(quantile(values, 0.95), 1),
                    "max_ms": round(values[-1], 1),
                }
            rows.append({"provider": provider, "phase": phase, "calls": series.calls, "ok": series.ok,
                         "errors": dict(series.errors), "latency": latency})
    return rows


def reset() -> None:
    """Forget every figure."""
    with _lock:
        _series.clear()


@method("diagnostics.get")
async def diagnostics_get(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Counts and success-only latency per provider and phase since the host started."""
    return {"rows": summary()}


@method("diagnostics.reset")
async def diagnostics_reset(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Start the figures afresh."""
    reset()
    return {"rows": []}
