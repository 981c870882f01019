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
