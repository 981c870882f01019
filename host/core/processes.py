"""Whether a process still runs, by its id: the one reading for every record that names the host
process that wrote it (a browser's registry entry, a scheduled run in progress)."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while process `pid` exists (one of another user's counts too); never for a pid of 0 or less."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
