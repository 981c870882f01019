"""The user's running browsers, as `waymark mcp` finds them: the host of each browser the user
started listens on its own user-only control socket in one folder (`<pid>.sock`), with a
description beside it (`<pid>.json`: which browser, which profile). With several browsers on one
machine, an MCP server attaches to the only one, or to the one `--browser` names, and otherwise
says which there are."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

from waymark.host.core.paths import private_dir, state_dir
from waymark.host.core.processes import alive

#: How many ancestors of the host are searched for the browser that started it (the browser may
#: start the host through a wrapper script).
_ANCESTORS = 4


class RunningBrowser(BaseModel):
    """One browser whose host listens for MCP clients."""

    pid: int
    socket: Path
    browser: str
    profile: str = ""
    started: float = 0.0
    #: The extension said it may read file: URLs (Load unpacked grants it; chrome://extensions turns it off).
    file_access: bool = False

    def label(self) -> str:
        """How the user recognises it: the browser's program and its profile folder."""
        return f"{self.browser}, profile {self.profile} (host pid {self.pid})" if self.profile else f"{self.browser} (host pid {self.pid})"

    def matches(self, wanted: str) -> bool:
        """`wanted` is its host's pid or a piece of its label (case-insensitive)."""
        return wanted == str(self.pid) or wanted.lower() in self.label().lower()


class BrowserChoiceError(Exception):
    """No browser, or none that `--browser` names, or several and none named; `code` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def registry_dir() -> Path:
    """The folder of the control sockets (user-only)."""
    return state_dir() / "browsers"


def _cmdline(pid: int) -> list[str]:
    try:
        return [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
    except OSError:
        return []


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def describe_browser() -> tuple[str, str]:
    """The program and profile folder of the browser that started this host, as far as the
    system tells (Linux: the nearest ancestor with a `--user-data-dir`, else the parent)."""
    if not sys.platform.startswith("linux"):
        return "browser", ""
    pid, first = os.getppid(), ""
    for _ in range(_ANCESTORS):
        argv = _cmdline(pid)
        if argv and not first:
            first = Path(argv[0]).name
        for arg in argv:
            if arg.startswith("--user-data-dir="):
                return Path(argv[0]).name, arg.split("=", 1)[1]
        pid = _parent(pid)
        if pid <= 1:
            break
    return first or "browser", ""


def register(folder: Path | None = None) -> RunningBrowser:
    """This host's entry: its socket path, and its description written beside it."""
    folder = private_dir(folder or registry_dir())
    browser, profile = describe_browser()
    entry = RunningBrowser(pid=os.getpid(), socket=folder / f"{os.getpid()}.sock", browser=browser, profile=profile, started=time.time(),
                           file_access=_file_access)
    description = folder / f"{entry.pid}.json"
    description.write_text(entry.model_dump_json())
    os.chmod(description, 0o600)
    return entry


#: What this host's extension said of its file access (its hello may come before or after register()).
_file_access = False


def note_file_access(allowed: bool, folder: Path | None = None) -> None:
    """Record in this host's description whether its extension may read file: URLs (for `waymark doctor`)."""
    global _file_access
    _file_access = allowed
    description = (folder or registry_dir()) / f"{os.getpid()}.json"
    try:
        entry = RunningBrowser.model_validate_json(description.read_text())
    except (OSError, ValueError):
        return  # no description (a host without a control socket): nothing to note it in
    description.write_text(entry.model_copy(update={"file_access": allowed}).model_dump_json())


def unregister(entry: RunningBrowser) -> None:
    """Remove this host's socket and description."""
    for path in (entry.socket, entry.socket.with_suffix(".json")):
        with contextlib.suppress(OSError):
            path.unlink()


def running(folder: Path | None = None) -> list[RunningBrowser]:
    """The browsers whose hosts listen now, oldest first; entries of hosts that died are removed."""
    folder = folder or registry_dir()
    found: list[RunningBrowser] = []
    for description in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            entry = RunningBrowser.model_validate_json(description.read_text())
        except (OSError, ValidationError):
            continue
        if not alive(entry.pid):
            unregister(entry)
        elif entry.socket.exists():
            found.append(entry)
    return sorted(found, key=lambda e: e.started)


def choose(entries: list[RunningBrowser], wanted: str | None) -> RunningBrowser:
    """The browser to attach to: the one `wanted` names, or the only one there is."""
    listing = "; ".join(e.label() for e in entries)
    if not entries:
        raise BrowserChoiceError("no_browser", f"no browser is connected: no Waymark host listens in {registry_dir()}")
    if wanted:
        picked = [e for e in entries if e.matches(wanted)]
        if len(picked) == 1:
            return picked[0]
        said = "matches none" if not picked else "matches several"
        raise BrowserChoiceError("no_such_browser", f"--browser {wanted!r} {said} of the running browsers: {listing}")
    if len(entries) > 1:
        raise BrowserChoiceError("several_browsers", f"{len(entries)} browsers with Waymark are running: {listing}. Start "
                                 "`waymark mcp --browser WORD` with a word of one of them (its profile folder, or its host pid)")
    return entries[0]

