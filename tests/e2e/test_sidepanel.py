"""The side panel, opened as a tab page in real Chromium with the real extension and host.

Chat answers come from the scripted provider (configured through the host's settings, as a
user would), agent runs act on a fixture shop, and the panel is read the way a person reads it.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import stat
import uuid
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import expect

from tests.conftest import ARTIFACTS

ANSWER = "Green tea is **in stock**.\n\n- 250 g\n- `loose leaf`\n\nSee [the docs](https://example.com/docs)."
HOSTILE = (
    'Here it is: <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> '
    "and [click me](javascript:window.pwned=3) and <b>not bold</b>"
)
SHOP_STEPS = [
    {"intent": "Add the tea to the cart", "action": {"type": "click", "target": {"role": "button", "name": "Add to cart"}},
     "verify": [{"exists": {"role": "button", "name": "In cart (1)"}}]},
    {"intent": "Place the order", "action": {"type": "click", "target": {"role": "button", "name": "Place order"}},
     "verify": [{"exists": {"role": "link", "name": "View order 1"}}]},
]


def scripted(chat: list[str] | None = None, steps: list[dict] | None = None) -> dict[str, Any]:
    """Role settings for the scripted provider."""
    return {"provider": "scripted", "model": "scripted", "options": {"script": {"steps": steps or [], "chat": chat or [], "result": "ordered"}}}


async def configure(sw: Any, **settings: Any) -> dict:
    """Save host settings exactly as the panel's settings form does (settings.set)."""
    base = {"chat": scripted([ANSWER], SHOP_STEPS), "planner": {"provider": "", "model": "", "options": {}},
            "executor": {"provider": "", "model": "", "options": {}}, "confirm_policy": "ask", "screenshots": False,
            "diagnostics": False, "allow_domains": [], "block_domains": []}
    base.update(settings)
    return await sw.evaluate("(s) => globalThis.waymark.call('settings.set', {settings: s})", base)


async def tab_id_of(sw: Any, url: str) -> int:
    tab_id = await sw.evaluate("async (url) => (await chrome.tabs.query({})).find((t) => t.url === url)?.id ?? null", url)
    assert tab_id is not None, f"no tab has {url}"
    return tab_id


async def keepalive_released(worker: Any) -> bool:
    """Whether the worker soon holds no keepalive and has no offscreen document open."""
    for _ in range(100):
        if await worker.evaluate("() => globalThis.waymark.keepalive()") == {"holders": 0, "document": False}:
            return True
        await asyncio.sleep(0.1)
    return False


class Panel:
    """The side panel page plus every console error it logged."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    async def open(self, extension_id: str, tab_id: int | None) -> "Panel":
        self.tab_id = tab_id
        query = f"?tab={tab_id}" if tab_id is not None else ""
        await self.page.goto(f"chrome-extension://{extension_id}/sidepanel/sidepanel.html{query}")
        return self

    async def connected(self) -> None:
        await expect(self.page.locator("#status")).to_have_attribute("data-status", "connected", timeout=20000)
        await expect(self.page.locator("#chat-model")).to_contain_text("scripted", timeout=10000)

    async def ask(self, question: str, use_page: bool = False) -> Any:
        await self.page.locator("#tab-chat").click()
        if use_page:
            await self.page.locator("#chat-use-page").check()
        await self.page.locator("#chat-input").fill(question)
        await self.page.locator("#chat-send").click()
        answer = self.page.locator(".msg-assistant").last
        await expect(answer).not_to_have_attribute("data-state", "pending", timeout=20000)
        return answer

    async def reconnect(self) -> None:
        """Reload the panel (it reads the settings saved since) and wait until it is connected."""
        await self.page.reload()
        await self.connected()

    async def run_to_done(self, task: str = "Buy the green tea") -> Any:
        """Start `task` in agent mode and wait until the run's summary says done; returns the summary."""
        await self.start_task(task)
        summary = self.page.locator("#agent-summary .summary")
        await expect(summary).to_have_attribute("data-outcome", "done", timeout=30000)
        return summary

    async def start_task(self, task: str) -> None:
        await self.page.locator("#tab-agent").click()
        await expect(self.page.locator("#agent-model")).to_contain_text("scripted")
        await self.page.locator("#agent-task").fill(task)
        await self.page.locator("#agent-start").click()


