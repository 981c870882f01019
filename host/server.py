"""`waymark host`: the native-messaging host process Chrome starts for each native port."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import BinaryIO

from pydantic import BaseModel

from waymark.host.bridge import BrowserBridge
from waymark.host.browsers import note_file_access
from waymark.host.calls import CallRunner
from waymark.host.channel import (
    BadFrame,
    bad_frame_reply,
    closing_reply,
    serve_frames,
    threaded_frames,
)
from waymark.host.control_server import listen_control, serve_control
from waymark.host.core import PROTOCOL_VERSION, __version__
from waymark.host.core.protocol import (
    BrowserEvent,
    Call,
    Cancel,
    ErrorReply,
    HelloFromBrowser,
    HelloFromHost,
    Outbound,
    Ping,
    Pong,
    Result,
    parse_inbound,
)
from waymark.host.framing import FrameWriter

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

    def send(self, message: Outbound) -> None:
        """Write one message to the browser (chunked if it is over Chrome's limit)."""
        self._writer.send(message)

    async def serve(self) -> int:
        """Serve until the browser closes the port or the stream breaks; returns the exit code."""
        loop = asyncio.get_running_loop()
        control_path = os.environ.get(CONTROL_ENV)
        if control_path:
            control_task = loop.create_task(serve_control(control_path, self, self._handshake_done))
        else:
            control_task = loop.create_task(listen_control(self, self._handshake_done))
        try:
            ended = await serve_frames(threaded_frames(self._in), parse_inbound, self._handle, self._refuse)
            if ended is None:
                log.info("browser closed the port")
                return 0
            log.error("closing: %s", ended)
            if (reply := closing_reply(ended)) is not None:
                self.send(reply)
            return 0
        except OSError as exc:
            # Even the error reply could not be written: the browser stopped reading.
            log.info("the browser stopped reading the channel (%s)", exc)
            return 0
        finally:
            self.bridge.disconnect()
            self.calls.cancel_all()
            await self.calls.drain()
            control_task.cancel()

    def _refuse(self, exc: BadFrame) -> None:
        log.warning("bad message (%s): %s", exc.code, exc)
        self.send(bad_frame_reply(exc))

    def _handle(self, message: BaseModel) -> None:
        try:
            self._dispatch(message)
        except OSError:
            raise
        except Exception as exc:
            log.exception("handling a message failed")
            self.send(ErrorReply(id=getattr(message, "id", None), code="internal_error", message=f"{type(exc).__name__}: {exc}"[:500]))

    def _dispatch(self, message: BaseModel) -> None:
        if isinstance(message, HelloFromBrowser):
            self.bridge.extension_version = message.extension_version
            self.bridge.capabilities = list(message.capabilities)
            log.info("hello from extension %s (protocol %s)", message.extension_version, message.protocol)
            note_file_access("file_access" in message.capabilities)
            if "file_access" in message.capabilities:
                log.warning("the extension may read local files (file access is on in chrome://extensions)")
            self.send(HelloFromHost(id=message.id, host_version=__version__, protocol=PROTOCOL_VERSION))
            self._handshake_done.set()
        elif isinstance(message, Ping):
            self.send(Pong(id=message.id))
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
