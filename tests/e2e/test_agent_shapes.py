"""Pages shaped differently from the fixture sites the guards were drawn from, run end to end
(loopback model, real host, extension and Chromium): where the right action is Enter on a page
with no control, a click into a focused field, a Send beside an optional empty Cc, a removal of
an address; where a sign-in page names checkout in its query; where a message is typed but
never sent. No guard may refuse a right action here, and no run may report a false success."""

from __future__ import annotations

from typing import Any

from tests.agent_calls import start_run, trace_events


async def _run(sw: Any, model: Any, task: str, url: str, **params: Any) -> dict[str, Any]:
    run = await start_run(sw, {"task": task, "start_url": url, "screenshots": False, "policy": {"destructive": "allow"},
                               **model.provider_params(), **params})
    return await run.summary()


def _findings(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in trace_events(summary["trace_dir"], "step") for f in s.get("findings", [])]


async def test_enter_on_a_keyboard_driven_page_that_lists_no_control_is_dispatched(sw, site_url, serve):
    model = await serve([{"intent": "Start the slideshow", "action": {"type": "press", "key": "Enter"},
                          "verify": [{"title_contains": "Slide 1"}]}])
    summary = await _run(sw, model, "Start the slideshow", f"{site_url}/agent/shapes/keyboard.html")
    assert summary["success"] is True, summary
    assert _findings(summary) == [] and summary["refusals"] == {} and summary["advisories"] == {}


async def test_a_click_into_an_already_focused_date_field_opens_its_picker(sw, site_url, serve):
    model = await serve([
        {"intent": "Open the date picker", "action": {"type": "click", "target": {"role": "textbox", "name": "Departure date"}},
         "verify": [{"exists": {"role": "button", "name": "November 15"}}]},
        {"intent": "Pick November 15", "action": {"type": "click", "target": {"role": "button", "name": "November 15"}},
         "verify": [{"text_present": "Leaving on November 15"}]}])
    summary = await _run(sw, model, "Pick November 15 as the departure date", f"{site_url}/agent/shapes/datepicker.html")
    assert summary["success"] is True, summary
    assert _findings(summary) == []


async def test_send_on_a_reply_form_with_the_to_prefilled_and_the_optional_cc_empty_is_dispatched(sw, site_url, serve):
    model = await serve([
        {"intent": "Write the reply", "action": {"type": "fill", "target": {"role": "textbox", "name": "Message"}, "text": "Thanks!"}},
        {"intent": "Send the reply", "action": {"type": "click", "target": {"role": "button", "name": "Send"}},
         "verify": [{"text_present": "Reply sent to bob@example.com"}]}])
    summary = await _run(sw, model, "Reply to bob@example.com saying Thanks!", f"{site_url}/agent/shapes/reply.html")
    assert summary["success"] is True, summary
    assert _findings(summary) == []


async def test_removing_an_address_from_the_contacts_is_a_success_though_the_run_never_typed_it(sw, site_url, serve):
    model = await serve([{"intent": "Remove Bob", "action": {"type": "click", "target": {"role": "button", "name": "Remove bob@example.com"}},
                          "verify": [{"absent": {"role": "button", "name": "Remove bob@example.com"}}]}],
                        success_criteria=[{"text_present": "Contact removed"}])
    summary = await _run(sw, model, "Remove bob@example.com from my contacts", f"{site_url}/agent/shapes/contacts.html")
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary


async def test_a_sign_in_page_whose_query_names_checkout_does_not_meet_a_checkout_criterion(sw, site_url, serve):
    model = await serve([{"intent": "Go to checkout", "action": {"type": "click", "target": {"role": "link", "name": "Checkout"}}}],
                        success_criteria=[{"url_contains": "/checkout"}])
    summary = await _run(sw, model, "Check out the cart", f"{site_url}/agent/shapes/cart.html")
    assert summary["success"] is False, summary
    unmet = trace_events(summary["trace_dir"], "plan_finished")[0]["unmet"]
    assert unmet.startswith("url_contains (url is ") and unmet.endswith("/agent/shapes/signin.html?return=checkout)")


TYPED_ONLY_CRITERIA = [{"text_present": "Where is my order?"},
                       {"value_equals": {"target": {"role": "textbox", "name": "Your message"}, "value": "Where is my order?"}}]


async def test_a_support_message_typed_but_never_sent_is_not_a_success_though_its_criteria_hold(sw, site_url, serve):
    # The real model on a support chat it had never seen: the planner marked Send optional, the
    # model typed the message and answered done, both criteria held by its own typing: SUCCESS.
    model = await serve([{"intent": "Type the message", "action": {
        "type": "fill", "target": {"role": "textbox", "name": "Your message"}, "text": "Where is my order?"}}],
        success_criteria=TYPED_ONLY_CRITERIA)
    summary = await _run(sw, model, "Send 'Where is my order?' to support", f"{site_url}/agent/shapes/chat.html")
    assert (summary["success"], summary["outcome"]) == (False, "unproven"), summary
    (conclusion,) = trace_events(summary["trace_dir"], "conclusion")
    assert [f["guard"] for f in conclusion["findings"]] == ["own_typing", "nothing_proves"]


async def test_a_support_message_that_shows_in_the_conversation_is_a_success(sw, site_url, serve):
    model = await serve([{"intent": "Send the message", "actions": [
        {"type": "fill", "target": {"role": "textbox", "name": "Your message"}, "text": "Where is my order?"},
        {"type": "click", "target": {"role": "button", "name": "Send"}}],
        "verify": [{"text_present": "You: Where is my order?"}]}], success_criteria=[TYPED_ONLY_CRITERIA[0]])
    summary = await _run(sw, model, "Send 'Where is my order?' to support", f"{site_url}/agent/shapes/chat.html")
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary


async def test_a_task_with_angle_bracket_words_runs_without_a_plan_like_any_other(sw, site_url, serve):
    # Every --no-plan task with a word like <name> ended as `error: internal error`.
    task = "Type <name> as the message"
    model = await serve([{"intent": task, "actions": [
        {"type": "fill", "target": {"role": "textbox", "name": "Your message"}, "text": "<name>"},
        {"type": "done", "result": "typed", "success": True}]}])
    summary = await _run(sw, model, task, f"{site_url}/agent/shapes/chat.html", plan=False)
    assert summary["outcome"] != "error", summary
    assert trace_events(summary["trace_dir"], "plan")[0]["steps"][0]["intent"] == task


async def test_create_account_with_the_required_name_empty_is_advised_against_once_by_what_the_page_says(sw, site_url, serve):
    create = {"type": "click", "target": {"role": "button", "name": "Create account"}}
    model = await serve([{"intent": "Create the account", "actions": [
        create, {"type": "fill", "target": {"role": "textbox", "name": "Full name"}, "text": "Ada"}, create],
        "verify": [{"text_present": "Account created for Ada"}]}])
    summary = await _run(sw, model, "Create an account for Ada", f"{site_url}/agent/shapes/signup.html")
    assert summary["success"] is True, summary
    found = _findings(summary)
    assert [(f["guard"], f["strength"]) for f in found] == [("form_incomplete", "advisory")]
    assert found[0]["message"].startswith('[') and 'textbox "Full name" is required and empty' in found[0]["message"]
