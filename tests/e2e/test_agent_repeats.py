"""No blind repeats (issue 55, item 4): a step whose check cannot read what its action did is not
retried by sending the action again. Each shape is replayed by a loopback model that always gives
the same plan and the same action (the worst a model can do), through the real openai_compat
provider, the real host, extension and Chromium; what the action did is judged by the page's own
state as Chrome holds it, or by the server's own count. Before, each retry and each replan sent the
action again: nine scarves in the basket, the slider nine notches up, the sort flipped back, a
click on the opened folder landing on the file inside it. Where the first send changed nothing (a
button that ignores its first click, a page that failed to load), a retry is still made."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent_calls import start_run, trace_events
from tests.reliability.fake_model import FakeModel

PAGES = "/agent/repeats"


async def _run(sw: Any, model: FakeModel, task: str, start_url: str, **params: Any) -> dict[str, Any]:
    run = await start_run(sw, {"task": task, "start_url": start_url, "screenshots": False, **model.provider_params(), **params})
    return await run.summary()


async def _in_page(browser: Any, url: str, expression: str) -> Any:
    """`expression` evaluated in the run's tab (the page at `url`), as the page itself holds its state."""
    page = next(p for p in browser.context.pages if p.url.startswith(url))
    return await page.evaluate(expression)


async def _chrome_value(browser: Any, url: str, role: str) -> Any:
    """The value Chrome's own accessibility tree gives the first node of `role` in the page at `url`."""
    page = next(p for p in browser.context.pages if p.url.startswith(url))
    cdp = await browser.context.new_cdp_session(page)
    try:
        nodes = (await cdp.send("Accessibility.getFullAXTree"))["nodes"]
    finally:
        await cdp.detach()
    node = next(n for n in nodes if n.get("role", {}).get("value") == role)
    return node["value"]["value"]


def _planner_prompts(model: FakeModel) -> list[str]:
    return [seen.prompt() for seen in model.seen if seen.role == "planner"]


def _refused_repeats(summary: dict[str, Any]) -> int:
    return summary["refusals"].get("repeated_after_effect", 0)


def _one_step(intent: str, action: dict[str, Any], verify: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"intent": intent, "action": action, "verify": verify}]


# ------------------------------------------------------------------ an action that changed something


