"""The side panel across MV3 lifetime events and a broken install, each in its own browser:
the host not registered, and the service worker stopped in the middle of a turn."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, AsyncIterator

import pytest_asyncio
from playwright.async_api import expect

from tests.conftest import wait_connected
from tests.e2e.test_sidepanel import Panel, configure, keepalive_released, tab_id_of
from waymark.host.extension import extension_dir, extension_id
from waymark.host.launch import (
    BASE_FLAGS,
    LaunchedBrowser,
    chromium_path,
)


async def open_panel_on_shop(launched: LaunchedBrowser, site_url: str) -> tuple[Panel, Any]:
    shop = await launched.context.new_page()
    await shop.goto(f"{site_url}/sidepanel/shop.html?case={uuid.uuid4().hex}")
    page = await launched.context.new_page()
    await page.set_viewport_size({"width": 380, "height": 760})
    panel = await Panel(page).open(launched.extension_id, await tab_id_of(launched.service_worker, shop.url))
    await expect(page.locator("#status")).to_have_attribute("data-status", "connected", timeout=20000)
    return panel, shop


async def stop_service_worker(launched: LaunchedBrowser, page: Any) -> None:
    """Stop the extension's worker as Chrome does when it is idle (Playwright alone keeps it alive)."""
    cdp = await launched.context.new_cdp_session(page)
    versions: dict[str, dict] = {}
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.update({v["versionId"]: v for v in e["versions"]}))
    await cdp.send("ServiceWorker.enable")
    prefix = f"chrome-extension://{launched.extension_id}/"
    for _ in range(100):
        running = [v for v in versions.values() if v["scriptURL"].startswith(prefix) and v["runningStatus"] == "running"]
        if running:
            break
        await asyncio.sleep(0.05)
    assert running, f"the extension's worker is not running: {list(versions.values())}"
    await cdp.send("ServiceWorker.stopWorker", {"versionId": running[0]["versionId"]})
    await cdp.detach()


async def fresh_worker(launched: LaunchedBrowser) -> Any:
    """The worker instance that started after the stop. Playwright's handle follows the
    restarted worker (same target), so "fresh" means: no longer carries the marker set before."""
    worker = launched.service_worker
    for _ in range(200):
        try:
            if await worker.evaluate("() => globalThis.__beforeStop === undefined && Boolean(globalThis.waymark)"):
                return worker
        except Exception:
            pass  # evaluating while the worker restarts
        await asyncio.sleep(0.05)
    raise AssertionError("no new service worker instance started")


@pytest_asyncio.fixture
async def panel_without_host(playwright_instance: Any, tmp_path: Path) -> AsyncIterator[Panel]:
    """The side panel of a browser whose profile has no host registered (a fresh install)."""
    ext = str(extension_dir())
    context = await playwright_instance.chromium.launch_persistent_context(
        str(tmp_path / "no-host-profile"), executable_path=chromium_path(), headless=True,
        ignore_default_args=["--disable-extensions"],
        args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}", *BASE_FLAGS],
    )
    try:
        panel = Panel(await context.new_page())
        await panel.open(extension_id(), None)
        yield panel
    finally:
        await context.close()


async def test_host_missing_shows_the_exact_install_command(panel_without_host: Panel):
    page = panel_without_host.page
    problem = page.locator("#host-problem")
    await expect(problem).to_contain_text("The Waymark host is not installed for this browser.", timeout=20000)
    await expect(problem.locator("#install-command")).to_have_text("./install_host.sh")
    await expect(problem).to_contain_text("Run this in your Waymark folder")
    await expect(problem).to_contain_text("Troubleshooting section of README.md")
    await expect(page.locator("#status")).to_have_text("host offline")
    assert panel_without_host.errors == []


async def test_host_missing_settings_tab_says_why_instead_of_loading_for_ever(panel_without_host: Panel):
    # Seen in real Chromium with no host registered: the Settings tab said
    # "Loading settings from the host…" for as long as the panel stayed open.
    page = panel_without_host.page
    await expect(page.locator("#status")).to_have_text("host offline", timeout=20000)
    await page.locator("#tab-settings").click()
    form = page.locator("#settings-form")
    await expect(form).to_contain_text(
        "Settings are kept by the host, which is not connected: The Waymark host is not installed for this browser.")
    await expect(form).to_contain_text("Run ./install_host.sh as shown above.")
    await expect(form).to_contain_text("Troubleshooting section of README.md")
    await expect(form).not_to_contain_text("Loading settings")
    # The problem box with the command stays in view above the Settings tab.
    await expect(page.locator("#host-problem #install-command")).to_be_visible()
    assert panel_without_host.errors == []


