"""A task's parts, as the planner is shown them."""

from __future__ import annotations

from waymark.host.agent import prompts
from waymark.host.agent.task_parts import task_parts

WIDGETS_TASK = "Order 3 bouquets with gift wrap, rate the bouquet 4 stars and save the options."


def test_a_task_s_clauses_are_its_parts_as_written():
    assert task_parts(WIDGETS_TASK) == ["Order 3 bouquets with gift wrap", "rate the bouquet 4 stars", "save the options."]
    assert task_parts("Set the display name to Ada L., then save") == ["Set the display name to Ada L.", "then save"]


def test_a_clause_that_says_where_is_not_a_part_and_one_clause_makes_no_parts():
    assert task_parts("In Kanbanish, choose the dark theme and save the settings.") == ["choose the dark theme", "save the settings."]
    assert task_parts("Open the Contact us page of Orbit.") == []


def test_the_planner_is_shown_the_parts_of_the_task():
    message = prompts.planner_user(WIDGETS_TASK, "PAGE")
    assert "Its parts, each needing at least one step:\n1. Order 3 bouquets with gift wrap\n2. rate the bouquet 4 stars\n3. save the options." in message


def test_a_replan_is_not_shown_the_parts():
    assert "Its parts" not in prompts.planner_user(WIDGETS_TASK, "PAGE", evidence={"failed_step": "x"})
