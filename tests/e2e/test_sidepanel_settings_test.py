"""Settings' Test checks the form on screen, saved or not, and asks a provider that lists its
models for that listing instead of spending tokens on a prompt. The provider is a loopback
OpenAI-compatible server (tests.reliability.fake_model) that records every request.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import expect

from tests.e2e.test_sidepanel import Panel, configure

#: The saved chat role: a server on a port nothing listens on, so a Test of the saved settings fails.
SAVED = {"provider": "openai_compat", "model": "saved-model", "options": {"preset": "ollama", "base_url": "http://127.0.0.1:9/v1"}}


async def fill_chat_form(panel: Panel, base_url: str, model: str) -> None:
    """Choose a local OpenAI-compatible server on the chat role's form, as a user would, without saving."""
    page = panel.page
    await page.locator("#tab-settings").click()
    await page.locator("#set-chat-provider").select_option("openai_compat")
    await page.locator("#set-chat-preset").select_option("ollama")
    await page.locator("#set-chat-base_url").fill(base_url)
    await page.locator("#set-chat-model").fill(model)


async def open_panel(browser: Any) -> Panel:
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 400, "height": 800})
    panel = await Panel(page).open(browser.extension_id, None)
    await expect(page.locator("#chat-model")).to_contain_text("saved-model", timeout=20000)
    return panel


async def test_test_checks_the_unsaved_form_by_the_model_listing_without_a_prompt(browser: Any, sw: Any, serve: Any):
    model = await serve([], models=["fake-model", "other-model"])
    await configure(sw, chat=SAVED)
    panel = await open_panel(browser)
    await fill_chat_form(panel, model.base_url, "fake-model")

    await panel.page.locator("#set-chat-test").click()

    result = panel.page.locator("#set-chat-test-result")
    await expect(result).to_have_text(re.compile(r"^OK: openai_compat/fake-model is listed by the server \(no tokens spent\) in \d+ ms$"))
    assert [s.request for s in model.seen] == ["GET /v1/models"], "one listing, no completion"
    saved = await sw.evaluate("() => globalThis.waymark.call('settings.get')")
    assert saved["settings"]["chat"] == SAVED, "Test saved nothing"
    assert panel.errors == []
    await panel.page.close()


async def test_test_names_a_model_the_server_does_not_list(browser: Any, sw: Any, serve: Any):
    model = await serve([], models=["llama3.2:latest", "qwen2.5:1.5b"])
    await configure(sw, chat=SAVED)
    panel = await open_panel(browser)
    await fill_chat_form(panel, model.base_url, "mistral")

    await panel.page.locator("#set-chat-test").click()

    await expect(panel.page.locator("#set-chat-test-result")).to_have_text(
        f"model_not_found: {model.base_url} answers, but has no model 'mistral'; it lists llama3.2:latest, qwen2.5:1.5b.")
    assert panel.errors == []
    await panel.page.close()


async def test_settings_show_one_model_until_separate_planner_and_executor_are_asked_for(browser: Any, sw: Any):
    await configure(sw, chat=SAVED, planner={"provider": "", "model": "", "options": {}}, executor={"provider": "", "model": "", "options": {}})
    panel = await open_panel(browser)
    page = panel.page
    await page.locator("#tab-settings").click()
    await expect(page.locator("fieldset.role[data-role=chat]")).to_be_visible()
    await expect(page.locator("fieldset.role[data-role=planner]")).to_be_hidden()
    await expect(page.locator("fieldset.role[data-role=executor]")).to_be_hidden()

    await page.locator("#set-separate-roles").check()

    await expect(page.locator("fieldset.role[data-role=planner]")).to_be_visible()
    await expect(page.locator("fieldset.role[data-role=executor]")).to_be_visible()
    assert panel.errors == []
    await page.close()
