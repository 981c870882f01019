"""Agent decisions over the shipped fake browser (host.testing.fake_browser): the real run (planner,
executor, admission, guards, step judge, proof) and the real replay drive scripted pages, with
no Chromium. Each test says what the browser received and how the run ended."""

from __future__ import annotations

from typing import Any

import pytest

from waymark.host.agent.confirm import Policy
from waymark.host.agent.human import NobodyHome
from waymark.host.agent.loop import AgentRun, RunOptions
from waymark.host.browser import act
from waymark.host.core.browser_api import ActRequest
from waymark.host.core.targets import ElementPlace
from waymark.host.testing.fake_browser import FakeBrowser, FakePage
from waymark.host.testing.virtual_time import run_instantly
from waymark.host.workflows.model import Workflow, WorkflowStep
from waymark.host.workflows.replay import Replay, ReplayOptions
from waymark.providers.scripted import ScriptedProvider

SITE = "http://127.0.0.1:9"
USERNAME = {"role": "textbox", "name": "Username"}
PASSWORD = {"role": "textbox", "name": "Password"}
SIGN_IN = {"role": "button", "name": "Sign in"}


def sign_in_site() -> FakeBrowser:
    """A sign-in form whose button goes to the account page, which greets the user."""
    form = FakePage(url=f"{SITE}/login", title="Ledger: sign in", text="Sign in to Ledger", clicks={3: "account"},
                    elements=[{"ref": 1, **USERNAME}, {"ref": 2, **PASSWORD}, {"ref": 3, **SIGN_IN}])
    account = FakePage(url=f"{SITE}/account", title="Ledger: account", text="Welcome, ada",
                       elements=[{"ref": 1, "role": "link", "name": "Sign out"}])
    return FakeBrowser({"form": form, "account": account}, "form")


def run(browser: FakeBrowser, task: str, script: dict[str, Any], policy: dict[str, str] | None = None,
        steps: list[dict[str, Any]] | None = None) -> Any:
    """The task run to its summary against `browser`, both roles played by the scripted provider,
    nobody there to confirm anything; each step event the run emits is added to `steps`."""
    provider = ScriptedProvider(script=script)
    options = RunOptions(task=task, screenshots=False, policy=policy or {"destructive": "allow"})
    def emit(kind: str, record: dict[str, Any]) -> None:
        if kind == "step" and steps is not None:
            steps.append(record)
    return run_instantly(AgentRun(options, browser, provider, provider, NobodyHome(), emit=emit).run())


def step(intent: str, action: dict[str, Any], *verify: dict[str, Any]) -> dict[str, Any]:
    return {"intent": intent, "action": action, "verify": list(verify)}


def test_an_action_the_admission_never_admitted_does_not_reach_the_fake():
    browser = sign_in_site()
    click = {"type": "click", "ref": 3}
    result = run_instantly(act(browser, click, ActRequest(tab_id=1, action=click)))  # type: ignore[arg-type]  # a bare action: what act refuses
    assert result.error is not None and result.error.code == "not_admitted"
    assert browser.sent == [] and browser.state == "form"


def test_a_sign_in_whose_check_holds_on_the_account_page_is_proven():
    browser = sign_in_site()
    script = {"steps": [step("Enter the username", {"type": "fill", "target": USERNAME, "text": "ada"},
                             {"value_equals": {"target": USERNAME, "value": "ada"}}),
                        step("Sign in", {"type": "click", "target": SIGN_IN}, {"url_contains": "account"})],
              "success_criteria": [{"text_present": "Welcome, ada"}]}
    summary = run(browser, "Sign in to Ledger as ada", script)
    assert (summary.success, summary.outcome) == (True, "done"), summary.reason
    assert browser.acted == [{"type": "fill", "ref": 1, "text": "ada"}, {"type": "click", "ref": 3}]
    assert summary.steps_passed == 2


