"""Where Waymark keeps its files: one authority for state, config and run folders."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import platformdirs

APP = "waymark"
log = logging.getLogger(__name__)


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


def eval_runs_dir() -> Path:
    """Eval runs' traces: beside the user's own runs, never among them (`waymark trace show latest`
    is the user's last run, not an eval task's)."""
    return runs_dir().parent / "eval-runs"


def private_dir(path: Path) -> Path:
    """Create a folder readable by the user only (0700), and each missing folder above it, and
    return it.

    A folder that exists already keeps its mode: it may be one the user named (the folder of
    $WAYMARK_CONTROL_SOCKET, say /tmp), not Waymark's to change; one that others can open is
    logged as a warning."""
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    if not missing:
        if not path.is_dir():
            raise NotADirectoryError(f"{path} is not a folder")
        if path.stat().st_mode & 0o077:
            log.warning("%s is open to other users (mode %o): Waymark leaves it as it is", path, path.stat().st_mode & 0o777)
        return path
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)  # mkdir's mode is masked by the umask
    return path


def control_socket_override() -> Path | None:
    """A fixed control socket from $WAYMARK_CONTROL_SOCKET: the host of the user's browser listens
    there and `waymark mcp` attaches there, instead of each browser's own socket (host.browsers)."""
    override = os.environ.get("WAYMARK_CONTROL_SOCKET")
    return Path(override) if override else None
