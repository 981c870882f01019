"""Long work says where it is on a terminal: the section or suite, item n of N and the time
spent, on stderr; nothing when stderr is a pipe or a file, or with --no-progress."""

from __future__ import annotations

import io
import re
from typing import Any

from waymark.eval.bench.bound import Bound
from waymark.eval.commands import bench
from waymark.eval.progress import Progress, shown_on


class FakeTerminal(io.StringIO):
    """What a terminal on stderr receives, kept as text."""

    def isatty(self) -> bool:
        return True


def _lines(screen: str) -> list[str]:
    """Each redraw of the progress line (tqdm redraws with a carriage return)."""
    return [line.strip() for line in re.split(r"[\r\n]", screen) if line.strip()]


def test_progress_is_shown_on_a_terminal_only():
    assert shown_on(FakeTerminal())
    assert not shown_on(io.StringIO())


def test_no_progress_turns_it_off_even_on_a_terminal():
    assert not shown_on(FakeTerminal(), disabled=True)


def test_a_section_shows_its_name_page_n_of_n_and_the_time_spent():
    screen = FakeTerminal()
    bound = Bound("snapshot", 600.0, progress=True, stream=screen)
    for _ in bound.each(["news-1", "shop-2"], "pages"):
        pass
    bound.close()
    drawn = _lines(screen.getvalue())
    assert "snapshot: 0 of 2 pages [00:00, news-1]" in drawn
    assert "snapshot: 1 of 2 pages [00:00, shop-2]" in drawn
    assert "snapshot: 2 of 2 pages [00:00, shop-2]" in drawn


def test_a_part_of_a_section_is_named_after_the_section():
    screen = FakeTerminal()
    bound = Bound("memory", 600.0, progress=True, stream=screen)
    list(bound.each(range(3), "snapshots", "page heap, static"))
    assert "memory page heap, static: 3 of 3 snapshots [00:00]" in _lines(screen.getvalue())


def test_a_section_says_it_is_starting_before_its_first_item():
    screen = FakeTerminal()
    Bound("frames", 600.0, progress=True, stream=screen).close()
    assert "frames [00:00, starting]" in _lines(screen.getvalue())


def test_the_elapsed_time_counts_from_the_start_of_the_work():
    screen = FakeTerminal()
    line = Progress("suite smoke", 4, "tasks", True, screen, already_s=75.0)
    line.close()
    assert "suite smoke: 0 of 4 tasks [01:15]" in _lines(screen.getvalue())


def test_progress_that_is_off_writes_nothing():
    screen = FakeTerminal()
    bound = Bound("snapshot", 600.0, progress=False, stream=screen)
    list(bound.each(["a"], "pages"))
    bound.close()
    assert screen.getvalue() == ""


async def test_the_bench_draws_each_sections_progress_on_the_terminal_it_is_given(monkeypatch):
    async def two_pages(options: dict[str, Any]) -> dict[str, Any]:
        return {"pages": list(options["bound"].each(["a", "b"], "pages"))}

    import sys
    import types

    module = types.ModuleType("tests_progress_section")
    module.run = two_pages  # type: ignore[attr-defined]
    module.format_table = str  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(bench.SECTIONS, "pages", module.__name__)
    screen = FakeTerminal()
    await bench.run_sections(["pages"], {}, {"pages": 60.0}, progress=True, stream=screen, facts={})
    assert "pages: 2 of 2 pages [00:00, b]" in _lines(screen.getvalue())


async def test_an_eval_run_shows_task_n_of_n_and_how_many_passed(tmp_path, monkeypatch):
    from waymark.eval.runner import RunConfig, run_suite
    from waymark.providers.spec import ModelSpec

    screen = FakeTerminal()
    monkeypatch.setattr("sys.stderr", screen)
    config = RunConfig(suite="smoke", executor=ModelSpec.make("scripted", "scripted"), out=tmp_path / "smoke.jsonl",
                       tasks=["checkout-express", "account-open-statements"])
    await run_suite(config, progress=True)
    drawn = _lines(screen.getvalue())
    assert any(re.fullmatch(r"suite smoke: 1 of 2 tasks \[00:0\d, 1 passed, last smoke/\S+\]", line) for line in drawn), drawn
    assert any(re.fullmatch(r"suite smoke: 2 of 2 tasks \[00:0\d, 2 passed, last smoke/\S+\]", line) for line in drawn), drawn


async def test_an_eval_run_without_progress_writes_nothing_to_stderr(tmp_path, monkeypatch):
    from waymark.eval.runner import RunConfig, run_suite
    from waymark.providers.spec import ModelSpec

    screen = FakeTerminal()
    monkeypatch.setattr("sys.stderr", screen)
    config = RunConfig(suite="smoke", executor=ModelSpec.make("scripted", "scripted"), out=tmp_path / "smoke.jsonl",
                       tasks=["checkout-express"])
    await run_suite(config, progress=False)
    assert screen.getvalue() == ""
