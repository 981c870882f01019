"""Helpers for tests that stop the extension's service worker the way Chrome stops an idle one."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any


async def until(predicate: Any, timeout_s: float = 30.0, evidence: Any = None) -> None:
    """Wait for `predicate()` (a value, or an awaitable of one) to hold, polled every 50 ms; fail
    with `evidence()` after `timeout_s`."""
    for _ in range(int(timeout_s * 20)):
        held = predicate()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition never held" + (f"\n{evidence()}" if evidence else ""))


async def stop_service_worker(browser: Any) -> None:
    """Stop the extension's worker the way Chrome stops an idle one (Playwright keeps it alive otherwise)."""
    page = await browser.context.new_page()
    await page.goto(f"chrome-extension://{browser.extension_id}/icons/icon16.png")
    cdp = await browser.context.new_cdp_session(page)
    versions: dict[str, dict[str, Any]] = {}
    # Every version that reported "stopped": an open panel or a recorded page wakes the worker
    # again at once, so its stopped state can come and go between two polls.
    stopped: set[str] = set()

    def updated(event: dict[str, Any]) -> None:
        for version in event["versions"]:
            versions[version["versionId"]] = version
            if version["runningStatus"] == "stopped":
                stopped.add(version["versionId"])

    cdp.on("ServiceWorker.workerVersionUpdated", updated)
    await cdp.send("ServiceWorker.enable")
    await until(lambda: any(v["runningStatus"] == "running" and browser.extension_id in v["scriptURL"] for v in versions.values()))
    running = next(v for v in versions.values() if v["runningStatus"] == "running" and browser.extension_id in v["scriptURL"])
    stopped.discard(running["versionId"])
    await cdp.send("ServiceWorker.stopWorker", {"versionId": running["versionId"]})
    await until(lambda: running["versionId"] in stopped)
    await cdp.detach()
    await page.close()
