"""Frames: the snapshot of a frame-heavy page, cold (the first after the page loaded) and warm
(again, nothing changed), beside Playwright's AI snapshot of the same page.

The page (tests/fixtures/perception/frame_heavy.html) has the shape of a news page with ads:
200 stories, 10 same-origin and 10 cross-origin ad frames, 8 zero-size tracking frames and
5 hidden ones. Real news pages with that many frames took the longest of any in the snapshot
section (about 0.5 s for 33 frames), so they get a section of their own.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import SectionCut, bound_of
from waymark.eval.bench.markdown import pair, ratio, table
from waymark.eval.sites.serve import SiteServer
from waymark.host.core.stats import spread

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


def _stats(values: list[float]) -> dict[str, float]:
    return spread(values, suffix="_ms", count=True)


async def run(options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Measure cold and warm snapshots of the frame-heavy page over `rounds` loads."""
    from waymark.host.control_client import Controller

    rounds = max(2, int((options or {}).get("rounds", 20)) // 2)
    bound = bound_of(options, "frames")
    server = SiteServer(FIXTURES).start()
    cold: list[float] = []
    warm: list[float] = []
    peer: list[float] = []
    stats: dict[str, Any] = {}
    try:
        async with Controller(viewport=(1280, 800)) as controller:
            assert controller.browser is not None
            page = await controller.browser.context.new_page()
            url = f"{server.site}/perception/frame_heavy.html?other={server.other}"
            # The browser's first snapshot also starts the host's session: not counted.
            await page.goto(url, wait_until="load")
            await controller.call("snapshot", {}, timeout=120)
            for _ in bound.each(range(rounds), "loads"):
                try:
                    await bound.within(page.goto(url, wait_until="load"))
                    await page.bring_to_front()
                    started = time.perf_counter()
                    snap = await bound.within(controller.call("snapshot", {}, timeout=120))
                    cold_ms = (time.perf_counter() - started) * 1000
                    started = time.perf_counter()
                    await bound.within(controller.call("snapshot", {}, timeout=120))
                    warm_ms = (time.perf_counter() - started) * 1000
                    started = time.perf_counter()
                    await bound.within(page.aria_snapshot(mode="ai", timeout=60000))
                    peer.append((time.perf_counter() - started) * 1000)
                except SectionCut:
                    break
                cold.append(cold_ms)
                warm.append(warm_ms)
                stats = snap["stats"]
    finally:
        server.close()
    if not peer:
        return {"rounds": 0}
    return {"rounds": len(peer), "frames": stats.get("frames"), "unreadable_frames": stats.get("unreadable_frames"),
            "elements": stats.get("elements_total"), "cold": _stats(cold), "warm": _stats(warm), "peer": _stats(peer),
            "ratio_cold_median": round(statistics.median(cold) / statistics.median(peer), 3)}


def format_table(result: dict[str, Any]) -> str:
    """The section's numbers as a plain-text table."""
    if not result["rounds"]:
        return "frames: no load of the frame-heavy page measured within the section's bound"
    c, w, p = result["cold"], result["warm"], result["peer"]
    return "\n".join([
        f"frames (frame-heavy page: {result['frames']} frames, {result['unreadable_frames']} unreadable, "
        f"{result['elements']} elements; {result['rounds']} loads; median / p90 ms)",
        f"  cold snapshot (first after load) {c['median_ms']:>7.1f} / {c['p90_ms']:>7.1f}",
        f"  warm snapshot (unchanged page)   {w['median_ms']:>7.1f} / {w['p90_ms']:>7.1f}",
        f"  peer (Playwright AI snapshot)    {p['median_ms']:>7.1f} / {p['p90_ms']:>7.1f}   cold/peer {result['ratio_cold_median']}",
    ])


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    if not r.get("rounds"):
        return table(["frames"], [["no load measured"]])
    rows = [["cold snapshot (first after load)", pair(r["cold"], "_ms"), ratio(r["ratio_cold_median"])],
            ["warm snapshot (unchanged page)", pair(r["warm"], "_ms"), "–"],
            ["Playwright `aria_snapshot(mode='ai')`", pair(r["peer"], "_ms"), "1.00×"]]
    return table([f"frame-heavy page: {r['frames']} frames, {r['elements']} elements, {r['rounds']} loads", "ms (median / p90)", "vs Playwright"], rows)
