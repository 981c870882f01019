"""Secrets bound as a password manager binds them, and kept secret once typed, in real Chromium
with the real extension and host (fake secret values):

- a task that never names a secret cannot type one, a provider key least of all: the page's
  field never receives it;
- the service worker types a secret only into a frame whose origin, as Chrome reports it, is
  on the secret's list: a cross-origin iframe on the right page is refused;
- a field a secret went into shows only that it has a value in snapshots, and its box is
  painted over in the screenshot (the JPEG decoded with Pillow);
- values the page shows of stored secrets (a token cut by the value cap, a passphrase with its
  spaces collapsed, a reversed echo) reach neither the prompt of a loopback model nor the trace,
  nor the chat model's prompt through "Use this page";
- the side panel stores a secret with the sites it asks for, and never shows its value.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from tests.agent_calls import start_run
from tests.e2e.dispatch_helpers import act, open_page, ref, snapshot
from waymark.host.core import secrets_store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

#: The fake secrets echo.html shows (a 120-character token, a double-spaced passphrase, a value echoed reversed).
TOKEN = ("wmk_5feceb666b86b273d4735e3a4e0740854b227777ef2d127de7f6c0117902699b2c62423219581e274a44dc154fc82b266b51d4313fdba35f8527")
PHRASE = "violet  lantern  orbit  seventeen"
ECHOED = "Quartz-Meadow-4471!"
BANK_PW = "hunter2-Bank-Passw0rd"
API_KEY = "sk-live-Fake0penAiKey-123456"


def search_step(name: str) -> dict[str, Any]:
    """A scripted model step that writes a secret placeholder into the search box."""
    return {"intent": "Search for the key", "action": {"type": "fill", "target": {"name": "Search"}, "text": f"{{{{secret:{name}}}}}"},
            "verify": []}


@pytest.fixture
def stored(site_url: str) -> Any:
    """A provider key and a typeable secret bound to the fixture site's origin, removed afterwards."""
    secrets_store.set_provider_key("OPENAI_API_KEY", API_KEY)
    secrets_store.set_secret("BANK_PW", BANK_PW, [site_url])
    yield
    secrets_store.delete_provider_key("OPENAI_API_KEY")
    secrets_store.delete_secret("BANK_PW")


@pytest.mark.parametrize(("name", "value", "code"), [("OPENAI_API_KEY", API_KEY, "secret_is_provider_key"),
                                                      ("BANK_PW", BANK_PW, "secret_not_named")])
async def test_a_task_that_never_names_a_secret_cannot_type_it_into_a_search_box(sw, page, site_url, stored, name, value, code):
    tab, _ = await open_page(sw, page, f"{site_url}/secrets/search.html")
    run = await start_run(sw, {"task": "Search the shop for wool socks", "tab_id": tab, "script": {"steps": [search_step(name)]},
                               "budgets": {"retries_per_step": 1, "max_replans": 0}})
    summary = await run.summary()
    assert summary["success"] is False
    refused = [e for e in await run.events("step") if e.get("verdict") == "refused"]
    assert refused and refused[0]["error"]["code"] == code, refused
    received = await page.evaluate("() => [document.getElementById('q').value, ...window.received].join('|')")
    assert value[:8] not in received, "the page received the secret"


async def test_a_secret_bound_to_the_page_is_refused_in_a_cross_origin_iframe_by_the_service_worker(sw, page, site_url, other_origin):
    tab, _ = await open_page(sw, page, f"{site_url}/secrets/bank.html?frame={other_origin}/secrets/partner.html")
    frame = next(f for f in page.frames if f.url.startswith(other_origin))
    await frame.wait_for_selector("#pw")
    snap = await snapshot(sw, tab)
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "Partner password"), "text": BANK_PW}, secret_origins=[site_url])
    assert not result.ok and result.error is not None and result.error.code == "secret_origin_refused", result
    assert other_origin in result.error.message and BANK_PW not in result.error.message
    assert await frame.evaluate("() => [pw.value, ...window.received].join('')") == "", "the frame received the secret"


