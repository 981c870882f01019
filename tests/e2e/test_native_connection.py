"""The real extension talks to the real host through Chrome's native messaging."""

import os
import signal

from tests.conftest import wait_connected


async def test_extension_completes_the_handshake_with_the_host(sw):
    state = await wait_connected(sw)
    assert state["status"] == "connected"
    assert state["hostVersion"] == "0.1.0"
    assert state["error"] is None


async def test_ping_round_trips_through_the_native_port(sw):
    await wait_connected(sw)
    ms = await sw.evaluate("() => globalThis.waymark.ping()")
    assert ms >= 0


async def test_extension_calls_a_host_method_and_gets_its_reply(sw):
    await wait_connected(sw)
    info = await sw.evaluate("() => globalThis.waymark.call('host.info')")
    assert info["protocol"] == 1
    assert "host.info" in info["methods"]


async def test_a_host_reply_over_one_megabyte_is_reassembled_by_the_extension(sw):
    await wait_connected(sw)
    size = await sw.evaluate("async () => (await globalThis.waymark.call('host.payload', {bytes: 5000000})).data.length")
    assert size == 5_000_000


async def test_host_can_ask_the_extension_for_its_tabs(sw, page, site_url):
    await page.goto(f"{site_url}/index.html")
    await wait_connected(sw)
    tabs = await sw.evaluate("() => globalThis.waymark.call('browser.request', {method: 'tabs.list'})")
    assert any(t["url"].startswith(site_url) for t in tabs["data"]["tabs"])


async def test_extension_reconnects_after_the_host_process_is_killed(sw):
    state = await wait_connected(sw)
    before = state["connects"]
    pid = (await sw.evaluate("() => globalThis.waymark.call('host.info')"))["pid"]
    os.kill(pid, signal.SIGKILL)
    state = await wait_connected(sw, min_connects=before + 1)
    new_pid = (await sw.evaluate("() => globalThis.waymark.call('host.info')"))["pid"]
    assert new_pid != pid
    assert state["status"] == "connected"


async def test_unknown_host_method_rejects_with_its_code(sw):
    await wait_connected(sw)
    code = await sw.evaluate("() => globalThis.waymark.call('nope').then(() => 'resolved', e => e.code)")
    assert code == "unknown_method"
