"""host.agent.proof.Proof: where the success criteria prove nothing, a plan proves the task only
when every required step of it was proven by a change on the page, one at least by evidence the
run's typing cannot produce; criteria that came to hold only while a plan of optional steps ran
prove nothing without work proven on the way; criteria read what the page holds, an overlay's
covered elements included."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.attempt import StepOutcome
from waymark.host.agent.planner import Plan, PlanStep
from waymark.host.agent.proof import Proof
from waymark.host.agent.run_state import RunState
from waymark.host.agent.verifier import key
from waymark.host.core.snapshot import Snapshot, SnapshotElement

HOME = Snapshot(url="https://shop.example/", title="Home · Shop", text="")
RESULTS = Snapshot(url="https://shop.example/results?q=shoes", title="Search results · Shop", text="")
PRODUCT = Snapshot(url="https://shop.example/product?id=3", title="Trail Runner 3 · Shop", text="")


async def _no_text() -> str:
    return ""


def _read_uncovered(page: Snapshot | None) -> Any:
    """A source of `page`: the page a covered snapshot stands for, read with every element."""
    async def fresh() -> Snapshot | None:
        return page
    return fresh


async def proof_of(*steps: PlanStep, start: Snapshot = HOME, uncovered: Snapshot | None = None) -> Proof:
    state = RunState("t")
    state.began(start, "")
    proof = Proof(state, _no_text, _read_uncovered(uncovered), lambda *a, **k: None,
                  lambda record, found: None)
    await proof.began(start)
    await proof.planned(Plan(steps=list(steps)), start)
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
    await proof.planned(Plan(steps=[step("Save")]), HOME)
    assert not proof.plan_proven()


async def test_a_plan_with_no_steps_proves_nothing():
    assert not (await proof_of()).plan_proven()


SHOE_PAGE = [{"title_contains": "Trail Runner 3"}]
CART_LINK = SnapshotElement(ref=1, role="link", name="Cart (1)")


def keys(criteria: list[dict[str, Any]]) -> set[str]:
    return {key(c) for c in criteria}


async def _after_optional_replan(made_on: Snapshot, uncovered: Snapshot | None = None) -> Proof:
    """The shop run: a first plan named the product page's title and its search step failed; the
    replan, made on `made_on`, gave one optional step, which passed with no checks."""
    proof = await proof_of(step("Find the shoes"), step("Add them to the cart"), uncovered=uncovered)
    await proof.named(SHOE_PAGE, HOME)
    await proof.planned(Plan(steps=[step("Search again", required=False)]), made_on)
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


async def test_a_criterion_an_overlay_covered_when_the_plan_of_optional_steps_was_made_held_there():
    # Sites shop-add-to-cart: Add to cart clicked, the upsell drawer opened over the page and
    # covered the cart link; the replan of one optional step (close the drawer) was made then.
    cart = [{"exists": {"role": "link", "name": "Cart (1)"}}]
    product = PRODUCT.model_copy(update={"elements": [CART_LINK]})
    proof = await proof_of(step("Add to cart"), uncovered=product)
    await proof.named(cart, HOME)
    await proof.planned(Plan(steps=[step("Close the offer", required=False)]), PRODUCT.model_copy(update={"stats": {"occluded": 3}}))
    assert proof.held_at_optional_plan == keys(cart)


CONFIRMED = [{"value_equals": {"target": {"name": "Name"}, "value": "Ada"}}]
FILLED = Snapshot(url="https://forms.example/", title="Form", text="", elements=[SnapshotElement(ref=2, role="textbox", name="Name", value="Ada")])
#: MiniWoB++ at an episode's end: its START cover over the whole task, the form answered beneath.
COVERED = Snapshot(url="https://forms.example/", title="Form", text="", stats={"occluded": 2},
                   elements=[SnapshotElement(ref=9, role="button", name="START")])
EMPTY = Snapshot(url="https://forms.example/", title="Form", text="", elements=[SnapshotElement(ref=2, role="textbox", name="Name")])


async def test_criteria_an_overlay_covers_on_the_final_page_still_prove_the_task():
    proof = await proof_of(step("Type Ada"), step("Submit"), start=EMPTY, uncovered=FILLED)
    await proof.named(CONFIRMED, EMPTY)
    assert (await proof.conclude(COVERED, "every step passed its checks", steps_verified=2, steps_unproven=0))[:2] == (True, "done")


async def test_a_criterion_covered_on_the_page_the_run_began_on_held_there_and_proves_nothing():
    # A cookie wall over a form its page had filled in already: lifting the wall is not the task.
    proof = await proof_of(step("Type Ada"), start=COVERED, uncovered=FILLED)
    await proof.named(CONFIRMED, COVERED)
    assert proof.held_on_start_page == keys(CONFIRMED)
    assert (await proof.unmet(COVERED)) == ""


async def test_an_uncovered_page_is_read_as_it_was_given():
    proof = await proof_of(step("Type Ada"), start=EMPTY, uncovered=COVERED)
    await proof.named(CONFIRMED, EMPTY)
    assert (await proof.unmet(FILLED)) == ""
