"""A task's parts, as the planner is shown them."""

from __future__ import annotations

from waymark.host.agent import prompts
from waymark.host.agent.task_parts import parts_unnamed, task_parts

WIDGETS_TASK = "Order 3 bouquets with gift wrap, rate the bouquet 4 stars and save the options."
SETTINGS_TASK = "In Kanbanish, set the display name to Ada L., choose the dark theme, turn on the daily digest and save the settings."


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


def test_the_parts_no_criterion_speaks_of_are_named():
    # The real model's settings run: its only criterion was the settings page's title.
    assert parts_unnamed(SETTINGS_TASK, [{"title_contains": "Settings"}]) == [
        "set the display name to Ada L.", "choose the dark theme", "turn on the daily digest"]


def test_criteria_speak_of_a_part_through_their_texts_names_and_values_not_their_kinds():
    criteria = [{"value_equals": {"target": {"role": "textbox", "name": "Display name"}, "value": "Ada L."}},
                {"checked": {"target": {"role": "switch", "name": "Daily digest"}, "value": True}},
                {"url_contains": "theme=dark&saved=1"}]
    assert parts_unnamed(SETTINGS_TASK, criteria) == []
    assert parts_unnamed(WIDGETS_TASK, [{"title_contains": "Order"}]) == ["rate the bouquet 4 stars", "save the options."]


def test_a_task_of_one_part_has_no_part_left_unnamed():
    assert parts_unnamed("Open the Contact us page of Orbit.", [{"title_contains": "Welcome"}]) == []
