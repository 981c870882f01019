"""Helpers for the dispatch end-to-end tests: find a page's tab, snapshot it, act on it through the host."""

from __future__ import annotations

from typing import Any

from tests.conftest import wait_connected
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot


async def tab_id_of(sw: Any, page: Any) -> int:
    """Chrome's tab id of a Playwright page (matched by URL; the newest tab wins)."""
    ids = await sw.evaluate("async (url) => (await chrome.tabs.query({})).filter(t => t.url === url).map(t => t.id)", page.url)
    assert ids, f"no tab shows {page.url}"
    return max(ids)


async def open_page(sw: Any, page: Any, url: str, **snapshot_options: Any) -> tuple[int, Snapshot]:
    """Open `url` in `page` once the extension is connected: the tab's id and its first snapshot."""
    await wait_connected(sw)
    await page.goto(url)
    tab = await tab_id_of(sw, page)
    return tab, await snapshot(sw, tab, **snapshot_options)


async def hold_debugger(sw: Any, tab: int) -> None:
    """Make dispatch's debugger attach fail for this tab, as another debugger would."""
    await sw.evaluate("(tabId) => chrome.debugger.attach({tabId}, '1.3')", tab)


async def release_debugger(sw: Any, tab: int) -> None:
    """Let dispatch attach to this tab again."""
    await sw.evaluate("(tabId) => chrome.debugger.detach({tabId}).catch(() => {})", tab)


async def snapshot(sw: Any, tab_id: int, **options: Any) -> Snapshot:
    """A snapshot of the tab, asked for through the host exactly as the agent asks."""
    params = {"tab_id": tab_id, **options}
    data = await sw.evaluate("(p) => globalThis.waymark.call('browser.request', {method: 'snapshot', params: p})", params)
    return Snapshot.model_validate(data["data"])


async def act(sw: Any, tab_id: int | None, action: dict[str, Any], **request: Any) -> ActionResult:
    """One action through the host's `act` method (host -> extension -> page)."""
    params = {"tab_id": tab_id, "action": action, **request}
    return ActionResult.model_validate(await sw.evaluate("(p) => globalThis.waymark.call('act', p)", params))


def ref(snap: Snapshot, name: str, role: str | None = None) -> int:
    """The ref of the element whose accessible name contains `name` (and has `role`, if given)."""
    for element in snap.elements:
        if name.lower() in element.name.lower() and (role is None or element.role == role):
            return element.ref
    raise AssertionError(f"no element named {name!r} in the snapshot:\n{snap.text}")
