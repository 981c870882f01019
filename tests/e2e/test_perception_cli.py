"""`waymark snapshot`: the terminal view of what the model sees."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _waymark(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def json_output(site_url: str) -> dict:
    done = _waymark("snapshot", f"{site_url}/perception/basic.html", "--json", "--viewport", "1024x700")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_snapshot_json_prints_the_documented_object(json_output):
    assert list(json_output) == ["url", "title", "viewport", "elements", "next_offset", "page_overflow", "stats"]
    assert json_output["title"] == "Perception basics"
    first = json_output["elements"][0]
    assert list(first) == ["ref", "role", "name", "value", "states", "bbox", "frame", "in_viewport"]
    assert (first["role"], first["name"], first["frame"], first["in_viewport"]) == ("link", "Home", 0, True)


def test_snapshot_uses_the_requested_viewport(json_output):
    assert (json_output["viewport"]["width"], json_output["viewport"]["height"]) == (1024, 700)


def test_snapshot_prints_the_model_text_by_default(site_url):
    done = _waymark("snapshot", f"{site_url}/perception/basic.html")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith('page "Perception basics" ')
    assert '[1] "Home"' in lines


def test_snapshot_rejects_a_malformed_viewport():
    done = _waymark("snapshot", "http://127.0.0.1:9/", "--viewport", "big")
    assert done.returncode == 2
    assert "WIDTHxHEIGHT" in done.stderr
