"""Run a test selection many times and count each test's failures: the flake hunt.

    python -m tests.repeat -n 20                      # the e2e suite 20 times, shuffled
    python -m tests.repeat -n 50 tests/e2e/test_faults_dispatch.py::test_x --no-shuffle
    python -m tests.repeat -n 5 --load 2              # with two CPU-burning processes beside it

Each run is a fresh pytest process (a fresh browser), with its own seed when shuffled: the order
of modules and of the tests inside each module changes, so a test that leans on state left by
its neighbour shows up. The report lists every test that failed at least once, how often, and
the seed and first lines of each failure, and the exit code is 1 when anything failed. The whole
pytest output of every failing run is kept in `repeat-reports/` (git-ignored).
A flaky test is fixed at its cause, never retried into green.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "repeat-reports"
SEED_ENV = "WAYMARK_TEST_SHUFFLE_SEED"


# ------------------------------------------------------------------ pytest plugin (-p tests.repeat)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Shuffle modules, then the tests inside each module, by the seed in the environment."""
    seed = os.environ.get(SEED_ENV)
    if not seed:
        return
    rng = random.Random(int(seed))
    by_module: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_module.setdefault(str(item.fspath), []).append(item)
    modules = list(by_module)
    rng.shuffle(modules)
    shuffled: list[pytest.Item] = []
    for module in modules:
        tests = by_module[module]
        rng.shuffle(tests)
        shuffled.extend(tests)
    items[:] = shuffled


# ------------------------------------------------------------------ the loop


def _burn(stop_at: float) -> None:
    """One core's worth of load until `stop_at`."""
    x = 0
    while time.monotonic() < stop_at:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF


def _failures(junit: Path) -> dict[str, str]:
    """Test id -> first lines of its failure or error, from one run's JUnit XML."""
    if not junit.exists():
        return {"<pytest crashed before writing a report>": ""}
    failed: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        for kind in ("failure", "error"):
            node = case.find(kind)
            if node is not None:
                test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
                text = (node.get("message") or node.text or "").strip()
                failed[test_id] = f"{kind}: {text[:300]}"
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.repeat", description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=20, help="how many runs (default 20)")
    parser.add_argument("--no-shuffle", action="store_true", help="keep pytest's order")
    parser.add_argument("--seed", type=int, default=None, help="seed of the first run (default: random)")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="busy N extra processes while the runs go")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the tally as JSON")
    parser.add_argument("selection", nargs="*", help="pytest paths or node ids (default: the e2e suite)")
    args = parser.parse_args(argv)

    selection = args.selection or ["-m", "e2e"]
    first_seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    runs: list[dict] = []
    burners: list[multiprocessing.Process] = []
    if args.load:
        stop_at = time.monotonic() + 24 * 3600
        burners = [multiprocessing.Process(target=_burn, args=(stop_at,), daemon=True) for _ in range(args.load)]
        for proc in burners:
            proc.start()
    try:
        with tempfile.TemporaryDirectory(prefix="waymark-repeat-") as tmp:
            for n in range(args.runs):
                seed = first_seed + n
                junit = Path(tmp) / f"run{n}.xml"
                env = dict(os.environ)
                if not args.no_shuffle:
                    env[SEED_ENV] = str(seed)
                cmd = [sys.executable, "-m", "pytest", "-q", "-p", "tests.repeat", "-p", "no:cacheprovider",
                       f"--junitxml={junit}", *selection]
                started = time.monotonic()
                proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                failed = _failures(junit)
                if proc.returncode not in (0, 1) and not failed:
                    failed = {f"<pytest exit {proc.returncode}>": proc.stdout[-500:]}
                if failed:
                    REPORTS.mkdir(exist_ok=True)
                    (REPORTS / f"run{n + 1}-seed{seed}.txt").write_text(proc.stdout)
                for test_id, text in failed.items():
                    counts[test_id] += 1
                    examples.setdefault(test_id, []).append(f"seed {seed}: {text}")
                took = time.monotonic() - started
                runs.append({"run": n + 1, "seed": None if args.no_shuffle else seed, "failed": sorted(failed), "seconds": round(took, 1)})
                print(f"run {n + 1}/{args.runs}{'' if args.no_shuffle else f' seed {seed}'}: "
                      f"{len(failed)} failed in {took:.0f} s", flush=True)
    finally:
        for proc in burners:
            proc.terminate()

    print()
    if not counts:
        print(f"no failures in {args.runs} runs")
    for test_id, count in counts.most_common():
        print(f"{count}/{args.runs}  {test_id}")
        for line in examples[test_id][:3]:
            print(f"        {line.splitlines()[0] if line else ''}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "failures": dict(counts), "load": args.load}, indent=2))
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
