"""Measure how the JSON-in-text parser's cost grows with input size on adversarial shapes.

    .venv/bin/python -m tests.reliability.parser_scaling [--max 1000000]

Prints one row per shape: milliseconds at each size and the cost per kilobyte, so a
super-linear shape shows as a growing ms/KB. A measurement, never a test assertion.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

from waymark.host.agent.parsing import ParseFailure, parse_decision

#: Adversarial inputs of (about) n characters each.
SHAPES: dict[str, Callable[[int], str]] = {
    "open_braces": lambda n: "{" * n,
    "nested_closed": lambda n: '{"a":' * (n // 6) + "1" + "}" * (n // 6),
    "nested_arrays": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "nested_unclosed": lambda n: '{"a":[' * (n // 6),
    "escaped_quotes": lambda n: '{"a": "' + '\\"' * (n // 2),
    "prose_braces": lambda n: "{x} " * (n // 4),
    "many_roots": lambda n: '{"a":1} ' * (n // 8),
    "long_string": lambda n: '{"thought": "' + "x" * n + '", "action": {"type": "back"}}',
    "trailing_commas": lambda n: '{"action": {"type": "back",' + " ," * (n // 2) + "}}",
}


def cost_ms(text: str, repeat: int = 3) -> float:
    """The best of `repeat` parse times in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            parse_decision(text)
        except ParseFailure:
            pass
        best = min(best, time.perf_counter() - started)
    return best * 1000


def measure(max_size: int = 1_000_000) -> list[tuple[str, list[tuple[int, float]]]]:
    """(shape, [(size, ms), ...]) for sizes 1e3, 1e4, ... up to `max_size`."""
    sizes = [10**k for k in range(3, 7) if 10**k <= max_size]
    return [(name, [(n, cost_ms(make(n), repeat=3 if n < 10**6 else 1)) for n in sizes]) for name, make in SHAPES.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=1_000_000)
    args = parser.parse_args()
    rows = measure(args.max)
    sizes = [n for n, _ in rows[0][1]]
    print(f"{'shape':<18}" + "".join(f"{n:>12,}" for n in sizes) + f"{'ms/KB @max':>12}")
    for name, points in rows:
        ms_per_kb = points[-1][1] / (points[-1][0] / 1000)
        print(f"{name:<18}" + "".join(f"{ms:>10.2f}ms" for _, ms in points) + f"{ms_per_kb:>12.4f}")


if __name__ == "__main__":
    main()