async def test_add_to_basket_whose_check_cannot_read_the_toast_is_sent_once(sw, serve, counting_site):
    # The check looks for a count in the header; the shop says it only in a toast.
    plan = _one_step("Add the scarf to the basket", {"type": "click", "target": {"role": "button", "name": "Add to basket"}},
                     [{"text_present": "Basket (1)"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Add the wool scarf to my basket.", f"{counting_site.url}{PAGES}/basket.html")
    assert counting_site.posts("/basket/add") == 1, "the shop's own basket holds one scarf"
    assert summary["success"] is False, summary
    assert _refused_repeats(summary) >= 1
    replans = _planner_prompts(model)[1:]
    assert replans, "the failed step went to a new plan, not to a retry"
    assert "the page sent a request or a form to its site" in replans[0]
    assert "Wool scarf has been added to your basket (1 in basket)." in replans[0], "the planner is told what changed"


async def test_an_order_form_posted_and_redirected_back_to_the_same_page_is_posted_once(sw, serve, counting_site):
    # Post, redirect, get: the page after the post is the page before it, and the order is on the server.
    plan = _one_step("Place the order", {"type": "click", "target": {"role": "button", "name": "Place order"}},
                     [{"text_present": "Thank you for your order"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Place the order for the wool scarf.", f"{counting_site.url}{PAGES}/order.html",
                         policy={"destructive": "allow"})
    assert counting_site.posts("/orders") == 1, "the shop's own orders: one"
    assert summary["success"] is False, summary
    assert _refused_repeats(summary) >= 1
    assert "the page loaded again" in trace_events(summary["trace_dir"], "step")[0]["effect"]


async def test_a_slider_arrow_up_whose_check_cannot_read_the_value_moves_it_one_notch(sw, serve, browser, site_url):
    slider = {"role": "slider", "name": "Volume"}
    # The snapshot reads the slider's value now; a check on words the page never shows still cannot.
    plan = _one_step("Turn the volume up one notch", {"type": "press", "key": "ArrowUp", "target": slider},
                     [{"text_present": "Volume: 25.1"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Turn the volume up by one notch.", f"{site_url}{PAGES}/slider.html")
    # Chrome's accessibility tree: one notch up (nine before).
    assert await _chrome_value(browser, f"{site_url}{PAGES}/slider.html", "slider") == pytest.approx(25.1, abs=0.01)
    step = trace_events(summary["trace_dir"], "step")[0]
    assert step["verdict"] == "failed" and "25.1" in step["effect"], step


async def test_a_sort_header_whose_check_cannot_read_the_order_is_not_clicked_again(sw, serve, browser, site_url):
    plan = _one_step("Sort the members by name", {"type": "click", "target": {"name": "Name"}}, [{"text_present": "Sorted by name"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Sort the members by name.", f"{site_url}{PAGES}/sort.html")
    # The page's own order, in Chrome: a second click would have sorted it the other way (?o=-name).
    sorted_page = f"{site_url}{PAGES}/sort.html?o=name"
    assert await _in_page(browser, sorted_page, "location.search") == "?o=name"
    assert await _in_page(browser, sorted_page, "sessionStorage.getItem('sorted')") == "1", "the header was followed once"
    assert await _in_page(browser, sorted_page, "document.getElementById('name').getAttribute('aria-sort')") == "ascending"
    assert _refused_repeats(summary) >= 1


async def test_an_opened_tree_folder_whose_check_cannot_read_it_is_not_clicked_again(sw, serve, browser, site_url):
    plan = _one_step("Open the src folder", {"type": "click", "target": {"role": "treeitem", "name_contains": "src"}},
                     [{"text_present": "src folder is open"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Open the src folder.", f"{site_url}{PAGES}/tree.html")
    tree = f"{site_url}{PAGES}/tree.html"
    assert await _in_page(browser, tree, "window.folderClicks") == 1
    assert await _in_page(browser, tree, "document.getElementById('src').getAttribute('aria-expanded')") == "true"
    assert await _in_page(browser, tree, "document.getElementById('opened').textContent") == "", "no click landed on the file inside"
    assert _refused_repeats(summary) >= 1
    effect = trace_events(summary["trace_dir"], "step")[0]["effect"]
    assert "main.py" in effect and "sent a request" not in effect, "the folder opened in the page; nothing went to the site"


# ------------------------------------------------------------------ where the rule stays quiet


async def test_a_button_that_ignores_its_first_click_is_clicked_again(sw, serve, site_url):
    plan = _one_step("Save the settings", {"type": "click", "target": {"role": "button", "name": "Save settings"}},
                     [{"text_present": "Settings saved"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Save the settings.", f"{site_url}{PAGES}/stubborn.html")
    assert summary["success"] is True, summary
    assert _refused_repeats(summary) == 0
    assert [s["verdict"] for s in trace_events(summary["trace_dir"], "step")] == ["retry", "passed"]


async def test_a_page_that_failed_to_load_is_opened_again(sw, serve, counting_site):
    newsletter = f"{counting_site.url}/flaky{PAGES}/newsletter.html"
    plan = _one_step("Open the newsletter", {"type": "navigate", "url": newsletter}, [{"text_present": "This week's newsletter"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Read this week's newsletter.", f"{counting_site.url}{PAGES}/stubborn.html")
    assert summary["success"] is True, summary
    assert [s["verdict"] for s in trace_events(summary["trace_dir"], "step")] == ["retry", "passed"]


async def test_a_page_polling_its_server_does_not_make_an_action_look_sent(sw, serve, counting_site):
    plan = _one_step("Show the details", {"type": "click", "target": {"role": "button", "name": "Show details"}},
                     [{"text_present": "Five new messages"}])
    model = await serve(plan)
    summary = await _run(sw, model, "Show the inbox details.", f"{counting_site.url}{PAGES}/polling.html")
    assert counting_site.posts("/inbox/poll") > 0, "the page polled while the run acted"
    effect = trace_events(summary["trace_dir"], "step")[0]["effect"]
    assert effect == 'text appeared: "status "Three new messages""', "what the click did, without the page's own polling"
