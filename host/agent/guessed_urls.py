"""Addresses on the tab's own site that the model made up.

A small model that cannot find its way guesses paths: `/subscribe.html`, `manage_choices.html`
and `/contactus` all opened error pages in real runs, and the last of them threw away a newsletter
subscription that had landed. A page of the same site is opened only when a link on the page
leads there, the task gives it, or the run has been there; other sites are the policy's to judge
(a task may name a site the page never links to).
"""

from __future__ import annotations

from urllib.parse import urldefrag, urlsplit

from waymark.host.core.actions import absolute_url
from waymark.host.core.snapshot import Snapshot


def _page(url: str) -> str:
    return urldefrag(url)[0]


def made_up_url(url: str, snapshot: Snapshot, task: str, visited: set[str]) -> str | None:
    """Why opening `url` (absolute) from `snapshot` is refused, or None when it may be opened.
    Decided only on a page seen whole: a link beyond the text budget or under an overlay may lead there."""
    target, here = urlsplit(url), urlsplit(snapshot.url)
    if not here.netloc or (target.scheme, target.netloc) != (here.scheme, here.netloc):
        return None
    if snapshot.next_offset is not None or snapshot.stats.get("occluded"):
        return None
    page = _page(url)
    linked = {_page(absolute_url(e.href, snapshot.url)) for e in snapshot.elements if e.href}
    if page in linked or page in {_page(v) for v in visited} or page in task or (target.path.strip("/") and target.path in task):
        return None
    where = target.path + (f"?{target.query}" if target.query else "")
    return (f"no link on this page leads to {where}, the task does not give it and this run has not been there: a made-up "
            "address opens an error page; click a link or button of this page, go back, or answer done")
