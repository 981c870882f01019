"""Finding the user's running browsers (host/browsers.py): each host's own control socket and
description in one folder, and which one `waymark mcp` attaches to."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from waymark.host.browsers import (
    BrowserChoiceError,
    RunningBrowser,
    choose,
    register,
    running,
    unregister,
)


def entry(pid: int, profile: str) -> RunningBrowser:
    return RunningBrowser(pid=pid, socket=Path(f"/tmp/{pid}.sock"), browser="chromium", profile=profile)


def test_a_registered_host_is_listed_once_its_socket_exists(tmp_path):
    mine = register(tmp_path)
    assert running(tmp_path) == [], "no socket yet: nothing to attach to"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(mine.socket))
    try:
        assert running(tmp_path) == [mine]
        assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o700
        assert stat.S_IMODE(mine.socket.with_suffix(".json").stat().st_mode) == 0o600
    finally:
        listener.close()
        unregister(mine)
    assert list(tmp_path.iterdir()) == []


def test_the_entry_of_a_host_that_died_is_removed(tmp_path):
    dead = RunningBrowser(pid=2**22 + 7, socket=tmp_path / "4194311.sock", browser="chromium")
    dead.socket.touch()
    (tmp_path / "4194311.json").write_text(dead.model_dump_json())
    assert running(tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_the_only_browser_is_chosen():
    only = entry(11, "/home/ada/.config/chromium")
    assert choose([only], None) == only


def test_several_browsers_are_listed_when_none_is_named():
    with pytest.raises(BrowserChoiceError) as several:
        choose([entry(11, "/p/work"), entry(12, "/p/home")], None)
    assert several.value.code == "several_browsers"
    assert "chromium, profile /p/work (host pid 11); chromium, profile /p/home (host pid 12)" in several.value.message
    assert "--browser" in several.value.message


def test_browser_names_one_by_a_piece_of_its_profile_or_its_pid():
    work, home = entry(11, "/p/work"), entry(12, "/p/home")
    assert choose([work, home], "HOME") == home
    assert choose([work, home], "11") == work


def test_a_browser_name_that_matches_none_says_which_there_are():
    with pytest.raises(BrowserChoiceError) as none:
        choose([entry(11, "/p/work")], "beta")
    assert none.value.code == "no_such_browser" and "/p/work" in none.value.message


def test_no_browser_is_no_browser():
    with pytest.raises(BrowserChoiceError) as empty:
        choose([], None)
    assert empty.value.code == "no_browser"

