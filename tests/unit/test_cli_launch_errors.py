"""What the command line says when it cannot start a browser: one readable line and exit code 1,
never a traceback, for the situations README describes (no display, no browser)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

from waymark.host import launch


def _waymark(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], capture_output=True, text=True, timeout=120, env=env)


def _env(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def test_a_headed_demo_without_a_display_says_so_in_one_line():
    done = _waymark("demo", "--headed", env=_env(DISPLAY=None, WAYLAND_DISPLAY=None))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "waymark: no display: a visible browser (--headed) needs a graphical session, and DISPLAY is not set; "
        "run without --headed, or under xvfb-run"]


def test_a_browser_path_that_does_not_exist_is_named_in_one_line():
    done = _waymark("demo", env=_env(WAYMARK_CHROMIUM="/nowhere/chromium"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "waymark: WAYMARK_CHROMIUM names /nowhere/chromium, which does not exist: point it at a Chromium executable, "
        "or unset it to let Waymark find one"]


def test_no_browser_at_all_says_what_to_install(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("WAYMARK_CHROMIUM", raising=False)
    monkeypatch.setattr(launch.shutil, "which", lambda name: None)
    with pytest.raises(launch.ChromiumNotFound, match=r"no Chromium-family browser found: install Chromium"):
        launch.chromium_path()


def test_chromium_is_preferred_to_google_chrome(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("WAYMARK_CHROMIUM", raising=False)
    monkeypatch.setattr(launch, "_platform", lambda: "darwin")
    installed = {"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium"}
    monkeypatch.setattr(launch.shutil, "which", lambda name: name if name in installed else None)
    assert launch.chromium_path() == "/Applications/Chromium.app/Contents/MacOS/Chromium"


def test_only_google_chrome_is_used_with_a_warning_that_it_may_not_load_the_extension(monkeypatch: pytest.MonkeyPatch,
                                                                                    caplog: pytest.LogCaptureFixture):
    monkeypatch.delenv("WAYMARK_CHROMIUM", raising=False)
    monkeypatch.setattr(launch, "_platform", lambda: "linux")
    monkeypatch.setattr(launch.shutil, "which", lambda name: "/usr/bin/google-chrome" if name == "google-chrome" else None)
    with caplog.at_level(logging.WARNING, logger="waymark.host.launch"):
        assert launch.chromium_path() == "/usr/bin/google-chrome"
    assert "ignores --load-extension" in caplog.text
