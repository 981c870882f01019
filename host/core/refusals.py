"""A request the host refuses before it reaches the browser or the disk, with a stable code the
model can act on and a sentence (upload_file's files, read_download's download)."""

from __future__ import annotations


class Refused(Exception):
    """Refused, with an error code and a message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