@pytest_asyncio.fixture
async def shop(browser: Any, site_url: str) -> AsyncIterator[Any]:
    """The fixture shop in its own tab, with a URL unique to the test."""
    page = await browser.context.new_page()
    await page.goto(f"{site_url}/sidepanel/shop.html?case={uuid.uuid4().hex}")
    yield page
    await page.close()


@pytest_asyncio.fixture
async def panel(browser: Any, sw: Any, shop: Any) -> AsyncIterator[Panel]:
    """The side panel pinned to the shop's tab; the test fails if the panel logs a console error."""
    await configure(sw)
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 380, "height": 760})
    panel = Panel(page)
    await panel.open(browser.extension_id, await tab_id_of(sw, shop.url))
    await panel.connected()
    yield panel
    errors = list(panel.errors)
    await page.close()
    assert errors == [], f"the side panel logged console errors: {errors}"


# ------------------------------------------------------------------ chat


async def test_chat_round_trip_streams_the_scripted_answer(panel: Panel):
    answer = await panel.ask("Is the green tea in stock?")
    await expect(panel.page.locator(".msg-user").last).to_have_text("Is the green tea in stock?")
    await expect(answer.locator(".bubble strong")).to_have_text("in stock")
    await expect(answer.locator(".bubble li")).to_have_text(["250 g", "loose leaf"])
    await expect(answer.locator(".bubble code")).to_have_text("loose leaf")
    await expect(answer.locator(".meta")).to_contain_text("scripted/scripted")


async def test_use_this_page_attaches_the_current_tab(panel: Panel):
    answer = await panel.ask("What is this page?", use_page=True)
    await expect(answer.locator(".meta")).to_contain_text("page: Sidepanel tea shop")


async def test_chat_history_is_kept_per_tab(panel: Panel, browser: Any, sw: Any, site_url: str):
    await panel.ask("First question")
    other = await browser.context.new_page()
    url = f"{site_url}/sidepanel/shop.html?other={uuid.uuid4().hex}"
    await other.goto(url)
    other_id = await tab_id_of(sw, url)
    # The panel follows tab switches; here it is told directly, as chrome.tabs.onActivated would.
    await panel.page.evaluate("(id) => globalThis.waymarkPanel.tab.set(id)", other_id)
    await expect(panel.page.locator(".msg")).to_have_count(0)
    await panel.ask("Other question")
    await panel.page.evaluate("(id) => globalThis.waymarkPanel.tab.set(id)", panel.tab_id)
    await expect(panel.page.locator(".msg-user")).to_have_text(["First question"])
    key = f"waymark.chat.{other_id}"
    assert await panel.page.evaluate("async (k) => (await chrome.storage.session.get(k))[k]?.length", key) == 2
    await other.close()
    for _ in range(50):  # a closed tab's conversation is forgotten
        if await panel.page.evaluate("async (k) => (await chrome.storage.session.get(k))[k] === undefined", key):
            break
        await asyncio.sleep(0.1)
    assert await panel.page.evaluate("async (k) => (await chrome.storage.session.get(k))[k] === undefined", key)


async def test_model_and_page_html_is_shown_as_text(panel: Panel, sw: Any):
    await configure(sw, chat=scripted([HOSTILE]))
    await panel.reconnect()
    answer = await panel.ask("Show me the markup", use_page=True)
    bubble = answer.locator(".bubble")
    await expect(bubble).to_contain_text('<img src=x onerror="window.pwned=1">')
    await expect(bubble).to_contain_text("<script>window.pwned=2</script>")
    await expect(bubble).to_contain_text("<b>not bold</b>")
    assert await panel.page.locator("#chat-log img, #chat-log script, #chat-log b").count() == 0
    assert await panel.page.locator('#chat-log a[href^="javascript"]').count() == 0
    assert await panel.page.evaluate("() => window.pwned") is None


