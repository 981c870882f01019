"""The statistics the eval's claims rest on: Wilson intervals for a pass rate, the exact McNemar
test and Tango's score interval for the change between two runs of the same tasks.

Pure functions on counts (math.comb, square roots, a bisection): no statistics package needed.
"""

from __future__ import annotations

import math

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(passed: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate (passed of n); (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = passed / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return max(0.0, (centre - half) / denominator), min(1.0, (centre + half) / denominator)


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value: under no change, each discordant pair (passed on one side
    only) goes either way with probability 1/2. 1.0 with no discordant pair."""
    n = fixed + broken
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(fixed, broken) + 1)) / 2**n
    return min(1.0, 2 * tail)


def _tango_score(delta: float, b: int, c: int, n: int) -> float:
    """Tango's score statistic for a difference `delta` of the paired rates, b pairs passed by B
    only and c by A only: the observed difference against delta, over its standard error at the
    constrained maximum-likelihood estimate of the A-only rate (the root of
    2n q^2 + W q - c delta (1 - delta) = 0)."""
    w = -b - c + (2 * n - b + c) * delta
    q = (math.sqrt(max(0.0, w * w + 8 * n * c * delta * (1 - delta))) - w) / (4 * n)
    variance = n * (2 * q + delta * (1 - delta))
    gap = b - c - n * delta
    if variance <= 0:
        return math.copysign(math.inf, gap) if gap else 0.0
    return gap / math.sqrt(variance)


def paired_difference_interval(both: int, only_a: int, only_b: int, neither: int, z: float = Z95) -> tuple[float, float]:
    """Tango's score interval (1998) for the paired difference of pass rates, B's minus A's,
    from the 2x2 table of pairs: passed by both, by A only, by B only, by neither. Unlike the
    Wald interval it stays inside [-1, 1] and is not zero-width when no pair differs (then it is
    Wilson's interval for 0 of n, mirrored)."""
    n = both + only_a + only_b + neither
    if n == 0:
        return -1.0, 1.0
    b, c = only_b, only_a
    estimate = (b - c) / n

    def bound(toward: float, target: float) -> float:
        # The score falls as delta rises: bisect between the estimate and the end it heads to,
        # for the delta where it crosses `target`.
        inside, outside = estimate, toward
        if abs(_tango_score(outside, b, c, n)) <= z:
            return outside
        for _ in range(100):
            middle = (inside + outside) / 2
            if (_tango_score(middle, b, c, n) - target) * (1 if target > 0 else -1) > 0:
                outside = middle
            else:
                inside = middle
        return inside

    return bound(-1.0, z), bound(1.0, -z)
