"""`waymark bench --from BENCH.json --markdown FILE`: one markdown table per section of a run,
each headed with the command that reproduces it, the machine, the date and the commit, so the
numbers in the docs always say which run they came from."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from waymark.eval.bench import snapshot
from waymark.eval.bench.markdown import markdown_tables, section_command
from waymark.eval.commands.bench import run_facts, section_markdown

WAYMARK = Path(sys.executable).parent / "waymark"


def _page_row(name, ours_ms, peer_ms, chars, peer_chars):
    return {"page": name, "ours": {"ms": ours_ms, "warm_ms": ours_ms / 2, "chars": chars, "tokens": chars // 4, "pages": 1},
            "peer": {"ms": peer_ms, "chars": peer_chars, "tokens": peer_chars // 4},
            "baseline": 50, "recalled": 49, "missed": [], "occluded": 0, "listed": 49, "extra": 0, "extras": []}


def _results() -> dict:
    snap = snapshot.summarise([_page_row("news", 40.0, 80.0, 2000, 8000), _page_row("shop", 60.0, 100.0, 4000, 10000)])
    snap["bound"] = {"bound_s": 600.0, "cut": True, "parts": [{"part": "snapshot", "unit": "pages", "covered": 2, "of": 183}]}
    snap["section_seconds"] = 601.2
    row = {"rounds": 20, "waymark": {"median_ms": 2.5, "p90_ms": 3.0}, "peer_echo": {"median_ms": 1.25, "p90_ms": 1.5}, "ratio_median": 2.0}
    native = {"browser_to_host": [{"size": "1 KB", **row}], "host_to_browser": None,
              "bound": {"bound_s": 300.0, "cut": False, "parts": []}, "section_seconds": 30.0}
    return {
        "git_sha": "0766c85abcde", "cpu_model": "AMD EPYC", "cores": 2, "load_average_1m": 19.4, "started_at": "2026-11-27T22:43:00Z",
        "command": "waymark bench --corpus /corpus/pages --rounds 20 --sections snapshot,native,memory --out b.json --markdown b.md",
        "sections": {"snapshot": snap, "native": native,
                     "memory": {"error": "no result within its bound of 60 s and 120 s of grace", "section_seconds": 180.0}},
    }


def _markdown() -> str:
    return markdown_tables(_results(), section_markdown)


def test_each_section_is_headed_with_the_command_narrowed_to_it():
    text = _markdown()
    assert "`waymark bench --corpus /corpus/pages --rounds 20 --sections snapshot`" in text
    assert "`waymark bench --corpus /corpus/pages --rounds 20 --sections native`" in text


def test_each_section_says_the_machine_the_date_and_the_commit():
    text = _markdown()
    assert text.count("Machine: 2 cores, AMD EPYC, load average 19.4 at the start. Date: 2026-11-27T22:43:00Z. Commit: `0766c85abcde`") == 3


def test_the_snapshot_table_puts_waymark_beside_playwright_with_the_ratio():
    text = _markdown()
    assert "| 2 corpus pages | Waymark | Playwright `aria_snapshot(mode='ai')` | ratio of medians |" in text
    assert "| characters (median / p90) | 3,000 / 4,000 | 9,000 / 10,000 | 0.33× |" in text


def test_a_section_cut_by_its_bound_says_so_and_how_much_it_covered():
    text = _markdown()
    assert "the section took 601.2 s of its 600 s bound" in text
    assert "**Cut by its bound**: measured snapshot 2 of 183 pages." in text


def test_a_section_that_failed_says_why_instead_of_a_table():
    assert "The section failed: no result within its bound of 60 s and 120 s of grace" in _markdown()


def test_every_section_renders_its_own_markdown_table():
    import importlib

    from waymark.eval.commands.bench import SECTIONS

    assert [name for name, module in SECTIONS.items() if not callable(getattr(importlib.import_module(module), "format_markdown", None))] == []


def test_the_narrowed_command_drops_output_options_in_either_spelling():
    command = "waymark bench --out=x.json --section-timeout memory=60 --no-progress --limit 5"
    assert section_command(command, "memory") == "waymark bench --limit 5 --sections memory"


def test_a_run_records_what_its_tables_must_say():
    facts = run_facts(["--corpus", "my pages", "--rounds", "3"])
    assert facts["command"] == "waymark bench --corpus 'my pages' --rounds 3"
    assert facts["cores"] >= 1 and facts["cpu_model"] and facts["git_sha"] and facts["started_at"].endswith("Z")


def test_bench_from_a_json_writes_the_markdown_and_measures_nothing(tmp_path):
    source = tmp_path / "bench.json"
    source.write_text(json.dumps(_results()), encoding="utf-8")
    done = subprocess.run([str(WAYMARK), "bench", "--from", str(source), "--markdown", "-"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("### snapshot\n")
    assert "### native" in done.stdout and "### memory" in done.stdout


def test_bench_from_a_file_that_is_not_a_bench_result_is_refused_naming_it(tmp_path):
    source = tmp_path / "bench.json"
    source.write_text('{"rows": []}', encoding="utf-8")
    done = subprocess.run([str(WAYMARK), "bench", "--from", str(source), "--markdown", "-"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"cannot render {source}: KeyError" in done.stderr
