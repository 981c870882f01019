"""Chat with "Use this page": the model is sent the page's readable text (its paragraphs, not
only its links and buttons), inside the untrusted-content block, and the panel shows the answer.

The model is a loopback OpenAI-compatible server (tests.reliability.fake_model) that answers
from what it was sent, so an answer the page's text did not reach it cannot be given.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, AsyncIterator

import pytest_asyncio
from playwright.async_api import expect

from tests.e2e.test_sidepanel import Panel, configure, tab_id_of
from waymark.host.agent.prompts import UNTRUSTED_TAG

BLOCK = re.compile(rf"<{UNTRUSTED_TAG} [^>]*>(.*?)</{UNTRUSTED_TAG}>", re.DOTALL)
PARAGRAPH = "This kettle costs 37.50 euros and boils 1.7 litres in three minutes."


def price_reader(prompt: str) -> str:
    """A model that can say the price only if the page's text was in its prompt."""
    found = re.search(r"costs ([\d.]+ euros)", " ".join(BLOCK.findall(prompt)))
    return f"The kettle costs **{found.group(1)}**." if found else "The page does not say what it costs."


@pytest_asyncio.fixture
async def kettle(browser: Any, site_url: str) -> AsyncIterator[Any]:
    page = await browser.context.new_page()
    await page.goto(f"{site_url}/sidepanel/kettle.html?case={uuid.uuid4().hex}")
    yield page
    await page.close()


async def test_a_question_answered_only_by_a_paragraph_is_answered_from_the_page(browser: Any, sw: Any, kettle: Any, serve: Any):
    model = await serve([], chat=price_reader)
    await configure(sw, chat={"provider": "openai_compat", "model": "fake-model", "options": {"preset": "ollama", "base_url": model.base_url}})
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 400, "height": 800})
    panel = await Panel(page).open(browser.extension_id, await tab_id_of(sw, kettle.url))
    await expect(page.locator("#chat-model")).to_contain_text("fake-model", timeout=20000)

    answer = await panel.ask("What does this kettle cost?", use_page=True)

    await expect(answer).to_contain_text("The kettle costs 37.50 euros.")
    (sent,) = [s for s in model.seen if s.role == "chat"]
    question = sent.messages("user")[-1]
    assert PARAGRAPH in " ".join(BLOCK.findall(question)), "the paragraph reached the model as untrusted data"
    assert PARAGRAPH not in BLOCK.sub("", question), "no page text outside the untrusted block"
    assert panel.errors == []
    await page.close()


async def test_a_table_on_the_page_reaches_chat_with_its_cells_apart(browser: Any, sw: Any, kettle: Any, serve: Any):
    model = await serve([], chat=lambda prompt: "It weighs 1.2 kg.")
    panel = await open_chat(browser, sw, kettle, model)

    await expect(await panel.ask("How heavy is it?", use_page=True)).to_contain_text("It weighs 1.2 kg.")
    (sent,) = [s for s in model.seen if s.role == "chat"]
    rows = " ".join(BLOCK.findall(sent.messages("user")[-1])).splitlines()
    assert "Capacity\t1.7 l" in rows and "Weight\t1.2 kg" in rows, "each row one line, its cells apart"
    await panel.page.close()


async def open_chat(browser: Any, sw: Any, kettle: Any, model: Any) -> Panel:
    await configure(sw, chat={"provider": "openai_compat", "model": "fake-model", "options": {"preset": "ollama", "base_url": model.base_url}})
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 400, "height": 800})
    panel = await Panel(page).open(browser.extension_id, await tab_id_of(sw, kettle.url))
    await expect(page.locator("#chat-model")).to_contain_text("fake-model", timeout=20000)
    return panel


async def test_a_relative_link_in_an_answer_about_the_page_opens_on_that_page_s_site(browser: Any, sw: Any, kettle: Any, serve: Any, site_url: str):
    model = await serve([], chat=lambda prompt: "See [the care guide](/sidepanel/care.html).")
    panel = await open_chat(browser, sw, kettle, model)

    answer = await panel.ask("How do I descale it?", use_page=True)

    await expect(answer.get_by_role("link", name="the care guide")).to_have_attribute("href", f"{site_url}/sidepanel/care.html")
    assert panel.errors == []
    await panel.page.close()


async def test_a_relative_link_in_an_answer_without_a_page_stays_text(browser: Any, sw: Any, kettle: Any, serve: Any):
    model = await serve([], chat=lambda prompt: "See [the care guide](/sidepanel/care.html).")
    panel = await open_chat(browser, sw, kettle, model)

    answer = await panel.ask("How do I descale it?")

    await expect(answer.locator(".bubble")).to_have_text("See [the care guide](/sidepanel/care.html).")
    assert await answer.locator("a").count() == 0
    await panel.page.close()
