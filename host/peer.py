"""Who is at the other end of a control connection, as the kernel tells it: the peer process's
pid (SO_PEERCRED on Linux, LOCAL_PEERPID on macOS), its executable and its parent, read from
/proc where there is one. A client's own name for itself proves nothing; these the client
cannot choose, so the side panel shows them when it asks the user to allow a connection."""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass
from typing import Protocol

#: macOS's getsockopt level and option for the peer's pid (sys/un.h): not in Python's socket module.
_SOL_LOCAL, _LOCAL_PEERPID = 0, 2


class Socket(Protocol):
    """What is read of a socket: a socket.socket, or the asyncio transport's view of one."""

    def getsockopt(self, level: int, option: int, buflen: int) -> bytes: ...


@dataclass(frozen=True)
class Peer:
    """The process on the other end of a Unix socket; fields it could not read are empty."""

    pid: int | None = None
    exe: str = ""
    parent_pid: int | None = None
    parent_exe: str = ""

    def describe(self) -> str:
        """One line for the user: `process 123 (/usr/bin/node), started by 45 (/usr/bin/bash)`."""
        if self.pid is None:
            return "a process whose identity the system did not give"
        line = f"process {self.pid}" + (f" ({self.exe})" if self.exe else "")
        if self.parent_pid is not None:
            line += f", started by {self.parent_pid}" + (f" ({self.parent_exe})" if self.parent_exe else "")
        return line


def peer_of(sock: Socket | None) -> Peer:
    """The peer of a connected Unix socket (an empty Peer when the system does not say)."""
    pid = _peer_pid(sock) if sock is not None else None
    if pid is None:
        return Peer()
    parent = _parent_pid(pid)
    return Peer(pid=pid, exe=_exe(pid), parent_pid=parent, parent_exe=_exe(parent) if parent else "")


def _peer_pid(sock: Socket) -> int | None:
    try:
        if hasattr(socket, "SO_PEERCRED"):
            pid, _uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
            return pid or None
        return int(struct.unpack("i", sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERPID, struct.calcsize("i")))[0]) or None
    except (OSError, struct.error):
        return None


def _exe(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _parent_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("PPid:"):
                    return int(line.split()[1]) or None
    except (OSError, ValueError, IndexError):
        pass
    return None
