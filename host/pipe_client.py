"""Talking to a host process over its stdin/stdout exactly as Chrome does: used by
`waymark doctor`, the protocol tests and the benchmarks."""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

from waymark.host.framing import HEADER, decode_body, dumps, encode_frame


class HostProcess:
    """A host started as a child process with pipes for its stdin and stdout."""

    def __init__(self, argv: Sequence[str] | None = None, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        argv = list(argv or [sys.executable, "-m", "waymark.host", "host", "chrome-extension://test/"])
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=str(cwd) if cwd else None,
        )
        self._buffer = b""
        #: How many frames the last `read` took (more than one: the message was chunked).
        self.frames_in_last_read = 0

    def send_raw(self, data: bytes) -> None:
        """Write bytes to the host's stdin as they are (for malformed-frame tests)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_body(self, body: bytes) -> None:
        """Send one frame with this body."""
        self.send_raw(encode_frame(body))

    def send(self, message: dict[str, Any]) -> None:
        """Send one JSON message."""
        self.send_body(dumps(message))

    def _fill(self, n: int, timeout: float) -> bool:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while len(self._buffer) < n:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise TimeoutError(f"no reply from the host within {timeout:g} s")
            data = os.read(fd, 1 << 20)
            if not data:
                return False
            self._buffer += data
        return True

    def read_frame(self, timeout: float = 10.0) -> bytes | None:
        """One raw frame body from the host's stdout, or None when it closed stdout."""
        if not self._fill(HEADER.size, timeout):
            return None
        (length,) = HEADER.unpack(self._buffer[: HEADER.size])
        if not self._fill(HEADER.size + length, timeout):
            raise EOFError("host closed stdout inside a frame")
        body = self._buffer[HEADER.size : HEADER.size + length]
        self._buffer = self._buffer[HEADER.size + length :]
        return body

    def read(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """One message, with chunked messages reassembled; None when stdout closed."""
        body = self.read_frame(timeout)
        if body is None:
            return None
        message = decode_body(body)
        assert isinstance(message, dict)
        self.frames_in_last_read = 1
        if message.get("type") != "chunk":
            return message
        pieces = [base64.b64decode(message["data"])]
        for _ in range(message["total"] - 1):
            nxt = self.read_frame(timeout)
            assert nxt is not None
            pieces.append(base64.b64decode(json.loads(nxt)["data"]))
            self.frames_in_last_read += 1
        result = decode_body(b"".join(pieces))
        assert isinstance(result, dict)
        return result

    def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any] | None:
        """Send a message and read the next one."""
        self.send(message)
        return self.read(timeout)

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()

    def wait(self, timeout: float = 10.0) -> int:
        """Close stdin and wait for the exit code."""
        self.close_stdin()
        return self.proc.wait(timeout)

    def stderr_text(self) -> str:
        """Everything the host wrote to stderr (call after it exited)."""
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def __enter__(self) -> "HostProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream and not stream.closed:
                stream.close()