async def test_a_field_filled_from_a_placeholder_shows_no_value_and_is_painted_over_in_the_screenshot(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/secrets/bank.html")
    result = await act(sw, tab, {"type": "fill", "ref": ref(snap, "API token"), "text": BANK_PW}, secret_origins=[site_url])
    assert result.ok, result
    assert result.secret_origin == site_url
    assert await page.evaluate("() => document.getElementById('token').value") == BANK_PW, "the page got the value"
    after = await snapshot(sw, tab, screenshot=True)
    field = after.find(ref(after, "API token"))
    assert field is not None and field.value in (None, "") and field.states.get("has_value") and field.states.get("secret")
    assert BANK_PW not in after.model_dump_json(exclude={"screenshot_b64"})
    assert await unpainted(page, after, field.bbox) == []


async def test_a_secret_field_under_a_translucent_overlay_is_still_painted_over(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/secrets/bank.html")
    field = snap.find(ref(snap, "API token"))
    assert field is not None
    assert (await act(sw, tab, {"type": "fill", "ref": field.ref, "text": BANK_PW}, secret_origins=[site_url])).ok
    # A modal's backdrop: the field is covered for the hit test, yet its text shows through.
    await page.evaluate("""() => document.body.append(Object.assign(document.createElement('div'),
        {style: 'position:fixed;inset:0;background:rgba(0,0,0,0.3);z-index:10'}))""")
    covered = await snapshot(sw, tab, screenshot=True)
    assert await unpainted(page, covered, field.bbox) == []


async def unpainted(page: Any, snap: Any, bbox: list[float]) -> list[tuple[int, int, int]]:
    """The pixels of the screenshot inside the element's box that are not the secret paint's
    (the ref's label in the top-left corner, drawn over the paint, left out)."""
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(snap.screenshot_b64 or ""))).convert("RGB")
    scale = image.width / await page.evaluate("() => innerWidth")
    x, y, w, h = (round(v * scale) for v in bbox)
    label = (round(40 * scale), round(24 * scale))
    inside = [image.getpixel((x + dx, y + dy)) for dx in range(4, w - 4, 4) for dy in range(4, h - 4, 3) if dx > label[0] or dy > label[1]]
    assert len(inside) > 100, "the box was sampled"
    # The page draws the value in red on white (dimmed under an overlay); the paint is near-black.
    return [p for p in inside if max(p) > 90]


async def test_values_of_stored_secrets_a_page_shows_reach_neither_the_prompt_nor_the_trace(sw, page, site_url, serve):
    secrets_store.set_secret("ACCESS_TOKEN", TOKEN, [site_url])
    secrets_store.set_secret("PASSPHRASE", PHRASE, [site_url])
    secrets_store.set_secret("ECHOED", ECHOED, [site_url])
    try:
        model = await serve([{"intent": "Read the account page", "verify": [], "action": {"type": "extract"}}])
        tab, first = await open_page(sw, page, f"{site_url}/secrets/echo.html")
        assert TOKEN[:40] in first.text, "the page shows the token to the extension (the redaction is the host's)"
        run = await start_run(sw, {"task": "Tell me what my account page says", "tab_id": tab, **model.provider_params(),
                                   "budgets": {"retries_per_step": 1, "max_replans": 0}})
        summary = await run.summary()
    finally:
        for name in ("ACCESS_TOKEN", "PASSPHRASE", "ECHOED"):
            secrets_store.delete_secret(name)
    assert model.seen, "the model was asked"
    prompts = "\n".join(seen.prompt() for seen in model.seen)
    assert "Your passphrase is" in prompts and "Echo:" in prompts, "the page reached the prompt"
    written = "\n".join(p.read_text(errors="replace") for p in Path(summary["trace_dir"]).rglob("*") if p.is_file() and p.suffix != ".jpg")
    for where, text in (("prompt", prompts), ("trace", written)):
        for fragment in (TOKEN[:40], TOKEN[60:99], " ".join(PHRASE.split()), ECHOED[::-1], json.dumps(ECHOED[::-1])[1:-1]):
            assert fragment not in text, f"{fragment!r} reached the {where}"



# ------------------------------------------------------------------ the side panel

