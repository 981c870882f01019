"""`waymark host`: the native-messaging host process Chrome starts for each native port."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import BinaryIO

from waymark.host.bridge import BrowserBridge
from waymark.host.calls import CallRunner
from waymark.host.control_server import listen_control, serve_control
from waymark.host.core import PROTOCOL_VERSION, __version__
from waymark.host.core.protocol import (
    BrowserEvent,
    Call,
    Cancel,
    ErrorReply,
    HelloFromBrowser,
    HelloFromHost,
    Ping,
    Pong,
    ProtocolError,
    Result,
    outbound,
    parse_inbound,
)
from waymark.host.framing import (
    FrameDecodeError,
    FrameTooLarge,
    FrameWriter,
    TruncatedFrame,
    decode_body,
    read_frame,
)

log = logging.getLogger(__name__)

CONTROL_ENV = "WAYMARK_CONTROL"


class HostServer:
    """Reads frames from the browser, answers them, and runs the methods they call."""

    def __init__(self, channel_in: BinaryIO, channel_out: BinaryIO) -> None:
        self._in = channel_in
        self._writer = FrameWriter(channel_out)
        self.bridge = BrowserBridge(self._writer.send)
        self.calls = CallRunner(self.bridge)
        self._handshake_done = asyncio.Event()

    def send(self, message: dict) -> None:
        """Write one message to the browser (chunked if it is over Chrome's limit)."""
        self._writer.send(message)

    async def serve(self) -> int:
        """Serve until the browser closes the port or the stream breaks; returns the exit code."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, object]] = asyncio.Queue()
        threading.Thread(target=self._read_loop, args=(loop, queue), name="frame-reader", daemon=True).start()
        control_path = os.environ.get(CONTROL_ENV)
        if control_path:
            control_task = loop.create_task(serve_control(control_path, self, self._handshake_done))
        else:
            control_task = loop.create_task(listen_control(self, self._handshake_done))
        try:
            while True:
                kind, payload = await queue.get()
                if kind == "frame":
                    try:
                        self._handle(payload)  # type: ignore[arg-type]
                    except OSError as exc:
                        # Even the error reply could not be written: the browser stopped reading.
                        log.info("the browser stopped reading the channel (%s)", exc)
                        return 0
                elif kind == "eof":
                    log.info("browser closed the port")
                    return 0
                elif kind == "too_large":
                    exc = payload
                    assert isinstance(exc, FrameTooLarge)
                    log.error("closing: %s", exc)
                    self.send(outbound(ErrorReply(code=exc.code, message=str(exc))))
                    return 0
                elif kind == "truncated":
                    log.error("closing: %s", payload)
                    return 0
        finally:
            self.bridge.disconnect()
            self.calls.cancel_all()
            await self.calls.drain()
            control_task.cancel()

    def _read_loop(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[tuple[str, object]]) -> None:
        def put(item: tuple[str, object]) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        try:
            while True:
                body = read_frame(self._in)
                if body is None:
                    put(("eof", None))
                    return
                put(("frame", body))
        except FrameTooLarge as exc:
            put(("too_large", exc))
        except TruncatedFrame as exc:
            put(("truncated", exc))
        except OSError as exc:
            log.error("reading stdin failed: %s", exc)
            put(("eof", None))

    def _handle(self, body: bytes) -> None:
        message_id: str | None = None
        try:
            message = parse_inbound(decode_body(body))
            message_id = getattr(message, "id", None)
            self._dispatch(message)
        except (FrameDecodeError, ProtocolError) as exc:
            message_id = getattr(exc, "message_id", None)
            log.warning("bad message (%s): %s", exc.code, exc)
            self.send(outbound(ErrorReply(id=message_id, code=exc.code, message=str(exc))))
        except Exception as exc:
            log.exception("handling a message failed")
            self.send(outbound(ErrorReply(id=message_id, code="internal_error", message=f"{type(exc).__name__}: {exc}"[:500])))

    def _dispatch(self, message: object) -> None:
        if isinstance(message, HelloFromBrowser):
            self.bridge.extension_version = message.extension_version
            self.bridge.capabilities = list(message.capabilities)
            log.info("hello from extension %s (protocol %s)", message.extension_version, message.protocol)
            self.send(outbound(HelloFromHost(id=message.id, host_version=__version__, protocol=PROTOCOL_VERSION)))
            self._handshake_done.set()
        elif isinstance(message, Ping):
            self.send(outbound(Pong(id=message.id)))
        elif isinstance(message, Result):
            self.bridge.resolve(message)
        elif isinstance(message, BrowserEvent):
            self.bridge.emit(message.name, message.data)
        elif isinstance(message, Call):
            self.calls.start(message, self.send)
        elif isinstance(message, Cancel):
            self.calls.cancel(message.id)


def run_host() -> int:
    """Entry point of `waymark host`: claim stdout, log to a file, serve until the port closes."""
    from waymark.host.logs import claim_stdout, configure_logging

    channel_in, channel_out = claim_stdout()
    configure_logging()
    log.info("host %s starting (pid %d)", __version__, os.getpid())
    try:
        return asyncio.run(HostServer(channel_in, channel_out).serve())
    except KeyboardInterrupt:
        return 0
    except Exception:
        log.exception("host crashed")
        return 1
    finally:
        log.info("host exiting")