async def test_markdown_blocks_render_as_elements_and_markup_as_text(panel: Panel):
    source = (
        "## Title <i>x</i>\n\n"
        "```html\n<script>alert(1)</script>\n```\n\n"
        "> quoted **bold**\n\n"
        "3. third\n4. fourth\n\n"
        "---\n\n"
        "a <a href=\"javascript:alert(1)\">b</a> [c](javascript:alert(1)) [d](http://x.test/?a=1&b=2)"
    )
    html = await panel.page.evaluate("""async (source) => {
        const { renderMarkdown } = await import("./markdown.js");
        const box = document.createElement("div");
        box.append(renderMarkdown(source));
        return box.innerHTML;
    }""", source)
    assert html == (
        "<h4>Title &lt;i&gt;x&lt;/i&gt;</h4>"
        '<pre><code data-lang="html">&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>'
        "<blockquote><p>quoted <strong>bold</strong></p></blockquote>"
        '<ol start="3"><li>third</li><li>fourth</li></ol>'
        "<hr>"
        '<p>a &lt;a href="javascript:alert(1)"&gt;b&lt;/a&gt; [c](javascript:alert(1)) '
        '<a href="http://x.test/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">d</a></p>'
    )


async def test_markdown_links_keep_only_safe_urls(panel: Panel):
    answer = await panel.ask("Where are the docs?")
    link = answer.locator(".bubble a")
    await expect(link).to_have_attribute("href", "https://example.com/docs")
    await expect(link).to_have_attribute("rel", "noopener noreferrer")


async def test_chat_is_usable_from_the_keyboard(panel: Panel):
    await panel.page.locator("#chat-input").focus()
    await panel.page.keyboard.type("Typed without a mouse")
    await panel.page.keyboard.press("Enter")
    await expect(panel.page.locator(".msg-user").last).to_have_text("Typed without a mouse")
    await expect(panel.page.locator(".msg-assistant").last).to_have_attribute("data-state", "done", timeout=20000)
    await panel.page.locator("#tab-chat").focus()
    await panel.page.keyboard.press("ArrowRight")
    await expect(panel.page.locator("#tab-agent")).to_be_focused()
    await expect(panel.page.locator("#view-agent")).to_be_visible()
    await expect(panel.page.locator("#view-chat")).to_be_hidden()


async def test_unreachable_provider_says_what_to_check(panel: Panel, sw: Any):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    await configure(sw, chat={"provider": "openai_compat", "model": "any", "options": {"preset": "ollama", "base_url": f"http://127.0.0.1:{port}/v1"}})
    await panel.page.reload()
    await expect(panel.page.locator("#chat-model")).to_contain_text("openai_compat/any", timeout=20000)
    answer = await panel.ask("Hello?")
    await expect(answer.locator(".msg-error")).to_have_attribute("data-code", "provider_unreachable")
    problem = panel.page.locator("#host-problem")
    await expect(problem).to_contain_text("The model provider cannot be reached.")
    await problem.get_by_role("button", name="Open settings").click()
    await expect(panel.page.locator("#view-settings")).to_be_visible()


async def test_without_a_chat_model_the_panel_points_to_settings(panel: Panel, sw: Any):
    await configure(sw, chat={"provider": "", "model": "", "options": {}})
    # Whether Chrome offers its on-device model depends on how Chrome rates this machine at the
    # time (it said "downloadable" once in a loaded run): pin the case this test is about.
    await panel.page.add_init_script("if (globalThis.LanguageModel) globalThis.LanguageModel.availability = async () => 'unavailable';")
    await panel.page.reload()
    await expect(panel.page.locator("#chat-model")).to_have_text("No chat model yet: set one up above, or in Settings.", timeout=20000)
    await panel.page.locator("#chat-input").fill("Hello?")
    await panel.page.locator("#chat-send").click()
    answer = panel.page.locator(".msg-assistant").last
    await expect(answer.locator(".msg-error")).to_have_attribute("data-code", "no_chat_provider")
    await panel.page.locator("#host-problem").get_by_role("button", name="Open settings").click()
    await expect(panel.page.locator("#view-settings")).to_be_visible()


