"""A first run of the side panel: no model is configured yet, so the chat view shows the
first-run card until one is, offering the model servers found on this computer first, then the
cloud providers by the names users know; each problem is said once, with the button that fixes it.

Each test has its own browser and host with a fresh configuration (nothing saved yet), looking
for local servers where WAYMARK_LOCAL_SERVERS says: a loopback OpenAI-compatible server
(tests.reliability.fake_model) plays Ollama, and nothing listens where LM Studio and llama.cpp
are looked for.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

import pytest_asyncio
from playwright.async_api import expect

from tests.conftest import wait_connected
from tests.e2e.test_sidepanel import Panel


def dead_url() -> str:
    """An OpenAI-compatible base URL on a loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


@pytest_asyncio.fixture
async def fresh_panel(playwright_instance: Any, tmp_path: Path, test_extension: Path) -> AsyncIterator[Callable[[str | None], Awaitable[Panel]]]:
    """`await fresh_panel(ollama_url)`: a new browser whose host has saved nothing, finding
    "Ollama" at `ollama_url` (None: no local server), and its side panel at 400x800."""
    from waymark.host.launch import launch_browser

    launched: list[Any] = []

    async def start(ollama_url: str | None) -> Panel:
        where = {"ollama": ollama_url or dead_url(), "lmstudio": dead_url(), "llamacpp": dead_url()}
        env = {f"WAYMARK_{k}_DIR": str(tmp_path / k.lower()) for k in ("STATE", "CONFIG", "RUNS")}
        env["WAYMARK_LOCAL_SERVERS"] = json.dumps(where)
        browser = await launch_browser(playwright_instance, tmp_path / "profile", host_env=env, extension=test_extension)
        launched.append(browser)
        await wait_connected(browser.service_worker)
        page = await browser.context.new_page()
        await page.set_viewport_size({"width": 400, "height": 800})
        return await Panel(page).open(browser.extension_id, None)

    yield start
    for browser in launched:
        await browser.close()


async def test_the_first_view_offers_the_local_server_and_one_click_makes_chat_work(fresh_panel: Any, serve: Any):
    model = await serve([], models=["llama3.2:latest"], chat=lambda prompt: "Hello from the local model.")
    panel = await fresh_panel(model.base_url)

    card = panel.page.locator("#first-run")
    await expect(card).to_be_visible(timeout=20000)
    await expect(card.get_by_role("heading")).to_have_text("Set up a model")
    use = card.get_by_role("button", name="Use Ollama · llama3.2:latest")
    await use.click()

    await expect(card).to_be_hidden(timeout=20000)
    await expect(panel.page.locator("#chat-model")).to_have_text("Chat model: openai_compat/llama3.2:latest")
    answer = await panel.ask("Hello?")
    await expect(answer).to_contain_text("Hello from the local model.")
    assert [s.request for s in model.seen if s.role == "listing"], "the server was found by its listing"
    assert panel.errors == []


async def test_the_card_stays_until_a_model_answers_and_says_what_is_missing(fresh_panel: Any):
    panel = await fresh_panel(None)

    card = panel.page.locator("#first-run")
    await expect(card).to_contain_text("No local model server is running (looked for Ollama on port 11434, LM Studio on 1234, llama.cpp on 8080).",
                                       timeout=20000)
    assert await card.locator("#first-run-provider option").all_inner_texts() == ["OpenAI", "Anthropic", "Google Gemini", "OpenRouter"]
    await card.get_by_role("button", name="Test and use").click()

    await expect(panel.page.locator("#first-run-result")).to_have_text(
        "Paste your OpenAI API key first (it is kept by the host as OPENAI_API_KEY, never in the browser).")
    await expect(card).to_be_visible()
    await expect(panel.page.locator("#status")).to_have_text("connected")
    assert panel.errors == []


async def test_agent_cannot_start_without_a_model_and_offers_open_settings(fresh_panel: Any):
    panel = await fresh_panel(None)
    await expect(panel.page.locator("#first-run")).to_be_visible(timeout=20000)
    await panel.page.locator("#tab-agent").click()
    await panel.page.locator("#agent-task").fill("Buy the green tea")
    await panel.page.locator("#agent-start").click()

    summary = panel.page.locator("#agent-summary .summary")
    await expect(summary.get_by_role("heading")).to_have_text("Cannot start")
    await summary.get_by_role("button", name="Open settings").click()
    await expect(panel.page.locator("#view-settings")).to_be_visible()
    await expect(panel.page.locator("#set-chat-provider option[value='openai_compat']")).to_have_text("OpenAI, Ollama, LM Studio… (OpenAI-compatible)")
    assert panel.errors == []
