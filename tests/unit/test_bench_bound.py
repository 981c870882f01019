"""Every bench section has a time bound of its own: past it the section reports what it measured,
marked as cut with how much it covered, and the next section runs. The incident: on a 123-page
corpus the memory section printed nothing for 16 minutes and the bench was killed.

The sections here are stand-ins registered as modules: their work is made of items that finish
at once or never, so the bound decides and no test depends on how fast the machine is."""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any

import pytest

from waymark.eval.bench.bound import Bound, bound_of, describe_cut
from waymark.eval.commands import bench


def _section(name: str, run: Any) -> types.ModuleType:
    module = types.ModuleType(f"tests_bench_section_{name}")
    module.run = run  # type: ignore[attr-defined]
    module.format_table = lambda result: f"{name}: {result}"  # type: ignore[attr-defined]
    return module


@pytest.fixture
def sections(monkeypatch):
    """Register stand-in sections under `waymark bench`'s names for one test."""

    def register(**runs: Any) -> list[str]:
        for name, run in runs.items():
            module = _section(name, run)
            monkeypatch.setitem(sys.modules, module.__name__, module)
            monkeypatch.setitem(bench.SECTIONS, name, module.__name__)
        return list(runs)

    return register


async def _stuck_after_three(options: dict[str, Any]) -> dict[str, Any]:
    """Ten rounds: three finish at once, the fourth never does."""
    bound = bound_of(options, "stuck")
    done = []
    for i in bound.each(range(10), "rounds"):
        try:
            await bound.within(asyncio.Event().wait() if i == 3 else asyncio.sleep(0))
        except Exception:
            break
        done.append(i)
    return {"rounds_done": done}


async def _quick(options: dict[str, Any]) -> dict[str, Any]:
    return {"measured": True}


async def test_a_section_whose_work_outlasts_its_bound_reports_what_it_measured_marked_cut(sections, capsys):
    names = sections(stuck=_stuck_after_three, quick=_quick)
    results = await bench.run_sections(names, {}, {"stuck": 0.3, "quick": 5.0}, facts={})
    stuck = results["sections"]["stuck"]
    assert stuck["rounds_done"] == [0, 1, 2]
    assert stuck["bound"] == {"bound_s": 0.3, "cut": True, "parts": [{"part": "stuck", "unit": "rounds", "covered": 3, "of": 10}]}
    assert "CUT at its bound of 0.3 s: measured stuck 3 of 10 rounds" in capsys.readouterr().out


async def test_the_section_after_a_cut_one_runs_and_is_not_marked_cut(sections):
    names = sections(stuck=_stuck_after_three, quick=_quick)
    results = await bench.run_sections(names, {}, {"stuck": 0.3, "quick": 5.0}, facts={})
    quick = results["sections"]["quick"]
    assert quick["measured"] is True
    assert quick["bound"]["cut"] is False


async def test_a_section_that_ignores_its_bound_is_abandoned_after_the_grace_and_reported_failed(sections, monkeypatch):
    async def deaf(options: dict[str, Any]) -> dict[str, Any]:
        await asyncio.Event().wait()
        return {}

    monkeypatch.setattr(bench, "GRACE_S", 0.2)
    names = sections(deaf=deaf, quick=_quick)
    results = await bench.run_sections(names, {}, {"deaf": 0.1, "quick": 5.0}, facts={})
    assert results["sections"]["deaf"]["error"] == "no result within its bound of 0.1 s and 0.2 s of grace"
    assert results["sections"]["quick"]["measured"] is True
    assert bench.failures(results) == ["deaf: no result within its bound of 0.1 s and 0.2 s of grace"]


def test_a_bound_hands_out_no_item_once_its_time_is_up():
    now = [0.0]
    bound = Bound("s", 10.0, clock=lambda: now[0])
    taken = []
    for item in bound.each(["a", "b", "c"], "pages"):
        taken.append(item)
        now[0] += 6.0
    assert taken == ["a", "b"]
    assert bound.report() == {"bound_s": 10.0, "cut": True, "parts": [{"part": "s", "unit": "pages", "covered": 2, "of": 3}]}


def test_a_part_started_after_the_bound_covers_nothing_and_says_so():
    now = [0.0]
    bound = Bound("memory", 1.0, clock=lambda: now[0])
    list(bound.each([1], "snapshots", "static"))
    now[0] = 2.0
    assert list(bound.each([1, 2], "runs", "host agent runs")) == []
    assert describe_cut(bound.report()) == "  CUT at its bound of 1 s: measured static 1 of 1 snapshots; host agent runs 0 of 2 runs"


def test_a_section_that_covered_all_its_work_is_not_described_as_cut():
    bound = Bound("native", 60.0)
    list(bound.each(["1 KB", "1 MB"], "sizes"))
    assert describe_cut(bound.report()) == ""


def test_section_bounds_take_one_number_for_all_or_name_seconds_pairs_over_the_defaults():
    assert bench.parse_bounds("90", ["snapshot", "memory"]) == {"snapshot": 90.0, "memory": 90.0}
    assert bench.parse_bounds("memory=120", ["snapshot", "memory"]) == {"snapshot": bench.DEFAULT_BOUNDS_S["snapshot"], "memory": 120.0}
    assert bench.parse_bounds(None, ["frames"]) == {"frames": bench.DEFAULT_BOUNDS_S["frames"]}


@pytest.mark.parametrize("text, message", [
    ("speed=10", "unknown section 'speed'"),
    ("memory=soon", "'soon' is not a number of seconds"),
    ("0", "leaves a section no time"),
])
def test_a_section_bound_that_cannot_be_read_is_refused_naming_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        bench.parse_bounds(text, ["memory"])
