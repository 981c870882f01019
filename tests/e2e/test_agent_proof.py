"""What a weak model did to real runs (issue 15), replayed by a loopback model server through the
real openai_compat provider, the real host, extension and Chromium: a plan whose checks held
before anything was done, a done that the task's outcome contradicts, a URL check nothing on the
page leads to, close_tab without an id, a relative navigate, a page that fails to load, and a
planner that never writes a usable plan. None of them may end in a false success or a stranded run."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from tests.agent_calls import start_run, trace_events
from tests.reliability.fake_model import FakeModel
from waymark.eval.sites.serve import SiteServer
from waymark.host.agent.verifier import key

LOGIN_TASK = "Sign in to Ledger with the username ada and the password lovelace."
COOKIE_TASK = "Subscribe ada@example.com to The Daily Loop newsletter, allowing only essential cookies."

#: The plan the real model wrote for the login task: every check holds on the sign-in page before
#: anything is done, and the password and the Sign in button are never touched. (Its last action,
#: a scroll of a page with nowhere to scroll, is now refused before dispatch: a hover stands in.)
FALSE_SUCCESS_PLAN = [
    {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
     "verify": [{"text_present": "Username"}, {"absent": {"role": "dialog"}}]},
    {"intent": "Keep me signed in", "action": {"type": "check", "target": {"role": "checkbox", "name": "Keep me signed in"}},
     "verify": [{"text_present": "Username"}, {"absent": {"role": "dialog"}}]},
    {"intent": "Finish signing in", "action": {"type": "hover", "target": {"role": "button", "name": "Sign in"}},
     "verify": [{"text_present": "Sign in"}]},
]


@pytest.fixture(scope="module")
def ledger() -> Any:
    with SiteServer() as sites:
        yield f"{sites.site}/login/index.html"


async def _run(sw: Any, model: FakeModel, task: str, start_url: str, **params: Any) -> dict[str, Any]:
    run = await start_run(sw, {"task": task, "start_url": start_url, "screenshots": False, **model.provider_params(), **params})
    return await run.summary()


async def _run_on_site(sw: Any, model: FakeModel, task: str, page: str) -> dict[str, Any]:
    """A run from `page` of the fixture sites, with destructive actions allowed (the sites' forms submit)."""
    with SiteServer() as sites:
        return await _run(sw, model, task, f"{sites.site}/{page}", policy={"destructive": "allow"})


def _executor_prompts(model: FakeModel) -> list[str]:
    return ["\n".join(seen.messages("user")) for seen in model.seen if seen.role == "executor"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------ checks that prove something


async def test_a_plan_whose_checks_held_before_acting_is_never_a_success(sw, ledger, serve):
    model = await serve(FALSE_SUCCESS_PLAN)
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    # Before: "SUCCESS: 3/3 steps verified" with the password never typed.
    assert summary["success"] is False
    assert summary["outcome"] == "unproven", summary
    # The box it checked is proven by its own state; one proven step does not prove the plan.
    assert (summary["steps_passed"], summary["steps_unproven"]) == (1, 2)
    assert summary["reason"] == ("nothing proves the task was done: no step was verified by a check that changed, and the plan "
                                 "has no success criteria; 2 step(s) acted with checks that held before they acted")
    steps = trace_events(summary["trace_dir"], "step")
    assert [s["verdict"] for s in steps] == ["unproven", "passed", "unproven"]
    assert steps[1]["target_state"] == 'checkbox "Keep me signed in" checked false -> true'
    assert steps[0]["action"]["type"] == "fill", "the executor still acted on the step"
    assert all(c["ok"] for c in steps[0]["checks_before"])


async def test_a_done_whose_task_success_criteria_fail_is_a_failed_run_with_the_reason(sw, ledger, serve):
    username = {"role": "textbox", "name": "Username"}
    plan = [{"intent": "Enter the username", "action": {"type": "fill", "target": username, "text": "ada"},
             "verify": [{"value_equals": {"target": username, "value": "ada"}}]}, *FALSE_SUCCESS_PLAN[1:]]
    model = await serve(plan, success_criteria=[{"url_contains": "/login/account.html"}, {"text_present": "Welcome, ada"}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    assert summary["success"] is False
    assert summary["outcome"] == "failed", summary
    # The plan proved a step: its finished steps and failing criteria are the verdict, not a reason
    # to plan again (planned again after a landed sign-in, the real model planned "Sign out").
    assert summary["replans"] == 0
    assert summary["reason"].startswith("success was claimed but the task's success criteria fail: url_contains")
    criteria = trace_events(summary["trace_dir"], "criteria")[0]
    assert criteria["ok"] is False


#: A sign-in whose every step is proven and whose last one ends the plan (no `done`).
SIGN_IN_PLAN = [
    {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
     "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
    {"intent": "Enter the password", "action": {"type": "fill", "target": {"name": "Password"}, "text": "lovelace"}, "verify": []},
    {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Sign in"}},
     "verify": [{"url_contains": "/login/account.html"}]},
]


async def test_a_sign_in_proven_by_its_success_criteria_is_a_success(sw, ledger, serve):
    model = await serve(SIGN_IN_PLAN, success_criteria=[{"text_present": "Welcome, ada"}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    assert summary["success"] is True, summary
    assert (summary["steps_passed"], summary["steps_unproven"]) == (3, 0)
    assert trace_events(summary["trace_dir"], "criteria")[0]["ok"] is True


async def test_a_run_ended_by_its_last_step_passing_has_a_closing_message(sw, ledger, serve):
    model = await serve(SIGN_IN_PLAN, success_criteria=[{"text_present": "Welcome, ada"}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    # Before: "" (no `done` wrote one).
    assert summary["result"] == "Done: every step passed its checks (3 steps: Enter the username; Enter the password; Sign in)."


async def test_a_url_check_no_link_leads_to_is_dropped_from_the_step_and_the_right_click_passes_by_its_other_check(sw, site_url, serve):
    # On hidden tasks the plan's guessed URL check failed two right clicks (a consent button, a link).
    plan = [{"intent": "Open the panel", "action": {"type": "click", "target": {"role": "button", "name": "Open panel"}},
             "verify": [{"url_matches": "/contact-us"}, {"text_present": "Opened the first panel"}]}]
    model = await serve(plan)
    summary = await _run(sw, model, "Open the panel", f"{site_url}/agent/menu.html")
    assert summary["success"] is True, summary
    (step,) = trace_events(summary["trace_dir"], "step")
    assert step["verdict"] == "passed" and step["changed"] == [{"text_present": "Opened the first panel"}]
    assert [(f["guard"], f["strength"]) for f in step["findings"]] == [("unreachable_check", "advisory")]
    assert summary["advisories"] == {"unreachable_check": 1} and not trace_events(summary["trace_dir"], "replan")

async def test_a_landed_sign_in_whose_url_check_was_copied_from_the_prompt_passes_by_what_the_page_shows(sw, ledger, serve):
    # The real model's login plan: right actions, but the last step checked a URL it copied from
    # the prompt's examples, and the landed sign-in was failed and planned again.
    plan = [
        {"intent": "Enter the username ada", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
        {"intent": "Enter the password", "action": {"type": "fill", "target": {"name": "Password"}, "text": "lovelace"}, "verify": []},
        {"intent": "Click the Sign in button", "action": {"type": "click", "target": {"role": "button", "name": "Sign in"}},
         "verify": [{"url_contains": "/cart"}, {"text_present": "Welcome, ada"}]},
    ]
    model = await serve(plan, success_criteria=[{"text_present": "Welcome, ada"}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    assert summary["success"] is True, summary
    sign_in = trace_events(summary["trace_dir"], "step")[-1]
    assert sign_in["verdict"] == "passed" and sign_in["findings"][0]["guard"] == "unreachable_check"
    assert not trace_events(summary["trace_dir"], "replan")

# ------------------------------------------------------------------ nothing strands a run


async def test_close_tab_is_not_offered_with_one_tab_and_an_answer_that_uses_it_is_refused_before_dispatch(sw, site_url, serve):
    plan = [{"intent": "Close the popup", "actions": [{"type": "close_tab"}, {"type": "click", "target": {"role": "button", "name": "Open panel"}}],
             "verify": [{"text_present": "Opened the first panel"}]}]
    model = await serve(plan)
    summary = await _run(sw, model, "Open the panel", f"{site_url}/agent/menu.html")
    assert summary["success"] is True, summary
    (step,) = trace_events(summary["trace_dir"], "step")
    assert step["verdict"] == "passed" and [p["kind"] for p in step["parse_failures"]] == ["not_offered"]
    prompts = _executor_prompts(model)
    assert "close_tab" not in prompts[0] and "this task has one tab" in prompts[1], "the model was told why"
    tabs = await sw.evaluate("() => chrome.tabs.query({}).then((t) => t.map((x) => x.url))")
    assert any(url.endswith("/agent/menu.html") for url in tabs)


async def test_navigate_to_a_relative_url_resolves_against_the_current_page(sw, site_url, serve):
    plan = [{"intent": "Open the other page", "action": {"type": "navigate", "url": "menu-b.html"}, "verify": [{"url_contains": "/agent/menu-b.html"}]},
            {"intent": "Open the account page", "action": {"type": "navigate", "url": "/agent/account.html"},
             "verify": [{"url_contains": "/agent/account.html"}]}]
    model = await serve(plan)
    summary = await _run(sw, model, "Open the account page, /agent/account.html", f"{site_url}/agent/menu.html")
    assert summary["success"] is True, summary
    first, second = trace_events(summary["trace_dir"], "step")
    assert (first["url_given"], first["action"]["url"]) == ("menu-b.html", f"{site_url}/agent/menu-b.html")
    assert (second["url_given"], second["action"]["url"]) == ("/agent/account.html", f"{site_url}/agent/account.html")


async def test_an_address_on_the_site_that_nothing_leads_to_is_advised_against_once_and_the_model_told_why(sw, site_url, serve):
    # The real model's cookie run: subscribed, then a replan's navigate to manage_choices.html
    # opened an error page and the landed subscription was lost.
    plan = [{"intent": "Open the choices", "actions": [{"type": "navigate", "url": "manage_choices.html"},
                                                        {"type": "click", "target": {"role": "button", "name": "Open panel"}}],
             "verify": [{"text_present": "Opened the first panel"}]}]
    model = await serve(plan)
    summary = await _run(sw, model, "Open the panel", f"{site_url}/agent/menu.html")
    assert summary["success"] is True, summary
    (clicked,) = trace_events(summary["trace_dir"], "step")
    assert clicked["verdict"] == "passed" and clicked["action"]["type"] == "click", "the navigate was never dispatched"
    assert clicked["parse_failures"][0]["kind"] == "made_up_url"
    assert clicked["findings"][0]["message"].startswith("no link on this page leads to /agent/manage_choices.html, the task does not give it")
    assert "a guessed address often opens an error page" in _executor_prompts(model)[1]
    assert summary["advisories"] == {"made_up_url": 1}


async def test_an_address_nothing_leads_to_that_the_model_gives_again_is_opened(sw, site_url, serve):
    # A page opened by script, or one the user knows: the model overrules the advice by insisting.
    go = {"type": "navigate", "url": "account.html"}
    model = await serve([{"intent": "Open the account page", "actions": [go, go], "verify": [{"url_contains": "/agent/account.html"}]}])
    summary = await _run(sw, model, "Open the account page", f"{site_url}/agent/menu.html")
    assert summary["success"] is True, summary
    (step,) = trace_events(summary["trace_dir"], "step")
    assert step["action"]["url"] == f"{site_url}/agent/account.html" and step["path"]
    assert [(f["guard"], f["overruled"]) for f in step["findings"]] == [("made_up_url", False), ("made_up_url", True)]
    assert summary["advisories"] == {"made_up_url": 1}

async def test_a_page_that_fails_to_load_is_shown_to_the_model_which_can_go_back(sw, site_url, serve):
    dead = f"http://127.0.0.1:{_closed_port()}/newsletter"
    plan = [{"intent": "Open the newsletter", "action": {"type": "navigate", "url": dead}, "verify": []},
            {"intent": "Go back to the menu", "action": {"type": "back"}, "verify": [{"url_contains": "/agent/menu.html"}]}]
    model = await serve(plan)
    summary = await _run(sw, model, "Read the newsletter", f"{site_url}/agent/menu.html")
    assert summary["outcome"] == "done", summary
    navigate = trace_events(summary["trace_dir"], "step")[0]
    assert navigate["action"] == {"type": "navigate", "url": dead}, "the failing navigate is in the trace"
    assert f"page failed to load: net::ERR_CONNECTION_REFUSED at {dead}" in _executor_prompts(model)[1]


async def test_a_planner_without_a_usable_plan_leaves_the_task_as_one_step_for_the_executor(sw, site_url, serve):
    task = "Open the panel"
    model = await serve(
        [{"intent": task, "actions": [{"type": "click", "target": {"role": "button", "name": "Open panel"}},
                                      {"type": "done", "result": "opened", "success": True}]}],
        plan_text=["I will open the panel.", '{"steps": []}', "Step 1: click Open panel"],
    )
    summary = await _run(sw, model, task, f"{site_url}/agent/menu.html")
    # Before: the run ended with 0 steps ("the planner gave no usable plan in 3 answers").
    plan = trace_events(summary["trace_dir"], "plan")[0]
    assert plan["fallback"] is True and plan["steps"] == [{"intent": task, "verify": [], "required": True}]
    assert [s["verdict"] for s in trace_events(summary["trace_dir"], "step")] == ["acted", "done"]
    assert summary["tokens_total"] == 5 * 15, "the three failed planner answers are counted too"
    # Nothing but the model's word says the task is done: that is not a success.
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary


async def test_a_run_without_planning_asks_no_planner_and_gives_the_executor_the_whole_task(sw, site_url, serve):
    task = "Open the panel"
    model = await serve([{"intent": task, "actions": [{"type": "click", "target": {"role": "button", "name": "Open panel"}},
                                                      {"type": "done", "result": "opened", "success": True}]}])
    summary = await _run(sw, model, task, f"{site_url}/agent/menu.html", plan=False)
    assert [seen.role for seen in model.seen] == ["executor", "executor"], "no planner call"
    assert all(f"Current step: {task}" in prompt for prompt in _executor_prompts(model))
    plan = trace_events(summary["trace_dir"], "plan")[0]
    assert plan["steps"] == [{"intent": task, "verify": [], "required": True}]
    assert [s["verdict"] for s in trace_events(summary["trace_dir"], "step")] == ["acted", "done"]
    # Without a plan nothing but the model's word says the task is done.
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary


async def test_filling_a_password_again_with_the_same_text_is_not_dispatched_and_the_model_is_told_to_go_on(sw, ledger, serve):
    password = {"type": "fill", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"}
    model = await serve([{"intent": LOGIN_TASK, "actions": [
        {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"}, password, password,
        {"type": "click", "target": {"role": "button", "name": "Sign in"}},
        {"type": "done", "result": "signed in", "success": True}]}])
    summary = await _run(sw, model, LOGIN_TASK, ledger, plan=False)
    steps = trace_events(summary["trace_dir"], "step")
    again = steps[2]
    assert again["action"]["type"] == "click", "the second fill was not dispatched"
    assert [(f["guard"], f["strength"]) for f in again["findings"]] == [("secret_refill", "refusal")]
    assert again["findings"][0]["message"] == '[2] textbox "Password" already holds the text you filled in; go on with the next part of the task'
    assert 'already holds the text you filled in' in _executor_prompts(model)[3]
    assert [s["verdict"] for s in steps[2:]] == ["acted", "done"]
    assert summary["refusals"]["secret_refill"] == 1

async def test_a_success_message_shown_only_inside_a_cross_origin_frame_verifies_the_step_on_the_first_try(sw, site_url, other_origin):
    script = {"steps": [{"intent": "Apply the coupon", "action": {"type": "click", "target": {"role": "button", "name": "Apply coupon"}},
                         "verify": [{"text_present": "Coupon SPRING25 applied"}]}]}
    run = await start_run(sw, {"task": "Apply the coupon SPRING25", "start_url": f"{site_url}/dispatch/frame_text.html?other={other_origin}",
                               "script": script, "screenshots": False})
    summary = await run.summary()
    assert summary["success"] is True, summary
    steps = trace_events(summary["trace_dir"], "step")
    assert [(s["verdict"], s["attempt"]) for s in steps] == [("passed", 1)]
    assert summary["replans"] == 0 and summary["retries"] == 0


async def test_a_check_that_the_password_field_holds_the_password_passes_once_the_run_filled_it(sw, ledger, serve):
    # The page never gives a password's value back; what the run filled in is the proof.
    model = await serve([
        {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
        {"intent": "Enter the password", "action": {"type": "fill", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Password"}, "value": "lovelace"}}]},
    ])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    password = [s for s in trace_events(summary["trace_dir"], "step") if s["intent"] == "Enter the password"]
    assert [(s["verdict"], s["attempt"]) for s in password] == [("passed", 1)], password
    assert password[0]["checks"][0]["detail"] == "[2] holds the text this run filled in (a password's value is never read)"


async def test_a_password_typed_into_its_empty_field_passes_the_check_that_it_holds_it(sw, ledger, serve):
    # The real model typed the password instead of filling it; the check could never pass.
    password = {"value_equals": {"target": {"role": "textbox", "name": "Password"}, "value": "lovelace"}}
    model = await serve([{"intent": "Type the password", "action": {"type": "type", "target": {"role": "textbox", "name": "Password"},
                                                                     "text": "lovelace"}, "verify": [password]}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    (step,) = trace_events(summary["trace_dir"], "step")
    assert (step["verdict"], step["attempt"]) == ("passed", 1), step
    assert step["checks"][0]["detail"] == "[2] holds the text this run filled in (a password's value is never read)"


async def test_a_password_typed_after_a_value_is_not_taken_for_the_text_typed(sw, ledger, serve):
    typed = {"type": "type", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"}
    password = {"value_equals": {"target": {"role": "textbox", "name": "Password"}, "value": "lovelace"}}
    model = await serve([{"intent": "Type the password", "actions": [{**typed, "text": "swordfish"}, typed, typed], "verify": [password]}])
    summary = await _run(sw, model, LOGIN_TASK, ledger, budgets={"max_replans": 1})
    steps = trace_events(summary["trace_dir"], "step")
    # "swordfish" went in first: what follows it is not "lovelace", however often it is typed. The
    # first typing gave the empty field a value, so its failed check went to a new plan rather than
    # to typing again unseen; typing into a field with a value shows nothing new, so it is retried.
    assert [s["verdict"] for s in steps] == ["failed", "retry", "retry", "retry"]
    assert all("this run has not filled it with that text" in s["reason"] for s in steps)
    assert trace_events(summary["trace_dir"], "step_failed")
    assert summary["success"] is False


async def test_a_check_that_held_before_the_step_and_not_after_is_no_failure_of_it(sw, ledger, serve):
    # "Sign in" is on the page before the click and gone after it: the planner's check said
    # nothing about this step either way, so the step is unproven, not retried.
    model = await serve([
        {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
        {"intent": "Enter the password", "action": {"type": "fill", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Password"}, "value": "lovelace"}}]},
        {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Sign in"}},
         "verify": [{"text_present": "Sign in"}]},
    ])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    sign_in = [s for s in trace_events(summary["trace_dir"], "step") if s["intent"] == "Sign in"]
    assert [(s["verdict"], s["attempt"]) for s in sign_in] == [("unproven", 1)], sign_in
    assert sign_in[0]["checks_before"][0]["ok"] is True
    assert summary["retries"] == 0


async def test_a_done_answered_at_a_step_whose_checks_fail_is_sent_back_and_the_run_goes_on(sw, ledger, serve):
    # The real model's login run: it answered done for "the password is filled" before it was,
    # and the run ended there with the Sign in button never clicked.
    model = await serve([
        {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
        {"intent": "Enter the password", "actions": [{"type": "done", "result": "success", "success": True},
                                                     {"type": "fill", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"}],
         "verify": [{"text_present": "lovelace"}]},
        {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Sign in"}},
         "verify": [{"url_contains": "/login/account.html"}]},
    ], success_criteria=[{"text_present": "Welcome, ada"}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    assert summary["success"] is True, summary
    password = [s for s in trace_events(summary["trace_dir"], "step") if s["intent"] == "Enter the password"]
    assert [s["verdict"] for s in password] == ["retry", "passed"]
    assert password[0]["reason"] == "done was claimed but the step's checks fail: not on the page"
    assert "Do the current step (Enter the password) with one action" in _executor_prompts(model)[2]


async def test_a_scroll_that_moved_nothing_is_sent_back_naming_the_field_to_act_on(sw, ledger, serve):
    # The real model's login run: it scrolled the password field "not visible yet" six times on a
    # sign-in page that fits in the window, and never filled it.
    password = {"role": "textbox", "name": "Password"}
    model = await serve([{"intent": "Enter the password", "actions": [{"type": "scroll", "direction": "down", "target": password},
                                                                      {"type": "fill", "target": password, "text": "lovelace"}],
                          "verify": [{"text_present": "lovelace"}]}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    scrolled, filled = trace_events(summary["trace_dir"], "step")
    assert (scrolled["verdict"], filled["verdict"]) == ("retry", "passed"), scrolled
    assert scrolled["reason"] == ('already_done: the scroll moved nothing: [2] textbox "Password" is not inside a scrolling list, and the page '
                                 "cannot scroll down any further. The snapshot lists every element of the page, in view or not: "
                                 'act on [2] textbox "Password" directly by its ref')
    second = _executor_prompts(model)[1]
    assert "the scroll moved nothing" in second
    assert 'did: scroll [2] textbox "Password" direction=\'down\' -> moved nothing' in second


async def test_the_history_says_what_each_action_changed_on_the_page(sw, ledger, serve):
    # The real model clicked "Increase quantity" sixteen times: its history named the clicks, never the quantity.
    keep = {"role": "checkbox", "name": "Keep me signed in"}
    model = await serve([
        {"intent": "Keep me signed in", "action": {"type": "check", "target": keep}, "verify": [{"checked": {"target": keep, "value": True}}]},
        {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
    ])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    checked = trace_events(summary["trace_dir"], "step")[0]
    assert checked["elements_changed"] == '[3] checkbox "Keep me signed in" checked false -> true', checked
    assert '-> changed: [3] checkbox "Keep me signed in" checked false -> true' in _executor_prompts(model)[1]


async def test_a_check_that_the_page_shows_the_password_holds_once_the_run_filled_it_and_never_quotes_it(sw, ledger, serve):
    model = await serve([{"intent": "Enter the password", "action": {"type": "fill", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"},
                          "verify": [{"text_present": "lovelace"}]}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    (step,) = trace_events(summary["trace_dir"], "step")
    assert step["verdict"] == "passed", step
    assert step["checks"][0]["detail"] == "held by a secret field this run filled with it (its value is never read)"


async def test_a_plan_whose_steps_are_done_while_the_task_is_not_is_planned_again_from_the_page_behind_the_dialog(sw, site_url, serve):
    # The real model planned only the cookie wall (the snapshot shows nothing behind a modal
    # dialog); the run then ended with the newsletter never subscribed.
    wall = {"intent": "Answer the cookie wall", "action": {"type": "click", "target": {"role": "button", "name": "Reject non-essential"}},
            "verify": [{"absent": {"role": "dialog"}}]}
    email = {"intent": "Enter the email", "action": {"type": "fill", "target": {"role": "textbox", "name": "Email address"}, "text": "ada@example.com"},
             "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Email address"}, "value": "ada@example.com"}}]}
    subscribe = {"intent": "Subscribe", "action": {"type": "click", "target": {"role": "button", "name": "Subscribe"}},
                 "verify": [{"url_contains": "subscribed.html"}]}
    criteria = [{"url_contains": "subscribed.html"}]
    first = json.dumps({"steps": [{"intent": wall["intent"], "verify": wall["verify"]}], "success_criteria": criteria})
    rest = json.dumps({"steps": [{"intent": s["intent"], "verify": s["verify"]} for s in (email, subscribe)], "success_criteria": criteria})
    model = await serve([wall, email, subscribe], plan_text=[first, rest])
    summary = await _run_on_site(sw, model, COOKIE_TASK, "cookies/index.html")
    assert summary["success"] is True, summary
    finished = trace_events(summary["trace_dir"], "plan_finished")[0]
    assert finished["unmet"].startswith("url_contains (url is ")
    evidence = trace_events(summary["trace_dir"], "replan")[0]["evidence"]
    assert evidence["plan_finished"] is True and "the last plan was made while an overlay hid" in evidence["reason"]
    replan_prompt = "\n".join([s for s in model.seen if s.role == "planner"][1].messages("user"))
    assert "Every step of the last plan was done, but the task is not finished." in replan_prompt
    assert 'textbox "Email address"' in replan_prompt, "the replan sees the page behind the dialog"
    assert [s["intent"] for s in trace_events(summary["trace_dir"], "step")] == ["Answer the cookie wall", "Enter the email", "Subscribe"]


async def test_a_plan_whose_steps_all_passed_unproven_while_the_task_is_not_done_is_planned_again(sw, serve):
    # The real model's shop plan: click the shop's own name, type into the search box, each
    # checked by what already held; the criteria failed and the run ended with its time unused.
    look = {"intent": "Look at the shop", "action": {"type": "hover", "target": {"role": "link", "name": "Waymark Demo Shop"}},
            "verify": [{"exists": {"role": "link", "name": "Waymark Demo Shop"}}]}
    first = json.dumps({"steps": [{"intent": look["intent"], "verify": look["verify"]}], "success_criteria": [{"url_contains": "cart"}]})
    model = await serve([look], plan_text=[first, json.dumps({"steps": []})])
    summary = await _run_on_site(sw, model, "Find the Trail Runner 3 running shoes in the shop and add them to the cart.", "shop/index.html")
    assert summary["success"] is False, summary
    assert trace_events(summary["trace_dir"], "plan_finished")[0]["unmet"].startswith("url_contains")
    replan = trace_events(summary["trace_dir"], "replan")[0]
    assert replan["evidence"]["reason"].endswith("; no step of the last plan was proven by a check that changed")


async def test_a_success_whose_criteria_hold_while_the_tasks_email_was_never_entered_is_a_failed_run(sw, serve):
    # The real model subscribed with an empty email field, and its criterion (the confirmation
    # page's title) held: "SUCCESS" on a task whose point was the address. (A click on Subscribe
    # is refused before dispatch now; Enter in the field sends the form past that guard.)
    reject = {"intent": "Answer the cookie wall", "action": {"type": "click", "target": {"role": "button", "name": "Reject non-essential"}},
              "verify": [{"absent": {"role": "dialog"}}]}
    subscribe = {"intent": "Subscribe", "action": {"type": "press", "key": "Enter", "target": {"role": "textbox", "name": "Email address"}},
                 "verify": [{"title_contains": "Subscribed"}]}
    model = await serve([reject, subscribe], success_criteria=[{"title_contains": "Subscribed"}])
    summary = await _run_on_site(sw, model, COOKIE_TASK, "cookies/index.html")
    assert (summary["success"], summary["outcome"]) == (False, "failed"), summary
    assert summary["reason"] == ("success was claimed but the task gives ada@example.com and the run never entered it, "
                                 "nor does the page show it")


async def test_a_press_on_subscribe_while_the_tasks_email_is_not_in_its_field_is_refused_before_dispatch(sw, serve):
    # The real model clicked Subscribe, the email field "already filled" in its words, and the
    # newsletter was subscribed with no address: a submission cannot be taken back.
    reject = {"intent": "Answer the cookie wall", "action": {"type": "click", "target": {"role": "button", "name": "Reject non-essential"}},
              "verify": [{"absent": {"role": "dialog"}}]}
    subscribe_button = {"type": "click", "target": {"role": "button", "name": "Subscribe"}}
    subscribe = {"intent": "Subscribe", "verify": [{"title_contains": "Subscribed"}], "actions": [
        subscribe_button, {"type": "fill", "target": {"role": "textbox", "name": "Email address"}, "text": "ada@example.com"}, subscribe_button]}
    model = await serve([reject, subscribe], success_criteria=[{"url_contains": "email=ada%40example.com"}])
    summary = await _run_on_site(sw, model, COOKIE_TASK, "cookies/index.html")
    assert summary["success"] is True, "the address went with the form"
    steps = [s for s in trace_events(summary["trace_dir"], "step") if s["intent"] == "Subscribe"]
    assert [s["action"]["type"] for s in steps] == ["fill", "click"]
    refusal = steps[0]["parse_failures"][0]
    assert refusal["kind"] == "value_missing" and refusal["detail"].startswith("the task gives ada@example.com, which this run has not typed")


async def test_criteria_that_held_before_anything_was_done_prove_nothing_even_after_a_verified_step(sw, ledger, serve):
    # The real model's shop replan gave the start page's title and URL as the task's criteria; one
    # verified step (typing into the search box) then made "add the shoes to the cart" a success.
    model = await serve([
        {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
    ], success_criteria=[{"title_contains": "Ledger"}, {"url_contains": "/login/index.html"}])
    summary = await _run(sw, model, LOGIN_TASK, ledger)
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert summary["steps_passed"] == 1
    assert summary["reason"] == "nothing proves the task was done: every success criterion already held when the run began (1 step(s) verified)"


#: A sign-in as a plan would write it, every step checked by something that changes, and a
#: criterion (the site's name in the title) that holds on every page of the site.
REMEMBER_ME_PLAN = [
    {"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
     "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada"}}]},
    {"intent": "Enter the password", "action": {"type": "fill", "target": {"role": "textbox", "name": "Password"}, "text": "lovelace"},
     "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Password"}, "value": "lovelace"}}]},
    {"intent": "Tick Keep me signed in", "action": {"type": "click", "target": {"role": "checkbox", "name": "Keep me signed in"}},
     "verify": [{"text_present": "Keep me signed in"}]},
]
SIGN_IN = {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Sign in"}}, "verify": [{"url_changed": True}]}


async def test_criteria_that_held_from_the_start_prove_nothing_even_after_a_plan_whose_every_step_the_page_proved(sw, ledger, serve):
    # Issue 56: a criterion that held before the run began says nothing of what it did, however
    # well the page proved the plan's steps (the site's name in the title holds on every page of it).
    model = await serve([*REMEMBER_ME_PLAN, SIGN_IN], success_criteria=[{"title_contains": "Ledger"}])
    summary = await _run(sw, model, "Sign in to Ledger as ada with the password lovelace and stay signed in.", ledger)
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    steps = trace_events(summary["trace_dir"], "step")
    assert [s["verdict"] for s in steps] == ["passed"] * 4
    assert steps[2]["target_state"] == 'checkbox "Keep me signed in" checked false -> true'
    assert summary["reason"] == "nothing proves the task was done: every success criterion already held when the run began (3 step(s) verified)"


async def test_criteria_that_held_from_the_start_and_a_plan_whose_last_step_showed_nothing_stay_unproven(sw, ledger, serve):
    # The same plan, its Sign in only hovered: the typing and the box are proven, the task is not.
    hover = {**SIGN_IN, "action": {"type": "hover", "target": {"role": "button", "name": "Sign in"}}, "verify": [{"text_present": "Sign in"}]}
    model = await serve([*REMEMBER_ME_PLAN, hover], success_criteria=[{"title_contains": "Ledger"}])
    summary = await _run(sw, model, "Sign in to Ledger as ada with the password lovelace and stay signed in.", ledger)
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert summary["reason"] == "nothing proves the task was done: every success criterion already held when the run began (2 step(s) verified)"


async def test_criteria_a_replan_read_off_the_page_it_was_on_prove_nothing_without_a_proven_step(sw, serve):
    # The real model's widgets run: Save clicked with none of the options set, then a replan on the
    # saved page named that page's title as the task's criterion, and the order was a success.
    save = {"intent": "Save the options", "action": {"type": "click", "target": {"role": "button", "name": "Save options"}},
            "verify": [{"text_present": "3 bouquets"}]}
    first = json.dumps({"steps": [{"intent": save["intent"], "verify": save["verify"]}]})
    read_off = json.dumps({"steps": [], "success_criteria": [{"title_contains": "Options saved"}]})
    model = await serve([save], plan_text=[first, read_off])
    with SiteServer() as sites:
        summary = await _run(sw, model, "Order 3 bouquets with gift wrap, rate the bouquet 4 stars and save the options.",
                             f"{sites.site}/widgets/index.html", policy={"destructive": "allow"}, budgets={"retries_per_step": 0})
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert summary["reason"] == ("nothing proves the task was done: every success criterion already held when the plan that "
                                 "named it was made (0 step(s) verified)")
    criteria = trace_events(summary["trace_dir"], "criteria")[0]
    assert criteria["ok"] is True and criteria["held_when_written"] == ['{"title_contains": "Options saved"}']


async def test_a_click_that_took_the_tab_to_the_help_links_address_is_a_success_though_the_plan_named_the_boards_title(sw, serve):
    # The real model's Kanbanish spa-help run (8053d07): its step "Click on the 'Help' link" was
    # checked by text the board already showed, its criterion was the board's own title, and the
    # run that opened Help as asked ended `failed`.
    board = "Board · Kanbanish"
    model = await serve([{"intent": "Click on the 'Help' link", "action": {"type": "click", "target": {"role": "link", "name": "Help"}},
                          "verify": [{"text_present": board}]}], success_criteria=[{"title_contains": board}])
    summary = await _run_on_site(sw, model, "Open the Help page of Kanbanish.", "spa/index.html")
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary
    step = trace_events(summary["trace_dir"], "step")[0]
    assert step["verdict"] == "passed" and step["target_state"].startswith('link "Help" went to its address')
    assert step["target_state"].endswith('/spa/index.html#/help"')
    conclusion = trace_events(summary["trace_dir"], "conclusion")[0]
    assert [(f["guard"], f["strength"]) for f in conclusion["findings"]] == [("left_start_page", "advisory")]


async def test_a_link_click_whose_guessed_url_check_nothing_leads_to_is_proven_by_the_address_the_link_gives(sw, serve):
    # The real model's Orbit longpage-contact run (8053d07): "/contactus" was a guess, the link
    # "Contact us" leads to contact.html; the check was dropped and the step passed with no proof.
    model = await serve([{"intent": "Open the Contact us page", "action": {"type": "click", "target": {"role": "link", "name": "Contact us"}},
                          "verify": [{"url_contains": "/contactus"}]}], success_criteria=[{"title_contains": "Contact"}])
    summary = await _run_on_site(sw, model, "Open the Contact us page of Orbit.", "longpage/index.html")
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary
    step = trace_events(summary["trace_dir"], "step")[0]
    assert [f["guard"] for f in step["findings"]] == ["unreachable_check"]
    assert step["verdict"] == "passed" and step["target_state"].endswith('/longpage/contact.html"')


async def test_a_reset_form_sent_to_its_action_by_the_button_the_step_names_is_a_success(sw, serve):
    # The real model's Ledger login-forgot-password run (8f9c5ea): it typed the address and pressed
    # "Send reset link", the page went to reset-sent.html, and every step was unproven (their checks
    # held before they acted): the run the judge passed ended `unproven`.
    email = {"role": "textbox", "name": "Email"}
    model = await serve([
        {"intent": "Enter ada@example.com in Email", "action": {"type": "fill", "target": email, "text": "ada@example.com"},
         "verify": [{"value_equals": {"target": email, "value": "ada@example.com"}}]},
        {"intent": "click on the 'Send reset link' button", "action": {"type": "click", "target": {"role": "button", "name": "Send reset link"}},
         "verify": [{"exists": {"role": "button", "name": "Send reset link"}}]},
    ], success_criteria=[{"title_contains": "Reset password"}])
    summary = await _run_on_site(sw, model, "Ask Ledger for a password reset link for ada@example.com.", "login/forgot.html")
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary
    steps = trace_events(summary["trace_dir"], "step")
    assert steps[1]["target_state"].startswith('button "Send reset link" sent its form to its address')
    assert steps[1]["target_state"].endswith('/login/reset-sent.html"')


async def test_login_forgot_password_a_title_the_replan_read_off_the_reset_form_leaves_the_sent_form_unproven_not_failed(sw, serve):
    # The real model's Ledger login-forgot-password run (ff549a0): its first plan failed on the
    # reset form, the replan made there named the form's own title, the form was sent to
    # reset-sent.html, and the run the judge passed ended `failed` by that title.
    email = {"role": "textbox", "name": "Email"}
    forgot = {"intent": "Open the 'Forgot password?' page", "action": {"type": "click", "target": {"role": "link", "name": "Forgot password?"}},
              "verify": [{"value_equals": {"target": {"role": "textbox", "name": "Username"}, "value": "ada@example.com"}}]}
    fill = {"intent": "Enter ada@example.com in Email", "action": {"type": "fill", "target": email, "text": "ada@example.com"},
            "verify": [{"value_equals": {"target": email, "value": "ada@example.com"}}]}
    send = {"intent": "click on the 'Send reset link' button", "action": {"type": "click", "target": {"role": "button", "name": "Send reset link"}},
            "verify": [{"exists": {"role": "button", "name": "Send reset link"}}]}
    first = json.dumps({"steps": [{"intent": forgot["intent"], "verify": forgot["verify"]}]})
    replan = json.dumps({"steps": [{"intent": s["intent"], "verify": s["verify"]} for s in (fill, send)],
                         "success_criteria": [{"title_contains": "Reset password · Ledger"}]})
    model = await serve([forgot, fill, send], plan_text=[first, replan])
    with SiteServer() as sites:
        summary = await _run(sw, model, "Ask Ledger for a password reset link for ada@example.com.", f"{sites.site}/login/index.html",
                             policy={"destructive": "allow"}, budgets={"retries_per_step": 0})
    assert (summary["success"], summary["outcome"], summary["replans"]) == (False, "unproven", 1), summary
    assert summary["reason"].startswith("nothing proves the task was done, nor that it failed")
    assert trace_events(summary["trace_dir"], "step")[-1]["target_state"].endswith('/login/reset-sent.html"')
    criteria = trace_events(summary["trace_dir"], "criteria")[0]
    assert criteria["held_when_written"] == ['{"title_contains": "Reset password · Ledger"}'] and criteria["held_at_start"] == []


async def test_a_replan_made_on_the_help_page_the_task_asks_for_that_then_left_it_is_never_a_success(sw, serve):
    # Another shape, where a title read off the replan's page named the goal: the replan made on
    # Help named Help's title and went back to the board by a link its step names (a proven step);
    # planned again there, it found nothing left to do.
    help_link = {"intent": "Open the Help page", "action": {"type": "click", "target": {"role": "link", "name": "Help"}},
                 "verify": [{"text_present": "Keyboard shortcuts"}]}
    board = {"intent": "Go back to the Board", "action": {"type": "click", "target": {"role": "link", "name": "Board"}}, "verify": []}
    first = json.dumps({"steps": [{"intent": help_link["intent"], "verify": help_link["verify"]}]})
    replan = json.dumps({"steps": [{"intent": board["intent"], "verify": []}], "success_criteria": [{"title_contains": "Help · Kanbanish"}]})
    model = await serve([help_link, board], plan_text=[first, replan, json.dumps({"steps": []})])
    with SiteServer() as sites:
        summary = await _run(sw, model, "Open the Help page of Kanbanish.", f"{sites.site}/spa/index.html", budgets={"retries_per_step": 0})
    assert (summary["success"], summary["outcome"], summary["replans"]) == (False, "unproven", 2), summary
    assert trace_events(summary["trace_dir"], "step")[-1]["target_state"].startswith('link "Board" went to its address')
    assert [f["guard"] for f in trace_events(summary["trace_dir"], "conclusion")[0]["findings"]] == ["left_named_page"]


CONTACT = {"intent": "Open the Contact us page", "action": {"type": "click", "target": {"role": "link", "name": "Contact us"}},
           "verify": [{"url_contains": "/contactus"}]}


async def test_criteria_a_replan_read_off_the_page_a_proven_plan_reached_prove_the_task(sw, serve):
    # The real model's Orbit longpage-contact run (8053d07): its plan's criterion guessed the title
    # ("Contact us", the page says "Contact · Orbit"), the replan on the contact page named its
    # title and found nothing left to do, and the run that opened the page as asked was unproven.
    first = json.dumps({"steps": [{"intent": CONTACT["intent"], "verify": CONTACT["verify"]}], "success_criteria": [{"title_contains": "Contact us"}]})
    read_off = json.dumps({"steps": [], "success_criteria": [{"title_contains": "Contact · Orbit"}]})
    model = await serve([CONTACT], plan_text=[first, read_off])
    summary = await _run_on_site(sw, model, "Open the Contact us page of Orbit.", "longpage/index.html")
    assert (summary["success"], summary["outcome"], summary["replans"]) == (True, "done", 1), summary
    assert trace_events(summary["trace_dir"], "step")[0]["target_state"].endswith('/longpage/contact.html"')


async def test_criteria_a_replan_read_off_the_page_stay_unproven_after_a_plan_that_proved_one_link_and_failed_a_step(sw, serve):
    # The real model's shop-upsell-accept run: "Cart (0)" opened as its first step asked, the step
    # to add the boots failed, and the replan named the cart page's title. One proven link is not
    # the task.
    cart = {"intent": "Click on the 'Cart (0)' link", "action": {"type": "click", "target": {"role": "link", "name": "Cart (0)"}},
            "verify": [{"exists": {"role": "link", "name": "Cart (0)"}}]}
    add = {"intent": "Add the Trailhead hiking boots to the cart", "action": {"type": "click", "target": {"role": "link", "name": "Cart (0)"}},
           "verify": [{"text_present": "Added to your cart"}]}
    first = json.dumps({"steps": [{"intent": s["intent"], "verify": s["verify"]} for s in (cart, add)]})
    read_off = json.dumps({"steps": [], "success_criteria": [{"title_contains": "Cart · Waymark Demo Shop"}]})
    model = await serve([cart, add], plan_text=[first, read_off])
    summary = await _run_on_site(sw, model, "Add the Trailhead hiking boots to the cart, and take the offer in the drawer that appears.",
                                 "shop/index.html")
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert trace_events(summary["trace_dir"], "step")[0]["target_state"].startswith('link "Cart (0)" went to its address')


SHOES_TASK = "Find the Trail Runner 3 running shoes in the shop and add them to the cart."


async def test_shop_add_to_cart_criteria_a_plan_of_one_optional_step_brought_about_prove_nothing(sw, serve):
    # The real model's shop-add-to-cart run (d5740c7): the search step failed on the results page,
    # the replan gave one optional step and no criteria, and the executor's click on the product's
    # link made the first plan's guessed criteria hold (the product page's title, the label of its
    # Add to cart button): the run ended `done` with the cart empty.
    find = {"intent": "Find the Trail Runner 3 running shoes in the shop", "verify": [{"title_contains": "Trail Runner 3"}],
            "actions": [{"type": "fill", "target": {"role": "searchbox", "name": "Search products"}, "text": "Trail Runner 3"},
                        {"type": "click", "target": {"role": "button", "name": "Search"}}]}
    again = {"intent": "fill [3] searchbox 'Search products' text='Trail Runner 3'",
             "action": {"type": "click", "target": {"role": "link", "name": "Trail Runner 3 running shoes"}}}
    first = json.dumps({"steps": [{"intent": find["intent"], "verify": find["verify"]},
                                  {"intent": "Add them to the cart", "verify": [{"text_present": "Add to Cart"}]}],
                        "success_criteria": [{"title_contains": "Trail Runner 3"}, {"text_present": "Add to Cart"}]})
    optional = json.dumps({"steps": [{"intent": again["intent"], "verify": [], "required": False}], "success_criteria": []})
    model = await serve([find, again], plan_text=[first, optional])
    with SiteServer() as sites:
        summary = await _run(sw, model, SHOES_TASK, f"{sites.site}/shop/index.html", policy={"destructive": "allow"},
                             budgets={"retries_per_step": 1})
    assert (summary["success"], summary["outcome"], summary["replans"]) == (False, "unproven", 1), summary
    assert summary["reason"] == ("nothing proves the task was done: the success criteria came to hold only while the last plan ran, "
                                 "and every step of it was optional, one the task can succeed without")
    assert trace_events(summary["trace_dir"], "criteria")[0]["ok"] is True


async def test_a_plan_of_one_optional_step_made_while_the_offer_covered_the_page_leaves_the_cart_link_to_prove_the_task(sw, serve):
    # Another shape: Add to cart was clicked (its guessed check failed), and the replan, made while
    # the protection offer covered the page, only closed the offer. The cart link said "Cart (1)"
    # behind the offer all along: the optional step did not bring it about.
    add = {"intent": "Add the shoes to the cart", "action": {"type": "click", "target": {"role": "button", "name": "Add to cart"}},
           "verify": [{"text_present": "Item added"}]}
    close = {"intent": "Close the protection offer", "action": {"type": "click", "target": {"role": "button", "name": "No thanks"}}}
    first = json.dumps({"steps": [{"intent": add["intent"], "verify": add["verify"]}],
                        "success_criteria": [{"exists": {"role": "link", "name": "Cart (1)"}}]})
    optional = json.dumps({"steps": [{"intent": close["intent"], "verify": [], "required": False}]})
    model = await serve([add, close], plan_text=[first, optional])
    with SiteServer() as sites:
        summary = await _run(sw, model, "Add the Trail Runner 3 running shoes to the cart.", f"{sites.site}/shop/product.html?id=trail-runner-3",
                             policy={"destructive": "allow"}, budgets={"retries_per_step": 0})
    assert (summary["success"], summary["outcome"], summary["replans"]) == (True, "done", 1), summary
    # The click changed the page (the offer opened): its failed check goes to the new plan, not a retry.
    assert [s["verdict"] for s in trace_events(summary["trace_dir"], "step")] == ["failed", "passed"]


async def test_a_click_on_a_link_the_step_does_not_name_proves_nothing_and_the_boards_title_still_cannot_prove_the_task(sw, serve):
    # The same run with the step asking for Settings while Help is clicked: the tab moved, but not
    # by the link the step named, so nothing the page says proves the step or the task.
    model = await serve([{"intent": "Open the Settings", "action": {"type": "click", "target": {"role": "link", "name": "Help"}},
                          "verify": [{"text_present": "Board · Kanbanish"}]}], success_criteria=[{"title_contains": "Board · Kanbanish"}])
    summary = await _run_on_site(sw, model, "Open the Settings page of Kanbanish.", "spa/index.html")
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert "target_state" not in trace_events(summary["trace_dir"], "step")[0]


async def test_criteria_that_speak_of_one_part_of_a_task_are_an_advisory_and_never_turn_the_verdict(sw, serve):
    # The real model's settings run took "the title contains Settings" for a display name set, a
    # theme chosen and a digest turned on; but words differ between task and site ("dark theme",
    # "Night mode"), so the parts no criterion names are told and counted, not made unproven.
    model = await serve([{"intent": "Open the settings", "action": {"type": "click", "target": {"role": "link", "name": "Settings"}}}],
                        success_criteria=[{"title_contains": "Settings"}])
    summary = await _run_on_site(sw, model, "In Kanbanish, set the display name to Ada L., choose the dark theme, turn on the daily "
                                            "digest and save the settings.", "spa/index.html")
    assert summary["advisories"] == {"parts_unnamed": 1}, summary
    (conclusion,) = trace_events(summary["trace_dir"], "conclusion")
    assert conclusion["findings"][0]["message"] == ("no success criterion speaks of these parts of the task: set the display name to "
                                                    "Ada L.; choose the dark theme; turn on the daily digest")



GREEN = [{"checked": {"target": {"role": "checkbox", "name": "Green"}}}]


async def test_a_form_its_page_covered_once_sent_is_proven_by_the_boxes_checked_beneath_the_cover(sw, site_url, serve):
    # MiniWoB++ covers its page with START the moment an episode ends: the agent, shown only what
    # it can act on, found no checkbox on the final page and called a completed task unproven.
    check = {"intent": "Check Green", "action": {"type": "check", "target": {"role": "checkbox", "name": "Green"}}, "verify": GREEN}
    submit = {"intent": "Submit", "action": {"type": "click", "target": {"role": "button", "name": "Submit"}}, "verify": []}
    model = await serve([check, submit], success_criteria=GREEN)
    summary = await _run(sw, model, "Select Green and submit.", f"{site_url}/agent/covered.html", policy={"destructive": "allow"})
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary
    criteria = trace_events(summary["trace_dir"], "criteria")[0]
    assert (criteria["ok"], criteria["held_at_start"]) == (True, [])


async def test_a_box_a_cookie_wall_covered_when_the_run_began_was_checked_then_and_proves_nothing(sw, site_url, serve):
    # Another shape, where reading beneath an overlay must not make a proof: Green was checked
    # before the run, under the wall; accepting the wall, with nothing to show for it, only
    # uncovered it (read as the model is shown the page, the box came to be checked).
    accept = {"intent": "Accept the cookies", "action": {"type": "click", "target": {"role": "button", "name": "Accept"}}, "verify": []}
    model = await serve([accept], success_criteria=GREEN)
    summary = await _run(sw, model, "Select Green.", f"{site_url}/agent/covered.html?wall", policy={"destructive": "allow"})
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    assert trace_events(summary["trace_dir"], "criteria")[0]["held_at_start"] == [key(GREEN[0])]
    assert summary["reason"].startswith("nothing proves the task was done: every success criterion already held when the run began")