async def test_worker_stopped_mid_run_ends_the_run_with_a_clear_message(own_browser: LaunchedBrowser, site_url: str):
    sw = own_browser.service_worker
    await configure(sw)
    panel, shop = await open_panel_on_shop(own_browser, site_url)
    await panel.start_task("Buy the green tea")
    await expect(panel.page.locator(".prompt-card.confirm")).to_be_visible(timeout=30000)
    assert await sw.evaluate("() => globalThis.waymark.keepalive()") == {"holders": 1, "document": True}

    await sw.evaluate("() => { globalThis.__beforeStop = true; }")
    await stop_service_worker(own_browser, panel.page)

    summary = panel.page.locator("#agent-summary .summary")
    await expect(summary).to_have_attribute("data-outcome", "error", timeout=10000)
    await expect(summary).to_contain_text("Run interrupted")
    await expect(summary).to_contain_text("no further actions were taken")
    await expect(panel.page.locator(".prompt-card.confirm")).to_contain_text("The run ended.")
    await expect(panel.page.locator("#agent-start")).to_be_visible()
    await expect(shop.locator("#status")).to_have_text("")

    # A fresh worker starts, reconnects the host and leaves no keepalive document behind.
    worker = await fresh_worker(own_browser)
    await wait_connected(worker)
    assert await keepalive_released(worker)
    await expect(panel.page.locator("#status")).to_have_attribute("data-status", "connected", timeout=20000)
    answer = await panel.ask("Still there?")
    await expect(answer).to_have_attribute("data-state", "done")
    assert panel.errors == []


class _SlowChatServer(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that streams its answer slowly (a real SSE stream)."""

    pieces = ["The ", "answer ", "arrives ", "slowly ", "but ", "whole."]
    delay_s = 0.4
    requests = 0

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length", 0))
        json.loads(self.rfile.read(length) or b"{}")
        type(self).requests += 1
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        try:
            for piece in self.pieces:
                chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "slow", "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                time.sleep(self.delay_s)
            end = {"id": "c1", "object": "chat.completion.chunk", "model": "slow", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the host that asked is gone


async def test_worker_stopped_mid_answer_asks_again_and_completes(own_browser: LaunchedBrowser, site_url: str):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowChatServer)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sw = own_browser.service_worker
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        await configure(sw, chat={"provider": "openai_compat", "model": "slow", "options": {"preset": "ollama", "base_url": base_url}})
        panel, _shop = await open_panel_on_shop(own_browser, site_url)
        await expect(panel.page.locator("#chat-model")).to_contain_text("openai_compat/slow", timeout=10000)
        before = _SlowChatServer.requests
        await panel.page.locator("#chat-input").fill("Tell me slowly")
        await panel.page.locator("#chat-send").click()
        answer = panel.page.locator(".msg-assistant").last
        await expect(answer.locator(".bubble")).to_contain_text("The answer", timeout=10000)

        await stop_service_worker(own_browser, panel.page)

        await expect(answer.locator(".notice")).to_contain_text("restarted mid-answer; asked again", timeout=10000)
        await expect(answer).to_have_attribute("data-state", "done", timeout=30000)
        await expect(answer.locator(".bubble")).to_have_text("The answer arrives slowly but whole.")
        assert _SlowChatServer.requests == before + 2
        assert panel.errors == []
    finally:
        server.shutdown()


async def test_stop_ends_a_streaming_answer_and_keeps_what_arrived(own_browser: LaunchedBrowser, site_url: str):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowChatServer)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        await configure(own_browser.service_worker, chat={"provider": "openai_compat", "model": "slow", "options": {"preset": "ollama", "base_url": base_url}})
        panel, _shop = await open_panel_on_shop(own_browser, site_url)
        await expect(panel.page.locator("#chat-model")).to_contain_text("openai_compat/slow", timeout=10000)
        await panel.page.locator("#chat-input").fill("Tell me slowly")
        await panel.page.locator("#chat-send").click()
        answer = panel.page.locator(".msg-assistant").last
        await expect(answer.locator(".bubble")).to_contain_text("The answer", timeout=10000)
        await panel.page.locator("#chat-stop").click()
        await expect(answer).to_have_attribute("data-state", "stopped", timeout=5000)
        await expect(answer.locator(".meta")).to_contain_text("stopped")
        assert "whole." not in await answer.locator(".bubble").inner_text()
        await expect(panel.page.locator("#chat-send")).to_be_visible()
        assert await keepalive_released(own_browser.service_worker)
        assert panel.errors == []
    finally:
        server.shutdown()
