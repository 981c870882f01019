"""Who may speak to the host through the extension: its own side panel (and offscreen page)
alone, as Chrome names the sender of a port; never a content script in a web page (a
compromised renderer can run one), never another extension. Real Chromium, the real extension
and host; a second unpacked extension beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import _host_env, wait_connected
from tests.e2e.dispatch_helpers import tab_id_of
from waymark.host.core import HOST_NAME

pytestmark = pytest.mark.asyncio(loop_scope="session")

#: Code run in a page's content-script world: connect as the panel and ask for the secrets'
#: names; the port's fate is what it learns (a reply, or a disconnect).
CONNECT_AS_PANEL = """(tabId) => chrome.scripting.executeScript({target: {tabId}, func: () => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: "panel" });
    const kinds = [];
    port.onMessage.addListener((m) => {
      kinds.push(m.kind);
      if (m.kind === "reply") resolve({ disconnected: false, kinds, reply: m });
    });
    port.onDisconnect.addListener(() => resolve({ disconnected: true, kinds }));
    port.postMessage({ kind: "call", id: "probe", method: "secrets.list", params: {} });
  })}).then((results) => results[0].result)"""


async def test_a_content_script_connecting_as_the_panel_is_disconnected_before_any_host_call(browser, page, site_url):
    await wait_connected(browser.service_worker)
    await page.goto(f"{site_url}/agent/menu.html")
    outcome = await browser.service_worker.evaluate(CONNECT_AS_PANEL, await tab_id_of(browser.service_worker, page))
    assert outcome == {"disconnected": True, "kinds": []}


async def test_the_side_panel_page_still_reaches_the_host(browser):
    await wait_connected(browser.service_worker)
    panel = await browser.context.new_page()
    try:
        await panel.goto(f"chrome-extension://{browser.extension_id}/sidepanel/sidepanel.html")
        reply = await panel.evaluate("""() => new Promise((resolve) => {
            const port = chrome.runtime.connect({ name: "panel" });
            port.onMessage.addListener((m) => { if (m.kind === "reply") resolve(m); });
            port.onDisconnect.addListener(() => resolve({ ok: false, disconnected: true }));
            port.postMessage({ kind: "call", id: "names", method: "secrets.list", params: {} });
        })""")
    finally:
        await panel.close()
    assert reply["ok"] is True, reply


@pytest.fixture
def other_extension(tmp_path: Path) -> Path:
    """An unpacked extension of someone else's, with the permissions it would need to try."""
    folder = tmp_path / "other-extension"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({
        "manifest_version": 3, "name": "Other", "version": "1.0",
        "background": {"service_worker": "sw.js"}, "permissions": ["nativeMessaging"]}))
    (folder / "sw.js").write_text("// reached from the test through its worker\n")
    return folder


async def test_another_extension_reaches_neither_the_extension_nor_the_native_host(
        playwright_instance, tmp_path, test_extension, other_extension):
    from waymark.host.launch import launch_browser

    both = f"{test_extension},{other_extension}"
    launched = await launch_browser(playwright_instance, tmp_path / "profile", host_env=_host_env(), extension=test_extension,
                                    extra_args=[f"--disable-extensions-except={both}", f"--load-extension={both}"])
    try:
        own = f"chrome-extension://{launched.extension_id}/"
        worker = next((w for w in launched.context.service_workers if w.url.endswith("/sw.js") and not w.url.startswith(own)), None)
        worker = worker or await launched.context.wait_for_event("serviceworker", predicate=lambda w: not w.url.startswith(own))
        message = await worker.evaluate("""(id) => chrome.runtime.sendMessage(id, { kind: "state" }).then(
            () => "answered", (e) => e.message)""", launched.extension_id)
        assert message == "Could not establish connection. Receiving end does not exist."
        native = await worker.evaluate("""(name) => new Promise((resolve) => {
            const port = chrome.runtime.connectNative(name);
            port.onDisconnect.addListener(() => resolve(chrome.runtime.lastError?.message || "disconnected"));
        })""", HOST_NAME)
        assert native == "Access to the specified native messaging host is forbidden."
    finally:
        await launched.context.close()
