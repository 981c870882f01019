"""The eval's statistics on known values: Wilson intervals, the exact McNemar test, Tango's
paired interval, and `eval compare` calling a change beyond or within noise."""

import json
import subprocess
import sys

import pytest

from waymark.eval.compare import compare, format_comparison
from waymark.eval.report import ReportWriter, Row
from waymark.eval.stats import mcnemar_exact, paired_difference_interval, wilson


def test_wilson_interval_of_known_counts():
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(3, 6) == pytest.approx((0.1876, 0.8124), abs=1e-4)


def test_wilson_interval_of_no_tasks_is_everything():
    assert wilson(0, 0) == (0.0, 1.0)


def test_exact_mcnemar_is_twice_the_binomial_tail_of_the_discordant_pairs():
    # 9 pairs fixed, 2 broken: 2 * (C(11,0) + C(11,1) + C(11,2)) / 2**11 = 134/2048.
    assert mcnemar_exact(9, 2) == pytest.approx(134 / 2048)
    assert mcnemar_exact(2, 9) == mcnemar_exact(9, 2)
    assert mcnemar_exact(6, 0) == pytest.approx(2 / 64)


def test_exact_mcnemar_without_discordant_pairs_or_with_a_tie_finds_nothing():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0


def test_tango_paired_interval_of_a_known_table():
    # Fagerland, Lydersen and Laake's paired example (airway hyperresponsiveness, n = 21): both 1,
    # A only 1, B only 7, neither 12; its Tango asymptotic score interval is 0.026 to 0.517.
    low, high = paired_difference_interval(1, 1, 7, 12)
    assert (low, high) == pytest.approx((0.026, 0.517), abs=5e-4)


def test_tango_interval_with_no_discordant_pair_is_wilsons_for_zero_of_n_mirrored():
    low, high = paired_difference_interval(4, 0, 0, 4)
    assert high == pytest.approx(wilson(0, 8)[1], abs=1e-9)
    assert low == pytest.approx(-high, abs=1e-9)


def test_tango_interval_is_antisymmetric_and_inside_minus_one_to_one():
    low, high = paired_difference_interval(12, 9, 2, 21)
    assert paired_difference_interval(12, 2, 9, 21) == pytest.approx((-high, -low))
    low, high = paired_difference_interval(0, 10, 0, 0)
    assert low == -1.0 and -1 < high < 0


def _row(task: str, verdict: str, seed: int | None = None) -> Row:
    return Row(task=task, verdict=verdict, seed=seed)


def test_compare_calls_a_change_of_six_tasks_fixed_none_broken_beyond_noise():
    a = [_row(f"t{i}", "fail") for i in range(6)] + [_row("u", "pass")]
    b = [_row(f"t{i}", "pass") for i in range(6)] + [_row("u", "pass")]
    c = compare(a, b)
    assert (len(c.fixed), len(c.broken), c.both_passed, c.neither_passed) == (6, 0, 1, 0)
    assert c.mcnemar_p == pytest.approx(0.0312, abs=1e-4)
    assert c.beyond_noise
    assert 0 < c.delta_low_pp < c.accuracy_delta_pp < c.delta_high_pp


def test_compare_calls_two_runs_differing_in_one_task_each_way_within_noise():
    a = [_row("x", "pass"), _row("y", "fail"), _row("z", "pass")]
    b = [_row("x", "fail"), _row("y", "pass"), _row("z", "pass")]
    c = compare(a, b)
    assert c.mcnemar_p == 1.0 and not c.beyond_noise
    assert c.delta_low_pp < 0 < c.delta_high_pp
    assert "within noise" in format_comparison(c)


def test_compare_pairs_miniwob_rows_by_task_and_seed():
    a = [_row("miniwob/click", "pass", seed=1), _row("miniwob/click", "fail", seed=2)]
    b = [_row("miniwob/click", "pass", seed=2), _row("miniwob/click", "pass", seed=3)]
    c = compare(a, b)
    assert c.common == 1
    assert [ch.task for ch in c.fixed] == ["miniwob/click#2"]
    assert c.only_a == ["miniwob/click#1"] and c.only_b == ["miniwob/click#3"]


def test_eval_compare_prints_the_interval_and_the_test_and_json_carries_them(tmp_path):
    paths = []
    for name, verdicts in (("a", ["fail"] * 6), ("b", ["pass"] * 6)):
        writer = ReportWriter(tmp_path / f"{name}.jsonl")
        for i, v in enumerate(verdicts):
            writer.write(_row(f"t{i}", v))
        writer.close()
        paths.append(str(tmp_path / f"{name}.jsonl"))
    cmd = [sys.executable, "-m", "waymark.host", "eval", "compare", *paths]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "95% CI" in text and "McNemar p = 0.0312" in text and "beyond noise" in text
    data = json.loads(subprocess.run([*cmd, "--json"], capture_output=True, text=True, check=True).stdout)
    assert data["beyond_noise"] is True and data["delta_low_pp"] > 0
