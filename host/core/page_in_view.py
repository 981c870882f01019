"""The page a model call is about, as a side channel for the scripted provider alone.

The agent sets it around each model call (`showing(snapshot)`); the scripted provider reads it
(`page_in_view()`) to resolve its script's targets against the real perception. Requests never
carry the snapshot, so real providers receive only the prompt built from it.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from waymark.host.core.snapshot import Snapshot

_PAGE: ContextVar[Snapshot | None] = ContextVar("waymark_page_in_view", default=None)


@contextmanager
def showing(snapshot: Snapshot | None) -> Iterator[None]:
    """Make `snapshot` the page in view for the model calls made inside this block."""
    token = _PAGE.set(snapshot)
    try:
        yield
    finally:
        _PAGE.reset(token)


def page_in_view() -> Snapshot | None:
    """The snapshot the current model call was built from, if the caller said."""
    return _PAGE.get()