async def open_panel(browser: Any, sw: Any, tab_url: str) -> Any:
    """The real side panel page, pinned to the tab showing `tab_url`, once connected to the host."""
    from tests.e2e.test_sidepanel import Panel, tab_id_of

    page = await browser.context.new_page()
    panel = await Panel(page).open(browser.extension_id, await tab_id_of(sw, tab_url))
    await expect(page.locator("#status")).to_have_attribute("data-status", "connected", timeout=20000)
    return panel


async def test_the_panel_stores_a_secret_with_the_sites_it_asks_for_and_shows_no_value(browser, sw, page, site_url):
    await open_page(sw, page, f"{site_url}/secrets/search.html")
    panel = await open_panel(browser, sw, page.url)
    try:
        await panel.page.locator("#tab-settings").click()
        await panel.page.locator("#secret-name").fill("PANEL_PW")
        await panel.page.locator("#secret-value").fill(BANK_PW)
        await panel.page.locator("#secret-origins").fill(f"{site_url}/login")
        await panel.page.get_by_role("button", name="Store secret").click()
        await expect(panel.page.locator('[data-secret="PANEL_PW"] textarea')).to_have_value(site_url)
        stored = secrets_store.get_secret("PANEL_PW")
        assert stored is not None and stored.value == BANK_PW and stored.origins == [site_url]
        assert BANK_PW not in await panel.page.content()
        assert panel.errors == []
    finally:
        secrets_store.delete_secret("PANEL_PW")
        await panel.page.close()


async def test_use_this_page_sends_the_chat_model_no_stored_secret_the_page_shows(browser, sw, page, site_url, serve):
    from tests.e2e.test_sidepanel import configure

    secrets_store.set_secret("ACCESS_TOKEN", TOKEN, [site_url])
    model = await serve([])
    saved = (await sw.evaluate("() => globalThis.waymark.call('settings.get')"))["settings"]
    await configure(sw, chat={"provider": "openai_compat", "model": "fake", "options": {"preset": "ollama", "base_url": model.base_url}})
    await open_page(sw, page, f"{site_url}/secrets/echo.html")
    panel = await open_panel(browser, sw, page.url)
    try:
        await panel.page.locator("#tab-chat").click()
        await panel.page.locator("#chat-use-page").check()
        await panel.page.locator("#chat-input").fill("What does my account page say?")
        await panel.page.locator("#chat-send").click()
        await expect(panel.page.locator(".msg-assistant").last).not_to_have_attribute("data-state", "pending", timeout=30000)
    finally:
        secrets_store.delete_secret("ACCESS_TOKEN")
        await panel.page.close()
        # Later tests (and replays that heal) read the saved settings: the stopped model must not stay in them.
        await sw.evaluate("(s) => globalThis.waymark.call('settings.set', {settings: s})", saved)
    prompts = "\n".join(seen.prompt() for seen in model.seen)
    assert "Access token" in prompts, "the page reached the chat prompt"
    assert TOKEN[:40] not in prompts and TOKEN[60:99] not in prompts


# ------------------------------------------------------------------ MCP

async def test_a_task_an_mcp_client_delegates_types_no_secret_the_user_did_not_grant_that_client(site_url, tmp_path):
    from tests.agent_calls import trace_events
    from tests.e2e.mcp_helpers import McpClient, text_of
    from waymark.host.agent.trace import find_run

    secrets_store.set_secret("BANK_PW", BANK_PW, [site_url])
    script = tmp_path / "type.json"
    script.write_text(json.dumps({"steps": [{"intent": "Type the password", "verify": [],
                                             "action": {"type": "fill", "target": {"name": "Partner password"}, "text": "{{secret:BANK_PW}}"}}]}))
    try:
        async with McpClient("--launch", "--script", str(script)) as client:
            ran = await client.call("browser_run_task", {"task": "Sign in with {{secret:BANK_PW}}", "start_url": f"{site_url}/secrets/partner.html"})
    finally:
        secrets_store.delete_secret("BANK_PW")
    answer = text_of(ran)
    assert BANK_PW not in answer
    steps = trace_events(find_run(answer.rsplit("waymark trace show ", 1)[1].split()[0]), "step")
    refused = [s for s in steps if s.get("verdict") == "refused"]
    assert refused and {s["error"]["code"] for s in refused} == {"secret_not_granted"}, steps
    assert not any(s.get("verdict") == "passed" and s.get("intent") == "Type the password" for s in steps)
