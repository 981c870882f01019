"""host.agent.proof.Proof.plan_proven: where the success criteria prove nothing, a plan proves the
task only when every required step of it was proven by a change on the page, one at least by
evidence the run's typing cannot produce."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.guards import GuardContext
from waymark.host.agent.planner import Plan, PlanStep
from waymark.host.agent.proof import Proof
from waymark.host.agent.step_judge import StepOutcome


async def _no_text() -> str:
    return ""


def proof_of(*steps: PlanStep) -> Proof:
    proof = Proof(GuardContext(task="t"), _no_text, lambda: None, lambda *a, **k: None, lambda record, found: None)  # type: ignore[arg-type]
    proof.planned(Plan(steps=list(steps)))
    return proof


def step(intent: str, required: bool = True) -> PlanStep:
    return PlanStep(intent=intent, verify=[], required=required)


PROVEN = StepOutcome(verdict="passed", proved_by="check")
TYPED = StepOutcome(verdict="passed", proved_by="typing")


def _steps(proof: Proof, *outcomes: Any) -> Proof:
    for index, outcome in enumerate(outcomes):
        proof.stepped(index, outcome)
    return proof


def test_a_sign_in_whose_fields_were_typed_and_whose_button_led_on_is_proven():
    proof = _steps(proof_of(step("Enter the username"), step("Enter the password"), step("Sign in")), TYPED, TYPED, PROVEN)
    assert proof.plan_proven()


def test_a_message_typed_and_never_sent_is_not_proven_by_its_typing():
    proof = _steps(proof_of(step("Type the message"), step("Send", required=False)), TYPED)
    assert not proof.plan_proven()


def test_a_plan_with_a_required_step_that_acted_unproven_is_not_proven():
    # MiniWoB++ click-checkboxes: three boxes checked as asked, Submit clicked with nothing on the page to show it.
    proof = _steps(proof_of(step("Select A"), step("Select B"), step("click Submit")),
                   PROVEN, PROVEN, StepOutcome(verdict="unproven"))
    assert not proof.plan_proven()


def test_a_done_answered_before_the_plans_last_required_step_leaves_the_plan_unproven():
    proof = _steps(proof_of(step("Select A"), step("click Submit")), PROVEN, StepOutcome(verdict="done", success=True))
    assert not proof.plan_proven()


def test_a_new_plan_starts_unproven():
    proof = _steps(proof_of(step("Select A")), PROVEN)
    proof.planned(Plan(steps=[step("Save")]))
    assert not proof.plan_proven()


def test_a_plan_with_no_steps_proves_nothing():
    assert not proof_of().plan_proven()
