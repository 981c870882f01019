"""The planner reads the page's text where the task needs it (issue 53): the element list names
controls and headings, never paragraphs, so the lines of the page's text that use the task's words
are shown beside it, inside the untrusted-content block. Real Chromium, extension and host; the
model is a loopback OpenAI-compatible server that records what it was sent."""

from __future__ import annotations

import re
from typing import Any

from tests.agent_calls import start_run
from waymark.host.agent.prompts import UNTRUSTED_TAG

BLOCK = re.compile(rf'<{UNTRUSTED_TAG} source="text of this page">\n(.*?)\n</{UNTRUSTED_TAG}>', re.DOTALL)
READ = [{"intent": "Read the price", "action": {"type": "done", "success": True, "result": "37.50 euros"}}]


async def _planner_prompt(sw: Any, serve: Any, task: str, url: str) -> str:
    model = await serve(READ)
    run = await start_run(sw, {"task": task, "start_url": url, "screenshots": False, **model.provider_params()})
    await run.summary()
    return next(seen for seen in model.seen if seen.role == "planner").messages("user")[-1]


async def test_the_planner_is_shown_the_paragraph_that_answers_a_question_about_the_page(sw, serve, site_url):
    prompt = await _planner_prompt(sw, serve, "What does the copper kettle cost?", f"{site_url}/sidepanel/kettle.html")
    (quoted,) = BLOCK.findall(prompt)
    assert "This kettle costs 37.50 euros" in quoted, "the price is only in a paragraph"
    assert "costs 37.50 euros" not in BLOCK.sub("", prompt), "the page's text never stands outside the untrusted block"


async def test_a_table_row_reaches_the_planner_with_its_cells_apart(sw, serve, site_url):
    prompt = await _planner_prompt(sw, serve, "What is the kettle's weight?", f"{site_url}/sidepanel/kettle.html")
    (quoted,) = BLOCK.findall(prompt)
    assert "Weight\t1.2 kg" in quoted.splitlines()


async def test_a_task_that_shares_no_word_with_the_page_s_text_adds_no_text_to_the_prompt(sw, serve, site_url):
    prompt = await _planner_prompt(sw, serve, "Sign in to my bank", f"{site_url}/sidepanel/kettle.html")
    assert BLOCK.findall(prompt) == []


async def test_the_executor_giving_the_answer_is_shown_the_paragraph_that_holds_it(sw, serve, site_url):
    # Planning off: the task is one open step, worked on until the executor says done with the answer.
    model = await serve(READ)
    run = await start_run(sw, {"task": "What does the copper kettle cost?", "start_url": f"{site_url}/sidepanel/kettle.html",
                               "screenshots": False, "plan": False, **model.provider_params()})
    await run.summary()
    prompt = next(seen for seen in model.seen if seen.role == "executor").messages("user")[-1]
    (quoted,) = BLOCK.findall(prompt)
    assert "This kettle costs 37.50 euros" in quoted