async def test_version_mismatch_names_both_versions_and_the_fix(panel: Panel):
    problem = await panel.page.evaluate("""async () => {
        const { connectionProblem } = await import("./host_status.js");
        const state = { status: "connected", hostVersion: "0.0.9", protocol: 1, connects: 1, error: null, retryInMs: null };
        return [connectionProblem(state, "0.1.0"), connectionProblem({ ...state, hostVersion: "0.1.0" }, "0.1.0")];
    }""")
    mismatch, same = problem
    assert "host 0.0.9, extension 0.1.0" in mismatch["title"]
    assert mismatch["command"] == "./install_host.sh"
    assert same is None


# ------------------------------------------------------------------ settings


async def test_api_key_is_stored_by_the_host_and_never_in_chrome_storage(panel: Panel, sw: Any):
    key = f"sk-test-{uuid.uuid4().hex}"
    page = panel.page
    await page.locator("#tab-settings").click()
    await page.locator("#set-separate-roles").check()
    await page.locator("#set-planner-provider").select_option("gemini")
    await page.locator("#set-planner-model").fill("gemini-2.5-flash")
    await expect(page.locator(".role[data-role=planner] .field-key")).to_contain_text("GEMINI_API_KEY")
    await page.locator("#set-planner-key").fill(key)
    await page.locator("#settings-save").click()
    await expect(page.locator("#settings-result")).to_have_text("Saved.")
    await expect(page.locator(".role[data-role=planner] .field-key")).to_contain_text("stored on the host")

    names = await sw.evaluate("() => globalThis.waymark.call('secrets.list')")
    assert "GEMINI_API_KEY" in names["provider_keys"] and "GEMINI_API_KEY" not in names["names"], "a provider key, never typeable"
    stored = await page.evaluate("async () => JSON.stringify([await chrome.storage.local.get(null), await chrome.storage.session.get(null)])")
    assert key not in stored
    settings = await sw.evaluate("() => globalThis.waymark.call('settings.get')")
    assert key not in str(settings)
    store = Path(os.environ["WAYMARK_CONFIG_DIR"]) / "secrets.json"
    assert key in store.read_text()
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    await sw.evaluate("() => globalThis.waymark.call('secrets.delete', {name: 'GEMINI_API_KEY'})")


async def test_settings_form_saves_lists_policy_and_switches(panel: Panel, sw: Any):
    page = panel.page
    await page.locator("#tab-settings").click()
    await page.locator("#set-allow").fill("example.com\nshop.test")
    await page.locator("#set-block").fill("bank.test")
    await page.locator("#set-confirm").select_option("block")
    await page.locator("#set-screenshots").check()
    await page.locator("#settings-save").click()
    await expect(page.locator("#settings-result")).to_have_text("Saved.")
    saved = (await sw.evaluate("() => globalThis.waymark.call('settings.get')"))["settings"]
    assert saved["allow_domains"] == ["example.com", "shop.test"]
    assert saved["block_domains"] == ["bank.test"]
    assert saved["confirm_policy"] == "block"
    assert saved["screenshots"] is True


async def test_a_bad_domain_is_refused_with_the_reason(panel: Panel):
    page = panel.page
    await page.locator("#tab-settings").click()
    await page.locator("#set-block").fill("not a domain!")
    await page.locator("#settings-save").click()
    await expect(page.locator("#settings-result")).to_contain_text("is not a domain")


async def test_settings_form_saves_the_upload_folder(panel: Panel, sw: Any, tmp_path: Path):
    page = panel.page
    await page.locator("#tab-settings").click()
    await page.locator("#set-upload-dir").fill(str(tmp_path))
    await page.locator("#settings-save").click()
    await expect(page.locator("#settings-result")).to_have_text("Saved.")
    saved = (await sw.evaluate("() => globalThis.waymark.call('settings.get')"))["settings"]
    await sw.evaluate("() => globalThis.waymark.call('settings.set', {settings: {upload_dir: null}})")
    assert saved["upload_dir"] == str(tmp_path)


async def test_a_relative_upload_folder_is_refused_with_the_reason(panel: Panel):
    page = panel.page
    await page.locator("#tab-settings").click()
    await page.locator("#set-upload-dir").fill("Downloads")
    await page.locator("#settings-save").click()
    await expect(page.locator("#settings-result")).to_contain_text("must be an absolute path")


