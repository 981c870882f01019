"""The one way Waymark summarises timings and sizes: the median and the 90th percentile by
nearest rank, for `waymark bench` and the host's own diagnostics."""

from __future__ import annotations

import statistics
from typing import Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile of `values` by nearest rank (q=0.9: the p90). `values` must not be empty."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def spread(values: Sequence[float], *, suffix: str = "", digits: int = 1, count: bool = False,
           bounds: bool = False) -> dict[str, float]:
    """`median{suffix}` and `p90{suffix}` of non-empty `values`, rounded to `digits`; with
    `count` also `n`, with `bounds` also `min{suffix}` and `max{suffix}`."""
    out: dict[str, float] = {"n": len(values)} if count else {}
    out[f"median{suffix}"] = round(statistics.median(values), digits)
    out[f"p90{suffix}"] = round(quantile(values, 0.9), digits)
    if bounds:
        out[f"min{suffix}"] = round(min(values), digits)
        out[f"max{suffix}"] = round(max(values), digits)
    return out
