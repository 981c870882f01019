"""One judge and one conclusion (issue 52): the same plan, run by the agent (the scripted provider)
and replayed as a saved workflow, through the real host, extension and Chromium, gets the same
verdict. Each case is one the replay once judged alone and differently: a success criterion that
already held before anything was done, evidence that is only the text the run typed into a search
box (a help search whose lookup is broken), and a password field's check, which only what the run
filled in can answer. Beside them, the same shapes where the task is really done must still pass."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import pytest

from tests.agent_calls import start_run
from waymark.eval.sites.serve import SiteServer
from waymark.host.core.targets import ElementPlace
from waymark.host.workflows import store
from waymark.host.workflows.model import Workflow, WorkflowStep


@dataclass(frozen=True)
class Case:
    """A task, the page it starts on, the plan (each step's action names its element by role and
    name), the task's success criteria, and the verdict both drivers must give."""

    task: str
    page: str
    steps: list[dict[str, Any]]
    verdict: tuple[bool, str]
    criteria: list[dict[str, Any]] = field(default_factory=list)


def _box(role: str, name: str) -> dict[str, str]:
    return {"role": role, "name": name}


USERNAME, PASSWORD, QUERY = _box("textbox", "Username"), _box("textbox", "Password"), _box("searchbox", "Search help")
ENTER_ADA = {"intent": "Enter the username", "action": {"type": "fill", "target": USERNAME, "text": "ada"},
             "verify": [{"value_equals": {"target": USERNAME, "value": "ada"}}]}
ENTER_PASSWORD = {"intent": "Enter the password", "action": {"type": "fill", "target": PASSWORD, "text": "lovelace"},
                  "verify": [{"value_equals": {"target": PASSWORD, "value": "lovelace"}}]}
SIGN_IN = {"intent": "Sign in", "action": {"type": "click", "target": _box("button", "Sign in")},
           "verify": [{"url_contains": "account.html"}]}
TYPE_QUERY = {"intent": "Type the question into the help search", "action": {"type": "fill", "target": QUERY, "text": "reset password"},
              "verify": [{"value_equals": {"target": QUERY, "value": "reset password"}}]}
SEARCH = {"intent": "Search", "action": {"type": "click", "target": _box("button", "Search")}, "verify": [{"text_present": "reset password"}]}

CASES = {
    # The site's name in the title held on the sign-in page before anything was done: it proves
    # nothing, and the username the run typed proves only the typing.
    "a criterion that held before acting": Case(
        "Fill in the username ada on the Ledger sign-in page", "login/index.html", [ENTER_ADA], (False, "unproven"),
        [{"title_contains": "Ledger"}]),
    # The lookup is broken: the question shows only in the search box the run typed it into.
    "typing-only evidence": Case(
        "Search the help centre for reset password", "help_search.html?lookup=broken", [TYPE_QUERY, SEARCH], (False, "unproven"),
        [{"text_present": "reset password"}]),
    "a search whose results show the question": Case(
        "Search the help centre for reset password", "help_search.html", [TYPE_QUERY, SEARCH], (True, "done"),
        [{"text_present": "reset password"}]),
    # The page never gives the password back: what the driver filled in answers the step's check.
    "a password check": Case(
        "Sign in to Ledger as ada with the password lovelace", "login/index.html", [ENTER_ADA, ENTER_PASSWORD, SIGN_IN], (True, "done"),
        [{"text_present": "Welcome, ada"}]),
}


@pytest.fixture(scope="module")
def pages(site_url: str) -> Iterator[dict[str, str]]:
    """Where each case's page is served: the Ledger site of the eval suites, the agent fixtures."""
    with SiteServer() as sites:
        yield {"login/index.html": f"{sites.site}/login/index.html", "help_search.html": f"{site_url}/agent/help_search.html",
               "help_search.html?lookup=broken": f"{site_url}/agent/help_search.html?lookup=broken"}


def _workflow(name: str, case: Case, start_url: str) -> Workflow:
    """The case's plan saved as a workflow: each action without its target, the target as the place a person sees."""
    steps = [WorkflowStep(intent=s["intent"], action={k: v for k, v in s["action"].items() if k != "target"},
                          target=ElementPlace(**s["action"]["target"]), checks=s["verify"]) for s in case.steps]
    return Workflow(name=name, task=case.task, start_url=start_url, steps=steps, success_criteria=case.criteria)


async def _verdict(sw: Any, method: str, params: dict[str, Any]) -> tuple[bool, str]:
    summary = await (await start_run(sw, {**params, "screenshots": False, "policy": {"destructive": "allow"}}, method)).summary()
    return summary["success"], summary["outcome"]


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
async def test_a_run_and_a_replay_of_the_same_plan_get_the_same_verdict(sw, pages, case):
    shape = CASES[case]
    start_url = pages[shape.page]
    run = await _verdict(sw, "agent.run", {"task": shape.task, "start_url": start_url,
                                           "script": {"steps": shape.steps, "success_criteria": shape.criteria}})
    name = "agree-" + "-".join(case.replace("-", " ").split())
    store.write(_workflow(name, shape, start_url), replace=True)
    replay = await _verdict(sw, "workflow.run", {"name": name, "heal": False})
    assert (run, replay) == (shape.verdict, shape.verdict)