async def test_diagnostics_panel_counts_calls_per_provider_and_phase(panel: Panel, sw: Any):
    await configure(sw, diagnostics=True)
    await sw.evaluate("() => globalThis.waymark.call('diagnostics.reset')")
    await panel.reconnect()
    await panel.ask("Count me")
    await panel.page.locator("#tab-diagnostics").click()
    row = panel.page.locator('#diagnostics-table tr[data-provider="scripted"][data-phase="chat"]')
    await expect(row).to_be_visible()
    cells = await row.locator("td").all_inner_texts()
    assert cells[2:4] == ["1", "1"]  # one call, one success
    assert cells[5] != "–"  # a success has a latency


async def test_diagnostics_names_each_provider_as_users_know_it(panel: Panel, sw: Any):
    await configure(sw, diagnostics=True)
    await sw.evaluate("() => globalThis.waymark.call('diagnostics.reset')")
    await panel.reconnect()
    await panel.ask("Count me")
    await panel.page.locator("#tab-diagnostics").click()
    row = panel.page.locator('#diagnostics-table tr[data-provider="scripted"][data-phase="chat"]')
    await expect(row.locator("td").first).to_have_text("Scripted")


async def test_diagnostics_panel_counts_the_planner_and_executor_calls_of_an_agent_run(panel: Panel, sw: Any):
    await configure(sw, diagnostics=True, confirm_policy="allow")
    await sw.evaluate("() => globalThis.waymark.call('diagnostics.reset')")
    await panel.reconnect()
    await panel.run_to_done()
    await panel.page.locator("#tab-diagnostics").click()
    for phase in ("planner", "executor"):
        row = panel.page.locator(f'#diagnostics-table tr[data-provider="scripted"][data-phase="{phase}"]')
        await expect(row).to_be_visible()
        cells = await row.locator("td").all_inner_texts()
        assert int(cells[2]) >= 1 and cells[3] == cells[2], cells  # every call succeeded
        assert cells[5] != "–"  # successes have a latency


# ------------------------------------------------------------------ agent


async def test_agent_run_renders_every_step(panel: Panel, sw: Any, shop: Any):
    await configure(sw, confirm_policy="allow")
    await panel.reconnect()
    summary = await panel.run_to_done()
    steps = panel.page.locator("#agent-timeline .entry-step")
    await expect(steps).to_have_count(2)
    await expect(steps.locator(".intent")).to_have_text(["Add the tea to the cart", "Place the order"])
    await expect(steps.locator(".badge")).to_have_text(["passed", "passed"])
    await expect(steps.first.locator(".action-line")).to_contain_text('button "Add to cart"')
    await expect(panel.page.locator("#agent-timeline .entry-plan")).to_contain_text("Plan: 2 steps")
    await expect(summary).to_contain_text("2/2 steps passed")
    await expect(summary.locator(".trace a")).to_have_attribute("href", lambda_endswith("trace.html"))
    await expect(shop.locator("#status")).to_have_text("Order placed")


async def test_agent_run_uses_the_planner_and_executor_configured_separately(panel: Panel, sw: Any):
    # The planner's script would click nothing; only the executor's own script can finish the task.
    unusable = [{**s, "action": {"type": "click", "target": {"role": "button", "name": "No such button"}}} for s in SHOP_STEPS]
    await configure(sw, confirm_policy="allow", planner=scripted(steps=unusable), executor=scripted(steps=SHOP_STEPS))
    await panel.reconnect()
    summary = await panel.run_to_done()
    await expect(summary).to_contain_text("2/2 steps passed")


async def test_agent_timeline_shows_a_thumbnail_of_each_step_when_screenshots_are_on(panel: Panel, sw: Any):
    await configure(sw, confirm_policy="allow", screenshots=True)
    await panel.reconnect()
    await panel.run_to_done()
    thumbs = panel.page.locator("#agent-timeline .entry-step img.thumb")
    await expect(thumbs).to_have_count(2)
    await expect(thumbs.first).to_have_attribute("alt", "Screenshot after step 1")
    sizes = await thumbs.evaluate_all("(imgs) => imgs.map((i) => [i.complete, i.naturalWidth, i.naturalHeight])")
    assert all(done and 0 < width <= 320 and height > 0 for done, width, height in sizes), sizes