def test_a_check_that_held_before_the_step_leaves_the_run_unproven():
    browser = sign_in_site()
    # The title named Ledger before anything was done: it proves nothing the run did.
    script = {"steps": [step("Look at the sign-in page", {"type": "click", "target": USERNAME}, {"title_contains": "Ledger"})],
              "success_criteria": [{"title_contains": "Ledger"}]}
    summary = run(browser, "Open the Ledger sign-in page", script)
    assert (summary.success, summary.outcome) == (False, "unproven")
    assert "nothing proves the task was done" in summary.reason
    assert browser.page.url == f"{SITE}/login"


def test_a_destructive_click_the_user_declines_never_reaches_the_browser():
    items = FakePage(url=f"{SITE}/items", title="Items", text="Your items", clicks={1: "gone"},
                     elements=[{"ref": 1, "role": "button", "name": "Delete all items"}])
    gone = FakePage(url=f"{SITE}/items", title="Items", text="No items")
    browser = FakeBrowser({"items": items, "gone": gone}, "items")
    script = {"steps": [step("Delete every item", {"type": "click", "target": {"role": "button", "name": "Delete all items"}},
                             {"text_present": "No items"})]}
    steps: list[dict[str, Any]] = []
    summary = run(browser, "Delete all my items", script, policy={"destructive": "ask"}, steps=steps)
    assert (summary.success, summary.outcome) == (False, "declined")
    assert [s["verdict"] for s in steps] == ["declined"] and "looks destructive" in steps[0]["reason"]
    assert browser.acted == [], "the declined click was never sent"
    assert browser.state == "items"


def test_an_action_sent_again_after_its_first_send_changed_the_page_is_not_sent():
    # The first click put one mug in the basket; the step's check wants two, so it fails, and each
    # new plan's same click would add another: the guard refuses it before it is sent.
    add = {"ref": 1, "role": "button", "name": "Add to basket"}
    shop = FakePage(url=f"{SITE}/mug", title="Mug", text="Basket: 0 items", clicks={1: "one"}, elements=[add])
    one = FakePage(url=f"{SITE}/mug", title="Mug", text="Basket: 1 item", clicks={1: "two"}, elements=[add])
    two = FakePage(url=f"{SITE}/mug", title="Mug", text="Basket: 2 items", elements=[add])
    browser = FakeBrowser({"shop": shop, "one": one, "two": two}, "shop")
    add_mug = step("Add the mug to the basket", {"type": "click", "target": {"role": "button", "name": "Add to basket"}},
                   {"text_present": "Basket: 2 items"})
    steps: list[dict[str, Any]] = []
    summary = run(browser, "Put a mug in the basket", {"steps": [add_mug], "replan": {"steps": [add_mug]}}, steps=steps)
    assert browser.acted == [{"type": "click", "ref": 1}], "the click was sent once"
    assert browser.state == "one"
    assert (summary.success, summary.outcome) == (False, "budget_replans")
    assert [s["verdict"] for s in steps] == ["failed", "failed", "failed"]
    assert all("already done" in s["reason"] for s in steps[1:])


def test_a_replayed_sign_in_is_proven_by_its_recorded_checks():
    browser = sign_in_site()
    workflow = Workflow(name="sign-in", task="Sign in to Ledger as ada", start_url=f"{SITE}/login", steps=[
        WorkflowStep(intent="Enter the username", action={"type": "fill", "text": "ada"}, target=ElementPlace(**USERNAME),
                     checks=[{"value_equals": {"target": USERNAME, "value": "ada"}}]),
        WorkflowStep(intent="Sign in", action={"type": "click"}, target=ElementPlace(**SIGN_IN), checks=[{"url_contains": "account"}]),
    ], success_criteria=[{"text_present": "Welcome, ada"}])
    options = ReplayOptions(policy=Policy(destructive="allow"), heal=False, save_heals=False)
    summary = run_instantly(Replay(workflow, options, browser, NobodyHome()).run())
    assert (summary.success, summary.outcome) == (True, "done"), summary.reason
    assert browser.acted == [{"type": "fill", "ref": 1, "text": "ada"}, {"type": "click", "ref": 3}]


QUERY = {"role": "textbox", "name": "Question"}
SEARCH = {"role": "button", "name": "Search"}


