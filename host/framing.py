"""Native-messaging framing: a 4-byte little-endian length, then that many bytes of UTF-8 JSON.

Reading is split from decoding so that a frame with bad contents (invalid UTF-8, invalid
JSON) can be answered with a typed error while the stream stays in sync; only a broken
length header or a truncated frame ends the stream.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import threading
from typing import Any, BinaryIO

from pydantic import BaseModel

from waymark.host.core.protocol import Chunk

HEADER = struct.Struct("<I")
#: Browser-to-host frames above this are refused (Chrome's own limit is 64 MiB).
MAX_INBOUND_BYTES = 64 * 1024 * 1024
#: Chrome kills the port on a host-to-browser frame above 1,048,576 bytes.
MAX_OUTBOUND_BYTES = 1024 * 1024
#: Raw payload bytes per chunk; base64 makes it 4/3 larger, still well under the limit.
CHUNK_RAW_BYTES = 600 * 1024


class FramingError(Exception):
    """The byte stream itself is broken; the connection cannot continue."""

    code = "framing_error"


class FrameTooLarge(FramingError):
    """A length header announced more than MAX_INBOUND_BYTES."""

    code = "frame_too_large"

    def __init__(self, length: int) -> None:
        super().__init__(f"frame of {length} bytes exceeds the {MAX_INBOUND_BYTES}-byte limit")
        self.length = length


class TruncatedFrame(FramingError):
    """The stream ended inside a header or a body."""

    code = "truncated_frame"


class FrameDecodeError(Exception):
    """A complete frame whose body is not UTF-8 JSON; the stream itself is still in sync."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _read_exactly(stream: BinaryIO, n: int) -> bytes:
    chunks: list[bytes] = []
    remaining = n
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def frame_length(header: bytes) -> int:
    """The body length a complete header announces; FrameTooLarge above MAX_INBOUND_BYTES,
    TruncatedFrame for a header the stream cut short."""
    if len(header) < HEADER.size:
        raise TruncatedFrame(f"stream ended inside a length header ({len(header)} of 4 bytes)")
    (length,) = HEADER.unpack(header[: HEADER.size])
    if length > MAX_INBOUND_BYTES:
        raise FrameTooLarge(length)
    return int(length)


def check_body(body: bytes, length: int) -> bytes:
    """The body, or TruncatedFrame when the stream ended before `length` bytes of it."""
    if len(body) < length:
        raise TruncatedFrame(f"stream ended inside a frame ({len(body)} of {length} bytes)")
    return body


def read_frame(stream: BinaryIO) -> bytes | None:
    """Read one frame body. Returns None on a clean EOF between frames.

    Raises FrameTooLarge for an oversized header and TruncatedFrame for EOF inside a frame.
    """
    header = _read_exactly(stream, HEADER.size)
    if not header:
        return None
    length = frame_length(header)
    return check_body(_read_exactly(stream, length), length)


def decode_body(body: bytes) -> object:
    """Decode a frame body into a JSON value, or raise FrameDecodeError with a typed code."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameDecodeError("invalid_utf8", f"frame is not valid UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FrameDecodeError("invalid_json", f"frame is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None


def encode_frame(payload: bytes) -> bytes:
    """Prefix a body with its length header."""
    return HEADER.pack(len(payload)) + payload


def dumps(value: Any) -> bytes:
    """Serialise a JSON value compactly as UTF-8 JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def encode_message(message: BaseModel) -> bytes:
    """A protocol message's frame body: every field, in JSON mode."""
    return dumps(message.model_dump(mode="json"))


def split_into_chunks(body: bytes, chunk_id: str) -> list[Chunk]:
    """Split an oversized host-to-browser body into `chunk` messages the extension reassembles.

    The data is base64 so that JSON escaping cannot inflate a chunk past Chrome's limit.
    """
    pieces = [body[i : i + CHUNK_RAW_BYTES] for i in range(0, len(body), CHUNK_RAW_BYTES)] or [b""]
    return [
        Chunk(chunk_id=chunk_id, index=index, total=len(pieces), data=base64.b64encode(piece).decode("ascii"))
        for index, piece in enumerate(pieces)
    ]


def join_chunks(chunks: list[Chunk]) -> bytes:
    """The body a complete sequence of chunks carries (what the extension's reassembly does)."""
    return b"".join(base64.b64decode(c.data) for c in sorted(chunks, key=lambda c: c.index))


class FrameWriter:
    """Writes frames to one binary stream under one lock, chunking anything over the limit."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._chunk_seq = 0

    def send(self, message: BaseModel) -> None:
        """Send one message; bodies over MAX_OUTBOUND_BYTES travel as a sequence of chunks."""
        body = encode_message(message)
        with self._lock:
            if len(body) + HEADER.size <= MAX_OUTBOUND_BYTES:
                frames = [encode_frame(body)]
            else:
                self._chunk_seq += 1
                frames = [encode_frame(encode_message(c)) for c in split_into_chunks(body, f"c{self._chunk_seq}")]
            for frame in frames:
                self._stream.write(frame)
            self._stream.flush()


async def read_stream_frame(reader: asyncio.StreamReader) -> bytes | None:
    """One frame body from an asyncio stream (the control socket), or None on a clean EOF between
    frames; the same FrameTooLarge and TruncatedFrame as `read_frame`."""
    try:
        header = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        header = exc.partial
    length = frame_length(header)
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        return check_body(exc.partial, length)


def write_stream_frame(writer: asyncio.StreamWriter, message: BaseModel) -> None:
    """Queue one message's frame on an asyncio stream."""
    writer.write(encode_frame(encode_message(message)))
