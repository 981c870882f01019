"""Pages served over plain http on a host that is not loopback are no secure context: the
content script must not need what only secure contexts have (crypto.randomUUID)."""

from __future__ import annotations

import pytest

from tests.e2e.dispatch_helpers import open_page, ref

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_plain_http_page_off_loopback_is_read_and_acted_on(sw, page, allowed_site):
    allowed_site.pages["/"] = '<!doctype html><title>Plain</title><button onclick="this.textContent=\'Pressed\'">Press me</button>'
    _, snap = await open_page(sw, page, f"{allowed_site.url}/")
    assert await page.evaluate("() => window.isSecureContext") is False
    assert ref(snap, "Press me", "button")
