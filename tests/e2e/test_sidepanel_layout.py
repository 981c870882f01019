"""The side panel at its usual size (400x800) is laid out like a chat app: the header and tabs
stay pinned, the conversation or the timeline is the only thing that scrolls, and the composer
and its Stop button are always on screen.
"""

from __future__ import annotations

import uuid
from typing import Any, AsyncIterator

import pytest_asyncio
from playwright.async_api import expect

from tests.e2e.test_sidepanel import Panel, configure, scripted, tab_id_of

SIZE = {"width": 400, "height": 800}
RUN_CLICKS = 14
LONG_ANSWER = "\n\n".join(f"Paragraph {i}: green tea keeps for a year in a closed tin, away from light and heat." for i in range(8))

#: Records, on every change of the agent's timeline and summary, whether Stop is shown inside
#: the viewport and the page itself is unscrolled: Stop's place is sampled at every step of the run.
SAMPLE_STOP = """() => {
  window.__stopSamples = [];
  const stop = document.getElementById("agent-stop");
  const sample = () => {
    if (stop.hidden) return;
    const r = stop.getBoundingClientRect();
    window.__stopSamples.push(r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && document.scrollingElement.scrollTop === 0);
  };
  const observer = new MutationObserver(sample);
  for (const id of ["agent-timeline", "agent-summary"]) observer.observe(document.getElementById(id), {childList: true, subtree: true, characterData: true});
}"""


def clicks_then_order(n: int) -> list[dict[str, Any]]:
    """A run of `n` verified Add-to-cart steps, then Place order, which waits for the user's approval."""
    steps = [{"intent": f"Add tea number {i}", "action": {"type": "click", "target": {"role": "button", "name_contains": "cart"}},
              "verify": [{"exists": {"role": "button", "name": f"In cart ({i})"}}]} for i in range(1, n + 1)]
    return steps + [{"intent": "Place the order", "action": {"type": "click", "target": {"role": "button", "name": "Place order"}},
                     "verify": [{"exists": {"role": "link", "name": "View order 1"}}]}]


@pytest_asyncio.fixture
async def shop_tab(browser: Any, site_url: str) -> AsyncIterator[Any]:
    page = await browser.context.new_page()
    await page.goto(f"{site_url}/sidepanel/shop.html?case={uuid.uuid4().hex}")
    yield page
    await page.close()


async def open_panel(browser: Any, sw: Any, tab: Any) -> Panel:
    page = await browser.context.new_page()
    await page.set_viewport_size(SIZE)
    return await Panel(page).open(browser.extension_id, await tab_id_of(sw, tab.url))


async def assert_pinned(panel: Panel) -> None:
    """Header, tabs and the page's own scroll position as a user sees them: all in place."""
    for selector in (".bar h1", "#tab-chat", "#tab-settings"):
        await expect(panel.page.locator(selector)).to_be_in_viewport(ratio=1)
    assert await panel.page.evaluate("() => document.scrollingElement.scrollTop === 0 && document.scrollingElement.scrollHeight <= innerHeight")


async def test_stop_is_on_screen_at_every_step_of_a_long_run(browser: Any, sw: Any, shop_tab: Any):
    await configure(sw, chat=scripted(steps=clicks_then_order(RUN_CLICKS)))
    panel = await open_panel(browser, sw, shop_tab)
    await panel.connected()
    await panel.page.evaluate(SAMPLE_STOP)

    await panel.start_task("Add the tea fourteen times, then order")
    await expect(panel.page.locator(".prompt-card.confirm")).to_be_visible(timeout=60000)

    samples = await panel.page.evaluate("() => window.__stopSamples")
    assert len(samples) >= RUN_CLICKS, f"the timeline changed only {len(samples)} times"
    assert all(samples), f"Stop was off screen in {samples.count(False)} of {len(samples)} samples"
    await expect(panel.page.locator(".prompt-card.confirm")).to_be_in_viewport()
    await assert_pinned(panel)
    await panel.page.locator("#agent-stop").click()
    await expect(panel.page.locator("#agent-summary .summary")).to_have_attribute("data-outcome", "stopped")
    await expect(panel.page.locator("#agent-summary .summary")).to_be_in_viewport()
    assert panel.errors == []
    await panel.page.close()


async def test_after_many_chat_turns_the_header_composer_and_stop_stay_on_screen(browser: Any, sw: Any, shop_tab: Any, serve: Any):
    model = await serve([], chat=lambda prompt: LONG_ANSWER, faults=["ok"] * 8 + ["hold"])
    await configure(sw, chat={"provider": "openai_compat", "model": "fake-model", "options": {"preset": "ollama", "base_url": model.base_url}})
    panel = await open_panel(browser, sw, shop_tab)
    await expect(panel.page.locator("#chat-model")).to_contain_text("fake-model", timeout=20000)
    for turn in range(8):
        answer = await panel.ask(f"How long does green tea keep? ({turn})")
        await expect(answer).to_contain_text("Paragraph 7")

    await panel.page.locator("#chat-input").fill("And black tea?")
    await panel.page.locator("#chat-send").click()
    stop = panel.page.locator("#chat-stop")
    await expect(stop).to_be_visible()
    await expect(stop).to_be_in_viewport(ratio=1)
    await expect(panel.page.locator("#chat-input")).to_be_in_viewport(ratio=1)
    await assert_pinned(panel)
    # The conversation scrolls inside its log, to its newest message.
    assert await panel.page.evaluate("() => { const l = document.getElementById('chat-log'); return l.scrollHeight > l.clientHeight; }")
    await expect(panel.page.locator(".msg-user").last).to_be_in_viewport()
    model.release()
    await expect(panel.page.locator(".msg-assistant").last).to_contain_text("Paragraph 7", timeout=20000)
    assert panel.errors == []
    await panel.page.close()
