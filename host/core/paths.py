"""Where Waymark keeps its files: one authority for state, config and run folders."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP = "waymark"


def state_dir() -> Path:
    """Logs and runtime state: $XDG_STATE_HOME/waymark on Linux, ~/Library/Logs/waymark on macOS."""
    override = os.environ.get("WAYMARK_STATE_DIR")
    if override:
        return Path(override)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Logs" / APP
    return Path(platformdirs.user_state_dir(APP))


def config_dir() -> Path:
    """The host's config file and secret store live here, created user-only."""
    override = os.environ.get("WAYMARK_CONFIG_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir(APP))


def runs_dir() -> Path:
    """Agent-run traces: one folder per run."""
    override = os.environ.get("WAYMARK_RUNS_DIR")
    if override:
        return Path(override)
    return state_dir() / "runs"


def private_dir(path: Path) -> Path:
    """Create a folder readable by the user only (0700) and return it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def control_socket_override() -> Path | None:
    """A fixed control socket from $WAYMARK_CONTROL_SOCKET: the host of the user's browser listens
    there and `waymark mcp` attaches there, instead of each browser's own socket (host.browsers)."""
    override = os.environ.get("WAYMARK_CONTROL_SOCKET")
    return Path(override) if override else None