def help_site(lookup_works: bool) -> FakeBrowser:
    """A help centre's search; with a broken lookup the results page shows nothing of the question
    (only the search box the driver typed it into still holds it)."""
    box = {"ref": 1, **QUERY}
    form = FakePage(url=f"{SITE}/help", title="Help centre", text="How can we help?", clicks={2: "results"},
                    elements=[box, {"ref": 2, **SEARCH}])
    found = "Results for reset password: How to reset your password" if lookup_works else "No results"
    typed = {**box, "value": "reset password"}  # the box keeps what was typed into it
    results = FakePage(url=f"{SITE}/help", title="Help centre", text=found, elements=[typed, {"ref": 2, **SEARCH}])
    return FakeBrowser({"form": form, "results": results}, "form")


def password_site() -> FakeBrowser:
    """The sign-in form with a real password field, whose value the page never gives back."""
    browser = sign_in_site()
    browser.pages["form"].elements[1]["input_type"] = "password"
    return browser


ENTER_ADA = step("Enter the username", {"type": "fill", "target": USERNAME, "text": "ada"},
                 {"value_equals": {"target": USERNAME, "value": "ada"}})
ENTER_PASSWORD = step("Enter the password", {"type": "fill", "target": PASSWORD, "text": "lovelace"},
                      {"value_equals": {"target": PASSWORD, "value": "lovelace"}})
PRESS_SIGN_IN = step("Sign in", {"type": "click", "target": SIGN_IN}, {"url_contains": "account"})
TYPE_QUERY = step("Type the question", {"type": "fill", "target": QUERY, "text": "reset password"},
                  {"value_equals": {"target": QUERY, "value": "reset password"}})
PRESS_SEARCH = step("Search", {"type": "click", "target": SEARCH}, {"text_present": "reset password"})

#: name -> (the site, the task, the plan's steps, its success criteria, the verdict both must give)
SHARED = {
    "a criterion that held before acting": (sign_in_site, "Fill in the username ada on the Ledger sign-in page", [ENTER_ADA],
                                            [{"title_contains": "Ledger"}], (False, "unproven")),
    "typing-only evidence": (lambda: help_site(False), "Search the help centre for reset password", [TYPE_QUERY, PRESS_SEARCH],
                             [{"text_present": "reset password"}], (False, "unproven")),
    "a search whose results show the question": (lambda: help_site(True), "Search the help centre for reset password",
                                                 [TYPE_QUERY, PRESS_SEARCH], [{"text_present": "reset password"}], (True, "done")),
    "a password check": (password_site, "Sign in to Ledger as ada with the password lovelace", [ENTER_ADA, ENTER_PASSWORD, PRESS_SIGN_IN],
                         [{"text_present": "Welcome, ada"}], (True, "done")),
}


def replay(browser: FakeBrowser, name: str, task: str, steps: list[dict[str, Any]], criteria: list[dict[str, Any]]) -> Any:
    """The plan saved as a workflow (each target as the place a person sees) and replayed against `browser`."""
    workflow = Workflow(name=name, task=task, start_url=browser.page.url, success_criteria=criteria, steps=[
        WorkflowStep(intent=s["intent"], action={k: v for k, v in s["action"].items() if k != "target"},
                     target=ElementPlace(**s["action"]["target"]), checks=s["verify"]) for s in steps])
    options = ReplayOptions(policy=Policy(destructive="allow"), heal=False, save_heals=False)
    return run_instantly(Replay(workflow, options, browser, NobodyHome()).run())


@pytest.mark.parametrize("case", SHARED, ids=list(SHARED))
def test_a_run_and_a_replay_of_the_same_plan_get_the_same_verdict(case: str):
    site, task, steps, criteria, verdict = SHARED[case]
    ran = run(site(), task, {"steps": steps, "success_criteria": criteria})
    replayed = replay(site(), "-".join(case.split()), task, steps, criteria)
    assert ((ran.success, ran.outcome), (replayed.success, replayed.outcome)) == (verdict, verdict), (ran.reason, replayed.reason)
