"""`waymark --help` is written for a user: it says where to start and lists the developers'
commands apart, on one line, instead of among the user's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def help_text() -> str:
    done = subprocess.run([sys.executable, "-m", "waymark.host", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_help_says_where_to_start():
    text = help_text()
    start = text.split("start here:", 1)[1]
    assert start.splitlines()[1].split() == ["waymark", "doctor", "check", "the", "install"]
    assert "waymark demo" in start


def test_help_lists_the_developers_commands_apart_from_the_users():
    commands = help_text().split("positional arguments:", 1)[1].split("options:", 1)[0]
    listed = {line.split()[0] for line in commands.splitlines() if line.startswith("    ") and not line.startswith("     ")}
    assert {"run", "demo", "doctor", "trace", "mcp"} <= listed
    assert not listed & {"bench", "eval", "schema", "host"}
    assert "for developers: waymark bench, waymark eval, waymark schema; waymark host is the native-messaging host Chrome starts" in help_text()
