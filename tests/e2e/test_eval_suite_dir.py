"""A suite kept outside the package (`waymark eval run --suite-dir DIR`): task files with their
pages in DIR/sites/ and scripts in DIR/scripts/, run exactly as the bundled suites are, through
the real command line, Chromium, extension and host, judged from the final page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

HELLO = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Greeter</title></head><body><main>
<h1>Greeter</h1>
<label for="name">Name</label> <input id="name">
<button id="greet" type="button">Greet</button>
<p id="out" role="status"></p>
<script>document.getElementById("greet").addEventListener("click", () => {
  document.getElementById("out").textContent = "Hello, " + document.getElementById("name").value + "!";
});</script>
</main></body></html>"""

TASK = {"kind": "e2e", "goal": "Greet Ada", "start_url": "{site}/hello.html", "max_steps": 4, "script": "greet.json",
        "success": [{"text_present": "Hello, Ada!"}]}

SCRIPT = {"steps": [
    {"intent": "Enter the name", "action": {"type": "fill", "target": {"role": "textbox", "name": "Name"}, "text": "Ada"},
     "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Name"}, "value": "Ada"}}]},
    {"intent": "Click Greet", "action": {"type": "click", "target": {"role": "button", "name": "Greet"}},
     "verify": [{"text_present": "Hello, Ada!"}]},
]}


def _suite(folder: Path, greeting: str = "Hello, ") -> Path:
    (folder / "sites").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "sites" / "hello.html").write_text(HELLO.replace("Hello, ", greeting), encoding="utf-8")
    (folder / "scripts" / "greet.json").write_text(json.dumps(SCRIPT), encoding="utf-8")
    (folder / "greet-ada.json").write_text(json.dumps(TASK), encoding="utf-8")
    return folder


def _eval_run(suite_dir: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", "eval", "run", "--suite-dir", str(suite_dir), "--provider", "scripted",
                           "--out", str(out)], capture_output=True, text=True, timeout=240, cwd=ROOT)


def _rows(out: Path) -> list[dict]:
    return [r for r in map(json.loads, out.read_text().splitlines()) if "task" in r]


def test_a_suite_folder_of_ones_own_runs_with_its_own_pages_and_scripts(tmp_path):
    suite = _suite(tmp_path / "my-suite")
    done = _eval_run(suite, tmp_path / "report.jsonl")
    assert done.returncode == 0, done.stderr
    (row,) = _rows(tmp_path / "report.jsonl")
    assert (row["task"], row["verdict"]) == ("my-suite/greet-ada", "pass"), row


def test_a_suite_folder_whose_page_never_shows_the_outcome_fails_its_task(tmp_path):
    suite = _suite(tmp_path / "my-suite", greeting="Goodbye, ")
    done = _eval_run(suite, tmp_path / "report.jsonl")
    assert done.returncode == 0, done.stderr
    (row,) = _rows(tmp_path / "report.jsonl")
    assert row["verdict"] == "fail" and "text_present failed" in row["reason"], row


def test_a_suite_folder_without_task_files_is_refused_in_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    done = _eval_run(tmp_path / "empty", tmp_path / "report.jsonl")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"waymark eval run: --suite-dir {tmp_path / 'empty'}: not a folder of task files (*.json)"]
