"""tools/docs_tables.py: the measured tables of docs/ are regenerated from a bench JSON and eval
reports, each headed by the run it came from, and nothing outside the marked regions moves."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: What `waymark bench --sections native,dispatch --out FILE` writes, cut to the fields the tables read.
BENCH = {
    "git_sha": "abc1234",
    "python": "3.11.2",
    "machine": "Linux-6.1-x86_64",
    "started_at": "2026-11-27T22:10:51Z",
    "sections": {
        "native": {
            "browser_to_host": [{"size": "1 KB", "waymark": {"median_ms": 0.5, "p90_ms": 0.6},
                                 "peer_echo": {"median_ms": 0.35, "p90_ms": 0.6}, "ratio_median": 1.43}],
            "host_to_browser": {"bytes": 5 * 1024 * 1024, "median_ms": 179.0, "p90_ms": 238.0},
            "section_seconds": 12.5,
        },
        "dispatch": {"error": "timed out", "section_seconds": 3600.0},
    },
}

DOC = """# Performance

Prose stays.

<!-- generated:bench:native -->
old native table
<!-- /generated -->

<!-- generated:bench:frames -->
frames table of an earlier run
<!-- /generated -->

<!-- generated:bench:dispatch -->
old
<!-- /generated -->
"""


def _row(task: str, verdict: str, reason: str = "", latency_ms: float = 1000.0) -> str:
    return json.dumps({"task": task, "suite": "sites", "verdict": verdict, "reason": reason, "latency_ms": latency_ms,
                       "steps": 3, "tokens_total": 0, "provider": "scripted", "model": "scripted",
                       "git_sha": "abc1234def56", "timestamp": "2026-11-27T22:30:00+00:00"})


@pytest.fixture(scope="module")
def tables():
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "tools" / "docs_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "performance.md").write_text(DOC, encoding="utf-8")
    (folder / "evaluation.md").write_text("# Eval\n\n<!-- generated:eval -->\n<!-- /generated -->\n\nAfter.\n", encoding="utf-8")
    return folder


def test_a_bench_section_is_replaced_by_its_own_table_headed_by_the_run(tables, docs: Path):
    tables.render_docs(docs, BENCH, "waymark bench --rounds 5 --out /tmp/b.json", [])
    text = (docs / "performance.md").read_text(encoding="utf-8")
    native = text.split("<!-- generated:bench:native -->\n")[1].split("<!-- /generated -->")[0]
    assert native.startswith("`waymark bench --rounds 5 --sections native` · Linux-6.1-x86_64, Python 3.11.2 · "
                             "2026-11-27T22:10:51Z · commit `abc1234` · the section took 12.5 s\n")
    # The section's own markdown table (eval/bench/native.py's format_markdown).
    assert "| native messaging round trip, ms | Waymark host (median / p90) | echo host (median / p90) | ratio |" in native
    assert "1 KB" in native and "old native table" not in text
    assert text.startswith("# Performance\n\nProse stays.\n")


def test_a_note_on_the_machine_goes_into_every_bench_header(tables, docs: Path):
    tables.render_docs(docs, BENCH, "waymark bench", [], note="2 cores, load average 7-30")
    text = (docs / "performance.md").read_text(encoding="utf-8")
    assert text.count("the section took 12.5 s · 2 cores, load average 7-30\n") == 1
    assert "the section took 3600.0 s · 2 cores, load average 7-30\n" in text


def test_a_section_the_run_did_not_measure_keeps_its_table(tables, docs: Path):
    tables.render_docs(docs, BENCH, "waymark bench", [])
    assert "frames table of an earlier run" in (docs / "performance.md").read_text(encoding="utf-8")


def test_a_failed_section_says_it_failed(tables, docs: Path):
    tables.render_docs(docs, BENCH, "waymark bench", [])
    assert "The section failed: timed out" in (docs / "performance.md").read_text(encoding="utf-8")


def test_regenerating_from_the_same_run_changes_nothing(tables, docs: Path):
    tables.render_docs(docs, BENCH, "waymark bench", [])
    assert tables.render_docs(docs, BENCH, "waymark bench", []) == []


def test_an_eval_report_becomes_a_row_with_its_command_commit_and_date_and_its_misses(tables, docs: Path, tmp_path: Path):
    report = tmp_path / "sites.jsonl"
    report.write_text("\n".join([_row("sites/a", "pass"), _row("sites/b", "fail", "exists 'Saved' failed", 3000.0),
                                 json.dumps({"summary": {}})]) + "\n", encoding="utf-8")
    tables.render_docs(docs, None, "", [report])
    text = (docs / "evaluation.md").read_text(encoding="utf-8")
    assert ("| `waymark eval run --suite sites --provider scripted --out sites.jsonl` | 2 | 1 (50%) | 1 | 0 | 2.0 s | 0 "
            "| `abc1234def56` | 2026-11-27 |") in text
    assert "- `sites/b` fail: exists 'Saved' failed" in text
    assert text.endswith("<!-- /generated -->\n\nAfter.\n")


def test_the_section_command_drops_other_sections_and_the_output_file(tables):
    assert tables.section_command("waymark bench --sections snapshot,prompt --out x.json --rounds 5", "prompt") == \
        "waymark bench --rounds 5 --sections prompt"
    assert tables.section_command("waymark bench --sections=snapshot --out=x.json", "snapshot") == "waymark bench --sections snapshot"


def test_a_region_left_open_is_refused_naming_the_file(tables, docs: Path):
    (docs / "broken.md").write_text("<!-- generated:eval -->\nno end\n", encoding="utf-8")
    with pytest.raises(tables.DocsTablesError, match="broken.md: 1 generated regions opened, 0 closed"):
        tables.render_docs(docs, BENCH, "waymark bench", [])


def test_a_section_whose_results_lack_what_its_table_reads_is_refused_naming_it(tables, docs: Path):
    with pytest.raises(tables.DocsTablesError, match="section 'dispatch' do not have the shape its table reads"):
        tables.render_docs(docs, WHOLE_RUN, "waymark bench", [])


def test_an_unknown_bench_section_is_refused(tables, docs: Path):
    (docs / "performance.md").write_text("<!-- generated:bench:snapshots -->\n<!-- /generated -->\n", encoding="utf-8")
    with pytest.raises(tables.DocsTablesError, match="unknown bench section 'snapshots'"):
        tables.render_docs(docs, BENCH, "waymark bench", [])


def test_an_unreadable_report_is_a_typed_error_and_no_file_changes(tables, docs: Path, tmp_path: Path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps(BENCH), encoding="utf-8")
    before = {p.name: p.read_text(encoding="utf-8") for p in docs.glob("*.md")}
    assert tables.main(["--bench", str(bench), "--eval", str(bad), "--docs", str(docs)]) == 2
    assert {p.name: p.read_text(encoding="utf-8") for p in docs.glob("*.md")} == before


WHOLE_RUN = {
    **BENCH,
    "sections": {
        **BENCH["sections"],
        "snapshot": {"ours": {"chars": {"median": 2319.0}, "tokens": {"median": 996.5}, "ms": {"median": 145.2, "p90": 454.8}},
                     "peer": {"chars": {"median": 19719.0}, "tokens": {"median": 6111.5}, "ms": {"median": 411.8, "p90": 1082.9}},
                     "ratio_median": {"chars": 0.118}, "recall": 1.0, "recall_page_min": 0.98},
        "prompt": {"tokens": {"executor_native": {"median": 1952.0}}},
        "dispatch": {"click": {"click_to_settled_snapshot": {"median_ms": 155.2}}},
    },
}


def test_the_readme_summary_gives_each_headline_figure_with_a_link_to_its_table(tables, docs: Path, tmp_path: Path):
    readme = tmp_path / "README.md"
    readme.write_text("## How good\n\n<!-- generated:summary:bench -->\n<!-- /generated -->\n", encoding="utf-8")
    (tmp_path / "no-docs").mkdir()
    tables.render_docs(tmp_path / "no-docs", WHOLE_RUN, "waymark bench", [], note="2 cores", readme=readme)
    text = readme.read_text(encoding="utf-8")
    assert ("| snapshot size, median characters ([table](docs/performance.md#snapshot)) "
            "| 2,319: 0.118 of Playwright's AI snapshot (19,719) |") in text
    assert "| visible interactive elements listed (recall) | 100.00% (worst page 98.00%) |" in text
    assert "| click to settled snapshot, median ([table](docs/performance.md#dispatch)) | 155 ms |" in text
    assert "From the `waymark bench` run the tables of [docs/performance.md](docs/performance.md) come from (2 cores)." in text
    assert "abc1234" not in text and "2026-11-27" not in text  # the README names no commit or date


def test_a_readme_summary_from_a_run_of_some_sections_is_refused_naming_the_missing_figure(tables, docs: Path, tmp_path: Path):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- generated:summary:bench -->\n<!-- /generated -->\n", encoding="utf-8")
    with pytest.raises(tables.DocsTablesError, match="no snapshot.ours.chars.median"):
        tables.render_docs(docs, BENCH, "waymark bench", [], readme=readme)
