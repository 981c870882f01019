"""The one loop of every framed connection: the browser's native port (host.server), the control
socket on the host's side (host.control_server) and the caller's (host.control_client), with
host.pipe_client reading a host's stdout through the same decoding.

Each frame is decoded and validated as a protocol model before anything sees it, and bad input
ends the same way everywhere: a body that is not UTF-8 JSON or not a valid message is handed to
`on_bad` as a FrameDecodeError or ProtocolError while the stream stays in sync; an oversized
length header (FrameTooLarge) or a stream that ends inside a frame (TruncatedFrame) ends the loop,
which returns it so the connection can answer (`closing_reply`) and close.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from typing import Awaitable, BinaryIO, Callable, TypeVar, Union

from pydantic import BaseModel

from waymark.host.core.protocol import ErrorReply, Outbound, ProtocolError
from waymark.host.framing import (
    FrameDecodeError,
    FrameTooLarge,
    FramingError,
    decode_body,
    read_frame,
    read_stream_frame,
)

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

#: The next frame body of a connection, None on a clean EOF; raises FramingError.
FrameSource = Callable[[], Awaitable[Union[bytes, None]]]
#: A frame that arrived whole but is not a valid message.
BadFrame = Union[FrameDecodeError, ProtocolError]
#: Where a connection's host-to-browser messages go.
Send = Callable[[Outbound], None]


def decode_message(body: bytes, parse: Callable[[object], M]) -> M:
    """A frame body as a protocol model; FrameDecodeError or ProtocolError when it is not one."""
    return parse(decode_body(body))


def stream_frames(reader: asyncio.StreamReader) -> FrameSource:
    """The frames of an asyncio stream (a control socket)."""
    return functools.partial(read_stream_frame, reader)


def threaded_frames(stream: BinaryIO) -> FrameSource:
    """The frames of a blocking stream (the host's stdin), read by a daemon thread so the event
    loop never waits on it. A failed read is logged and ends the stream like an EOF."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes | FramingError | None] = asyncio.Queue()

    def pump() -> None:
        def put(item: bytes | FramingError | None) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        try:
            while (body := read_frame(stream)) is not None:
                put(body)
            put(None)
        except FramingError as exc:
            put(exc)
        except OSError as exc:
            log.error("reading the channel failed: %s", exc)
            put(None)

    threading.Thread(target=pump, name="frame-reader", daemon=True).start()

    async def next_frame() -> bytes | None:
        item = await queue.get()
        if isinstance(item, FramingError):
            raise item
        return item

    return next_frame


async def serve_frames(source: FrameSource, parse: Callable[[object], M], on_message: Callable[[M], None],
                       on_bad: Callable[[BadFrame], None]) -> FramingError | None:
    """Hand each valid message of `source` to `on_message` and each bad one to `on_bad` until the
    stream ends: None at a clean EOF, else the FramingError that broke it. What the handlers
    raise ends the loop too (a connection whose replies cannot be written is over)."""
    while True:
        try:
            body = await source()
        except FramingError as exc:
            return exc
        if body is None:
            return None
        try:
            message = decode_message(body, parse)
        except (FrameDecodeError, ProtocolError) as exc:
            on_bad(exc)
            continue
        on_message(message)


def bad_frame_reply(exc: BadFrame) -> ErrorReply:
    """The typed error a bad frame is answered with; its id when the frame had a readable one."""
    return ErrorReply(id=getattr(exc, "message_id", None), code=exc.code, message=str(exc))


def closing_reply(exc: FramingError) -> ErrorReply | None:
    """What a broken stream is answered with before the connection closes: an oversized frame is
    refused with its typed error; a truncated one has nobody left to tell."""
    return ErrorReply(code=exc.code, message=str(exc)) if isinstance(exc, FrameTooLarge) else None
