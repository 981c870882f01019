"""`waymark bench` end to end: a section runs in real Chromium and its table and JSON come out."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

WAYMARK = Path(sys.executable).parent / "waymark"


@pytest.mark.e2e
def test_bench_runs_the_native_section_and_writes_its_json(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run([str(WAYMARK), "bench", "--sections", "native", "--rounds", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "native messaging round trip" in done.stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    assert list(report["sections"]) == ["native"]
    assert [row["size"] for row in report["sections"]["native"]["browser_to_host"]] == ["1 KB", "100 KB", "1 MB", "10 MB"]


def test_bench_refuses_an_unknown_section():
    done = subprocess.run([str(WAYMARK), "bench", "--sections", "speed"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unknown section(s): speed" in done.stderr


def _pages(root: Path, names: list[str]) -> Path:
    """A corpus of fixture pages laid out as the bench reads one: NAME/index.html."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "index.html").write_text((fixtures / "perception" / f"{name}.html").read_text(encoding="utf-8"), encoding="utf-8")
    return root


def _tokenizer(path: Path) -> Path:
    """A small word-level tokenizer: the bench only counts tokens with it."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path))
    return path


@pytest.mark.e2e
@pytest.mark.timeout(960)  # the command's own deadline (900 s) decides, not pytest's default
def test_every_bench_section_completes_on_two_pages_with_one_round(tmp_path):
    # Not timed: the bench must not rot unseen, so every section runs and reports without an error.
    from waymark.eval.commands.bench import SECTIONS

    corpus = _pages(tmp_path / "pages", ["basic", "label"])
    out = tmp_path / "bench.json"
    done = subprocess.run([str(WAYMARK), "bench", "--corpus", str(corpus), "--tokenizer", str(_tokenizer(tmp_path / "tok.json")),
                           "--rounds", "1", "--page-timeout", "60", "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert list(report["sections"]) == list(SECTIONS)
    assert not [name for name, section in report["sections"].items() if section.get("error") or section.get("errors")]
    assert report["sections"]["snapshot"]["pages"] == 2
    # The same run's markdown tables, one per section (what docs/performance.md is made of).
    done = subprocess.run([str(WAYMARK), "bench", "--from", str(out), "--markdown", "-"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [line[4:] for line in done.stdout.splitlines() if line.startswith("### ")] == list(SECTIONS)


def test_bench_says_what_is_missing_when_the_tokenizer_is_not_there(tmp_path):
    corpus = _pages(tmp_path / "pages", ["basic"])
    done = subprocess.run([str(WAYMARK), "bench", "--sections", "snapshot", "--corpus", str(corpus), "--tokenizer", str(tmp_path / "none.json")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"tokenizer not found: {tmp_path / 'none.json'}" in done.stderr and "--tokenizer" in done.stderr


@pytest.mark.e2e
@pytest.mark.timeout(660)  # the command's own deadline (600 s) decides, not pytest's default
def test_a_page_that_never_lets_go_is_an_error_row_naming_it_and_the_next_page_is_measured(tmp_path):
    corpus = _pages(tmp_path / "pages", ["basic"])
    # The loop runs as the page is parsed, so the page never loads. A loop started by a 50 ms
    # timer once had not started yet when the bench had already measured the page.
    (corpus / "endless").mkdir()
    (corpus / "endless" / "index.html").write_text(
        "<!doctype html><title>endless</title><button>Never</button><script>for (;;) {}</script>", encoding="utf-8")
    # Pages are measured in name order: this one comes after the endless page, in a fresh tab.
    (corpus / "later").mkdir()
    (corpus / "later" / "index.html").write_text((corpus / "basic" / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "bench.json"
    done = subprocess.run([str(WAYMARK), "bench", "--sections", "snapshot", "--corpus", str(corpus), "--tokenizer",
                           str(_tokenizer(tmp_path / "tok.json")), "--page-timeout", "8", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    section = json.loads(out.read_text(encoding="utf-8"))["sections"]["snapshot"]
    assert [row["page"] for row in section["rows"]] == ["basic", "later"]
    assert section["errors"]["endless"] == "no result within 8 s"
    assert "snapshot: endless: no result within 8 s" in done.stderr
