"""Helpers of the perception tests: snapshots through the real host, ref diagnostics."""

from __future__ import annotations

from typing import Any

from tests.conftest import wait_connected


async def snapshot(sw: Any, page: Any, **options: Any) -> dict[str, Any]:
    """Snapshot `page` through the real path: SW -> host method `snapshot` -> extension request."""
    await wait_connected(sw)
    await page.bring_to_front()
    snap = await sw.evaluate("(p) => globalThis.waymark.call('snapshot', p)", options)
    assert snap["url"].split("?")[0] == page.url.split("?")[0], "snapshot of the wrong tab"
    return snap


def by_name(snap: dict[str, Any], name: str) -> dict[str, Any]:
    """The one element of the snapshot with this accessible name."""
    found = [e for e in snap["elements"] if e["name"] == name]
    assert len(found) == 1, f"expected one element named {name!r}, got {found} in:\n{snap['text']}"
    return found[0]


def names(snap: dict[str, Any]) -> set[str]:
    return {e["name"] for e in snap["elements"]}


async def ref_info(sw: Any, tab_id: int, refs: list[int]) -> list[dict[str, Any]]:
    """Whether each global ref still points at a live element (diagnostics handle)."""
    return await sw.evaluate("([t, r]) => globalThis.waymark.snapshot.refInfo(t, r)", [tab_id, refs])
