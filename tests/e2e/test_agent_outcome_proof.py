"""Proof a weak planner cannot fake (issue 56), through the scripted provider, the real host,
extension and Chromium: a run succeeds only when a success criterion about the task's outcome came
to hold during it (not one that held when it began, not an address that changed), or, without
criteria, a step a check about the outcome proved; never when the model's own answer says it failed.
Each shape is tried where it fires and beside it where the task is really done."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from tests.agent_calls import start_run, trace_events
from waymark.eval.sites.serve import SiteServer

USERNAME = {"role": "textbox", "name": "Username"}
COMMENT = {"role": "textbox", "name": "Your comment"}
ENTER_ADA = {"intent": "Enter the username", "action": {"type": "fill", "target": USERNAME, "text": "ada"},
             "verify": [{"value_equals": {"target": USERNAME, "value": "ada"}}]}
TYPE_COMMENT = {"intent": "Type the comment", "action": {"type": "fill", "target": COMMENT, "text": "Lovely notes"},
                "verify": [{"value_equals": {"target": COMMENT, "value": "Lovely notes"}}]}
POST = {"intent": "Post the comment", "action": {"type": "click", "target": {"role": "button", "name": "Post comment"}}}


@pytest.fixture(scope="module")
def ledger() -> Iterator[str]:
    with SiteServer() as sites:
        yield f"{sites.site}/login"


async def _scripted(sw: Any, task: str, start_url: str, steps: list[dict[str, Any]], **script: Any) -> dict[str, Any]:
    run = await start_run(sw, {"task": task, "start_url": start_url, "script": {"steps": steps, **script}, "screenshots": False,
                               "policy": {"destructive": "allow"}})
    return await run.summary()


async def test_a_plan_whose_last_step_clicked_a_link_checked_by_url_changed_is_never_a_success(sw, ledger):
    # The real model, asked to create a ticket, planned a last step that clicked the Login link,
    # checked by url_changed; every step passed and the run reported success with no ticket made.
    link = {"intent": "Open the form", "action": {"type": "click", "target": {"role": "link", "name": "Forgot password?"}},
            "verify": [{"url_changed": True}]}
    summary = await _scripted(sw, "Report a bug in Ledger as ada", f"{ledger}/index.html", [ENTER_ADA, link])
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert [s["verdict"] for s in trace_events(summary["trace_dir"], "step")] == ["passed", "passed"]


async def test_a_done_whose_own_answer_is_false_is_a_failed_run_though_a_step_was_proven(sw, ledger):
    # The real model's hidden-page run: its criterion already held on the start page, one step was
    # verified, and it answered done with the result "false": the run reported success.
    link = {"intent": "Open the reset form", "action": {"type": "click", "target": {"role": "link", "name": "Forgot password?"}},
            "verify": [{"url_contains": "forgot.html"}]}
    answer = {"intent": "Report what was found", "required": False, "action": {"type": "done", "result": "false"}}
    summary = await _scripted(sw, "Find the reset form's endpoint", f"{ledger}/index.html", [link, answer],
                              success_criteria=[{"text_present": "password"}])
    assert (summary["success"], summary["outcome"]) == (False, "failed"), summary
    assert summary["reason"] == "success was claimed but the model's own answer says the task failed: 'false'"


async def test_a_comment_the_page_refused_with_an_alert_is_no_success_though_its_text_was_typed(sw, site_url):
    # No success criteria; the only verified step is the fill, whose check held through the typing alone.
    post = {**POST, "verify": [{"text_present": "Lovely notes"}]}
    summary = await _scripted(sw, "Post the comment Lovely notes", f"{site_url}/agent/comment.html?closed", [TYPE_COMMENT, post])
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert summary["reason"].startswith("nothing proves the task was done: the plan has no success criteria, and its steps were proven "
                                        "only by what the run typed")


async def test_a_comment_the_page_posted_is_a_success_proven_by_its_count(sw, site_url):
    post = {**POST, "verify": [{"text_present": "1 comment"}]}
    summary = await _scripted(sw, "Post the comment Lovely notes", f"{site_url}/agent/comment.html", [TYPE_COMMENT, post])
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary


async def test_a_task_already_done_when_the_run_begins_ends_unproven_not_failed(sw, ledger):
    # Ada is signed in already: there is no form, and the executor says it cannot sign in.
    sign_in = {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Sign in"}},
               "verify": [{"text_present": "Welcome, ada"}]}
    summary = await _scripted(sw, "Sign in to Ledger as ada", f"{ledger}/account.html?user=ada&remember=0", [ENTER_ADA, sign_in],
                              success_criteria=[{"text_present": "Welcome, ada"}])
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert summary["reason"].startswith("every success criterion held when the run began and holds still")
