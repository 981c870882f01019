"""host.agent.proof.Proof: where the success criteria prove nothing, a plan proves the task only
when every required step of it was proven by a change on the page, one at least by evidence the
run's typing cannot produce; criteria that came to hold only while a plan of optional steps ran
prove nothing without work proven on the way."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.guards import GuardContext
from waymark.host.agent.planner import Plan, PlanStep
from waymark.host.agent.proof import Proof
from waymark.host.agent.step_judge import StepOutcome
from waymark.host.core.snapshot import Snapshot

HOME = Snapshot(url="https://shop.example/", title="Home · Shop", text="")
RESULTS = Snapshot(url="https://shop.example/results?q=shoes", title="Search results · Shop", text="")
PRODUCT = Snapshot(url="https://shop.example/product?id=3", title="Trail Runner 3 · Shop", text="")


async def _no_text() -> str:
    return ""


async def proof_of(*steps: PlanStep) -> Proof:
    proof = Proof(GuardContext(task="t", start=HOME), _no_text, lambda: None, lambda *a, **k: None,  # type: ignore[arg-type]
                  lambda record, found: None)
    await proof.planned(Plan(steps=list(steps)), HOME, overlaid=False)
    return proof


def step(intent: str, required: bool = True) -> PlanStep:
    return PlanStep(intent=intent, verify=[], required=required)


PROVEN = StepOutcome(verdict="passed", proved_by="check")
TYPED = StepOutcome(verdict="passed", proved_by="typing")


def _steps(proof: Proof, *outcomes: Any) -> Proof:
    for index, outcome in enumerate(outcomes):
        proof.stepped(index, outcome)
    return proof


async def test_a_sign_in_whose_fields_were_typed_and_whose_button_led_on_is_proven():
    proof = _steps(await proof_of(step("Enter the username"), step("Enter the password"), step("Sign in")), TYPED, TYPED, PROVEN)
    assert proof.plan_proven()


async def test_a_message_typed_and_never_sent_is_not_proven_by_its_typing():
    proof = _steps(await proof_of(step("Type the message"), step("Send", required=False)), TYPED)
    assert not proof.plan_proven()


async def test_a_plan_with_a_required_step_that_acted_unproven_is_not_proven():
    # MiniWoB++ click-checkboxes: three boxes checked as asked, Submit clicked with nothing on the page to show it.
    proof = _steps(await proof_of(step("Select A"), step("Select B"), step("click Submit")),
                   PROVEN, PROVEN, StepOutcome(verdict="unproven"))
    assert not proof.plan_proven()


async def test_a_done_answered_before_the_plans_last_required_step_leaves_the_plan_unproven():
    proof = _steps(await proof_of(step("Select A"), step("click Submit")), PROVEN, StepOutcome(verdict="done", success=True))
    assert not proof.plan_proven()


async def test_a_new_plan_starts_unproven():
    proof = _steps(await proof_of(step("Select A")), PROVEN)
    await proof.planned(Plan(steps=[step("Save")]), HOME, overlaid=False)
    assert not proof.plan_proven()


async def test_a_plan_with_no_steps_proves_nothing():
    assert not (await proof_of()).plan_proven()


SHOE_PAGE = [{"title_contains": "Trail Runner 3"}]


async def _after_optional_replan(made_on: Snapshot, overlaid: bool = False) -> Proof:
    """The shop run: a first plan named the product page's title and its search step failed; the
    replan, made on `made_on`, gave one optional step, which passed with no checks."""
    proof = await proof_of(step("Find the shoes"), step("Add them to the cart"))
    await proof.named(SHOE_PAGE, HOME)
    await proof.planned(Plan(steps=[step("Search again", required=False)]), made_on, overlaid)
    proof.stepped(0, StepOutcome(verdict="passed"))
    return proof


async def test_criteria_that_came_to_hold_while_a_plan_of_optional_steps_ran_prove_nothing():
    proof = await _after_optional_replan(RESULTS)
    assert await proof.conclude(PRODUCT, "every step passed its checks", steps_verified=0, steps_unproven=0) == (
        False, "unproven", "nothing proves the task was done: the success criteria came to hold only while the last plan ran, "
                           "and every step of it was optional, one the task can succeed without")


async def test_criteria_that_held_when_the_plan_of_optional_steps_was_made_still_prove_the_task():
    proof = await _after_optional_replan(PRODUCT)
    assert await proof.conclude(PRODUCT, "every step passed its checks", steps_verified=0, steps_unproven=0) == (
        True, "done", "every step passed its checks")


async def test_criteria_that_came_to_hold_under_optional_steps_count_beside_a_step_verified_on_the_way():
    proof = await _after_optional_replan(RESULTS)
    assert (await proof.conclude(PRODUCT, "every step passed its checks", steps_verified=1, steps_unproven=0))[:2] == (True, "done")


async def test_a_plan_of_optional_steps_made_while_an_overlay_hid_part_of_the_page_notes_nothing():
    proof = await _after_optional_replan(RESULTS, overlaid=True)
    assert proof.held_at_optional_plan is None