async def test_agent_timeline_has_no_thumbnails_when_screenshots_are_off(panel: Panel, sw: Any):
    await configure(sw, confirm_policy="allow", screenshots=False)
    await panel.reconnect()
    await panel.run_to_done()
    await expect(panel.page.locator("#agent-timeline .entry-step")).to_have_count(2)
    await expect(panel.page.locator("#agent-timeline img.thumb")).to_have_count(0)


def lambda_endswith(suffix: str) -> Any:
    import re

    return re.compile(re.escape(suffix) + "$")


async def test_destructive_action_waits_for_confirmation(panel: Panel, shop: Any):
    await panel.start_task("Buy the green tea")
    card = panel.page.locator(".prompt-card.confirm")
    await expect(card).to_be_visible(timeout=30000)
    await expect(card.locator(".action-line")).to_contain_text("Place order")
    await expect(card.get_by_role("button", name="Approve")).to_be_focused()
    # Waiting for the person: the cart is filled, the order is not placed.
    await expect(shop.locator("#cart")).to_have_text("Cart: 1 item")
    await asyncio.sleep(0.5)
    await expect(shop.locator("#status")).to_have_text("")
    await card.get_by_role("button", name="Approve").click()
    await expect(panel.page.locator("#agent-summary .summary")).to_have_attribute("data-outcome", "done", timeout=30000)
    await expect(card).to_contain_text("Approved.")
    await expect(shop.locator("#status")).to_have_text("Order placed")


async def test_declining_a_destructive_action_ends_the_run_without_it(panel: Panel, shop: Any):
    await panel.start_task("Buy the green tea")
    card = panel.page.locator(".prompt-card.confirm")
    await card.get_by_role("button", name="Decline").click(timeout=30000)
    summary = panel.page.locator("#agent-summary .summary")
    await expect(summary).to_have_attribute("data-outcome", "declined", timeout=30000)
    await expect(shop.locator("#status")).to_have_text("")


TEA_SCHEMA = ('{"type": "object", "properties": {"product": {"type": "string"}, "weight": {"type": "string"}, '
              '"price": {"type": "number"}}, "required": ["product", "weight"]}')


async def test_agent_answer_shows_as_a_table_with_each_values_source_on_hover(panel: Panel, sw: Any, shop: Any):
    answer = {"product": "Green tea", "weight": "250 g", "price": 4.5}
    await configure(sw, chat={**scripted(), "options": {"script": {"steps": [], "result": "Green tea, 250 g", "data": answer}}})
    await panel.reconnect()
    await panel.page.locator("#tab-agent").click()
    box = panel.page.locator("#agent-schema-box")
    await expect(box).not_to_have_attribute("open", "")
    await box.locator("summary").click()
    await panel.page.locator("#agent-schema").fill(TEA_SCHEMA)
    await panel.start_task("What tea is sold here, and in which size?")
    summary = panel.page.locator("#agent-summary .summary")
    # The price was never on the page, but the schema does not require it: the answer stands, the row says so.
    await expect(summary).to_have_attribute("data-outcome", "done", timeout=30000)
    rows = summary.locator("table.answer tr[data-path]")
    await expect(rows).to_have_count(3)
    await expect(rows.locator("td:first-child")).to_have_text(["product", "weight", "price"])
    await expect(rows.nth(0)).to_have_attribute("title", re.compile(r"^Found on http://127\.0\.0\.1:\d+/sidepanel/shop\.html.*green tea"))
    await expect(rows.nth(2)).to_have_attribute("data-status", "ungrounded")
    await expect(rows.nth(2)).to_have_attribute("title", "Not found on any page the agent read")


async def test_an_answer_schema_that_is_not_json_stops_the_run_before_it_starts(panel: Panel):
    await panel.page.locator("#tab-agent").click()
    await panel.page.locator("#agent-schema-box summary").click()
    await panel.page.locator("#agent-schema").fill("{type: object}")
    await panel.start_task("What tea is sold here?")
    summary = panel.page.locator("#agent-summary .summary")
    await expect(summary).to_have_attribute("data-outcome", "error")
    await expect(summary).to_contain_text("The answer's JSON Schema is not JSON")


