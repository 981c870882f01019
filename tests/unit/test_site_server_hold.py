"""The fixture server's held response (/_hold): what a long poll or stream sends, and a clear error
for a bad length."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from waymark.eval.sites.serve import HOLD_PATH, SiteServer


def test_a_held_response_starts_a_document_and_ends_after_its_seconds(tmp_path: Path) -> None:
    with SiteServer(tmp_path) as server, urllib.request.urlopen(f"{server.site}{HOLD_PATH}?seconds=0.3", timeout=10) as reply:
        body = reply.read()
    assert body.startswith(b"<!doctype html>")
    assert reply.status == 200


def test_a_held_response_with_a_length_that_is_not_a_number_is_refused_with_400(tmp_path: Path) -> None:
    with SiteServer(tmp_path) as server, pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server.site}{HOLD_PATH}?seconds=soon", timeout=10)
    assert refused.value.code == 400
    assert "seconds must be a number" in refused.value.reason


def test_a_response_held_without_an_end_ends_when_the_server_closes(tmp_path: Path) -> None:
    server = SiteServer(tmp_path).start()
    reply = urllib.request.urlopen(f"{server.site}{HOLD_PATH}", timeout=10)
    assert reply.read(len(b"<!doctype html>")) == b"<!doctype html>"
    server.close()
    reply.read()  # the rest arrives and the body ends: the server closed it, nothing hangs
    reply.close()
