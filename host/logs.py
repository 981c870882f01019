"""Logging to a rotating file, and the guard that keeps stdout for native messaging only."""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import sys
from typing import BinaryIO

from waymark.host.core.paths import private_dir, state_dir

LOG_FILE_NAME = "host.log"


def configure_logging(level: int = logging.INFO, file_name: str = LOG_FILE_NAME) -> logging.Handler:
    """Send every log record to a rotating file in the state directory, never to stdout (the host's
    `host.log`; the MCP server, whose stdout is its MCP channel, writes `mcp.log`)."""
    folder = private_dir(state_dir())
    handler = logging.handlers.RotatingFileHandler(
        folder / file_name, maxBytes=2 * 1024 * 1024, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    return handler


def claim_stdout() -> tuple[BinaryIO, BinaryIO]:
    """Take the real stdin/stdout for the channel and make stray writes harmless.

    File descriptor 1 is re-pointed at stderr, so a `print`, a C extension writing to fd 1 or
    a subprocess inheriting stdout cannot put a byte on the channel; the channel keeps a
    private duplicate of the original descriptor. Returns (channel_in, channel_out).
    """
    channel_out = io.FileIO(os.dup(1), "wb", closefd=True)
    channel_in = io.FileIO(os.dup(0), "rb", closefd=True)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, encoding="utf-8")
    return channel_in, channel_out  # type: ignore[return-value]