async def test_agent_question_is_answered_inline(panel: Panel, sw: Any):
    ask = [{"intent": "Ask which size to buy", "action": {"type": "ask_user", "question": "Which size: 250 g or 500 g?"}}]
    await configure(sw, chat=scripted(steps=ask))
    await panel.reconnect()
    await panel.start_task("Buy tea in the size I want")
    card = panel.page.locator(".prompt-card.ask").first
    await expect(card.locator(".question")).to_have_text("Which size: 250 g or 500 g?", timeout=30000)
    await expect(card.get_by_role("textbox", name="Your answer")).to_be_focused()
    await panel.page.keyboard.type("250 g")
    await panel.page.keyboard.press("Enter")
    await expect(card).to_contain_text("You answered: 250 g")
    step = panel.page.locator("#agent-timeline .entry-step").first
    await expect(step.locator(".action-line")).to_contain_text("ask_user")
    await expect(step.locator(".badge")).to_have_class("badge ok")
    # An answer is no evidence that tea was bought: the run ends, but unproven.
    await expect(panel.page.locator("#agent-summary .summary")).to_have_attribute("data-outcome", "unproven", timeout=30000)


async def test_stop_cancels_the_run(panel: Panel, sw: Any, shop: Any):
    await panel.start_task("Buy the green tea")
    await expect(panel.page.locator(".prompt-card.confirm")).to_be_visible(timeout=30000)
    await panel.page.locator("#agent-stop").click()
    summary = panel.page.locator("#agent-summary .summary")
    await expect(summary).to_have_attribute("data-outcome", "stopped", timeout=5000)
    await expect(summary).to_contain_text("You stopped the run")
    await expect(panel.page.locator("#agent-start")).to_be_visible()
    runs = await sw.evaluate("() => globalThis.waymark.call('agent.runs')")
    assert runs["runs"] == []
    await expect(shop.locator("#status")).to_have_text("")


async def test_keepalive_document_is_held_for_the_turn_and_released_after(panel: Panel, sw: Any):
    await panel.start_task("Buy the green tea")
    await expect(panel.page.locator(".prompt-card.confirm")).to_be_visible(timeout=30000)
    held = await sw.evaluate("() => globalThis.waymark.keepalive()")
    assert held == {"holders": 1, "document": True}
    await panel.page.locator("#agent-stop").click()
    await expect(panel.page.locator("#agent-summary .summary")).to_have_attribute("data-outcome", "stopped")
    assert await keepalive_released(sw)


# ------------------------------------------------------------------ look


async def test_panel_screenshots_in_light_and_dark_without_console_errors(panel: Panel, sw: Any):
    await configure(sw, confirm_policy="allow")
    await panel.reconnect()
    await panel.ask("Is the green tea in stock?")
    ARTIFACTS.mkdir(exist_ok=True)
    await panel.page.emulate_media(color_scheme="light")
    await panel.page.screenshot(path=str(ARTIFACTS / "sidepanel-chat-light.png"))
    await panel.run_to_done()
    await panel.page.emulate_media(color_scheme="dark")
    await panel.page.screenshot(path=str(ARTIFACTS / "sidepanel-agent-dark.png"))
    background = await panel.page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(17, 19, 24)"
    await panel.page.locator("#tab-settings").click()
    await expect(panel.page.locator("#settings-save")).to_be_visible()
    await panel.page.screenshot(path=str(ARTIFACTS / "sidepanel-settings-dark.png"), full_page=True)
    assert (ARTIFACTS / "sidepanel-agent-dark.png").stat().st_size > 0
    # Narrow width: nothing scrolls sideways.
    assert await panel.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    assert panel.errors == []


async def test_without_a_chat_model_but_with_chromes_own_model_the_panel_offers_it_for_chat_only(panel: Panel, sw: Any):
    await configure(sw, chat={"provider": "", "model": "", "options": {}})
    await panel.page.add_init_script("if (globalThis.LanguageModel) globalThis.LanguageModel.availability = async () => 'downloadable';")
    await panel.page.reload()
    if not await panel.page.evaluate("() => Boolean(globalThis.LanguageModel)"):
        pytest.skip("this Chromium has no Prompt API")
    await expect(panel.page.locator("#chat-model")).to_have_text("Chrome built-in model · chat only (no tools, no page actions)", timeout=20000)
