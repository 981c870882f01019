"""A task's parts, and a first plan that leaves one out: sent back once, naming it."""

from __future__ import annotations

import json

from tests.unit.test_agent_leniency import TextModel
from waymark.host.agent import prompts
from waymark.host.agent.planner import Planner
from waymark.host.agent.task_parts import task_parts, unplanned

WIDGETS_TASK = "Order 3 bouquets with gift wrap, rate the bouquet 4 stars and save the options."
#: The real model's plan for it.
SAVE_ONLY = json.dumps({"steps": [{"intent": "Click the button 'Save options'", "verify": []}]})
WHOLE = json.dumps({"steps": [{"intent": "Increase the quantity of bouquets to 3"}, {"intent": "Turn on gift wrap"},
                              {"intent": "Choose the 4 stars rating"}, {"intent": "Click Save options"}]})


def test_a_task_s_clauses_are_its_parts_as_written():
    assert task_parts(WIDGETS_TASK) == ["Order 3 bouquets with gift wrap", "rate the bouquet 4 stars", "save the options."]
    assert task_parts("Set the display name to Ada L., then save") == ["Set the display name to Ada L.", "then save"]


def test_a_clause_that_says_where_is_not_a_part_and_one_clause_makes_no_parts():
    assert task_parts("In Kanbanish, choose the dark theme and save the settings.") == ["choose the dark theme", "save the settings."]
    assert task_parts("Open the Contact us page of Orbit.") == []


def test_a_part_is_planned_when_a_step_s_intent_shares_a_telling_word_with_it():
    parts = task_parts(WIDGETS_TASK)
    assert unplanned(parts, ["Click the button 'Save options'"]) == ["Order 3 bouquets with gift wrap", "rate the bouquet 4 stars"]
    assert unplanned(parts, ["Increase the quantity to 3", "Pick 4 stars", "Save"]) == []


def test_the_planner_is_shown_the_parts_of_the_task():
    message = prompts.planner_user(WIDGETS_TASK, "PAGE")
    assert "Its parts, each needing at least one step:\n1. Order 3 bouquets with gift wrap\n2. rate the bouquet 4 stars\n3. save the options." in message


def test_a_replan_is_not_shown_the_parts():
    assert "Its parts" not in prompts.planner_user(WIDGETS_TASK, "PAGE", evidence={"failed_step": "x"})


async def test_a_first_plan_that_leaves_parts_out_is_sent_back_once_naming_them():
    model = TextModel([SAVE_ONLY, WHOLE])
    result = await Planner(model).plan(WIDGETS_TASK, "page")
    assert result.attempts == 2 and len(result.plan.steps) == 4
    reminder = model.requests[1].messages[-1].plain_text()
    assert reminder.startswith('That plan has no step for this part of the task: "Order 3 bouquets with gift wrap"; "rate the bouquet 4 stars".')


async def test_a_plan_that_leaves_parts_out_again_is_taken_as_it_comes():
    model = TextModel([SAVE_ONLY, SAVE_ONLY])
    result = await Planner(model).plan(WIDGETS_TASK, "page")
    assert result.attempts == 2 and [s.intent for s in result.plan.steps] == ["Click the button 'Save options'"]


async def test_a_replan_is_not_held_to_every_part():
    model = TextModel([SAVE_ONLY])
    result = await Planner(model).plan(WIDGETS_TASK, "page", evidence={"failed_step": "Turn on gift wrap"})
    assert result.attempts == 1
