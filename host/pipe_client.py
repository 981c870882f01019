"""Talking to a host process over its stdin/stdout exactly as Chrome does: used by
`waymark doctor`, the protocol tests and the benchmarks."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

from waymark.host.channel import decode_message
from waymark.host.core.protocol import Chunk, parse_outbound
from waymark.host.framing import (
    HEADER,
    TruncatedFrame,
    check_body,
    decode_body,
    dumps,
    encode_frame,
    frame_length,
    join_chunks,
)

#: How long a read waits for the host's next frame: a deadline for a host that never answers,
#: not an expectation of speed. A cold host imports every provider SDK before its first reply,
#: which takes seconds on a busy machine; a live host answers at once however long this is.
REPLY_DEADLINE_S = 60.0


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
        """Send one JSON message as it is: a test may send what no model allows."""
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

    def read_frame(self, timeout: float = REPLY_DEADLINE_S) -> bytes | None:
        """One raw frame body from the host's stdout, or None when it closed stdout between
        frames; the framing's FrameTooLarge and TruncatedFrame for a broken stream."""
        if not self._fill(HEADER.size, timeout):
            if not self._buffer:
                return None
            raise TruncatedFrame(f"host closed stdout inside a length header ({len(self._buffer)} of 4 bytes)")
        length = frame_length(self._buffer[: HEADER.size])
        self._fill(HEADER.size + length, timeout)
        body = check_body(self._buffer[HEADER.size : HEADER.size + length], length)
        self._buffer = self._buffer[HEADER.size + length :]
        return body

    def read(self, timeout: float = REPLY_DEADLINE_S) -> dict[str, Any] | None:
        """One message as the host wrote it, chunked messages reassembled; None when stdout closed.
        Every frame must be a valid host-to-browser message (ProtocolError otherwise)."""
        body = self.read_frame(timeout)
        if body is None:
            return None
        message = decode_message(body, parse_outbound)
        self.frames_in_last_read = 1
        if isinstance(message, Chunk):
            chunks = [message]
            while len(chunks) < message.total:
                more = self.read_frame(timeout)
                if more is None:
                    raise TruncatedFrame(f"host closed stdout after {len(chunks)} of {message.total} chunks")
                chunks.append(Chunk.model_validate(decode_body(more)))
                self.frames_in_last_read += 1
            body = join_chunks(chunks)
            decode_message(body, parse_outbound)
        result = decode_body(body)
        assert isinstance(result, dict)
        return result

    def request(self, message: dict[str, Any], timeout: float = REPLY_DEADLINE_S) -> dict[str, Any] | None:
        """Send a message and read the next one."""
        self.send(message)
        return self.read(timeout)

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()

    def wait(self, timeout: float = REPLY_DEADLINE_S) -> int:
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
