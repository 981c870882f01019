"""The grammar of drag, right_click and the coordinate actions: bad combinations are refused with
a sentence a model can act on, and the coordinate actions are offered only in vision mode."""

import pytest
from pydantic import ValidationError

from waymark.host.agent.action_lines import action_line, landed_line
from waymark.host.agent.confirm import destructive_reason
from waymark.host.agent.grammar import (
    DecisionRejected,
    executor_tools,
    validate_decision,
)
from waymark.host.core.actions import (
    COORDINATE_ACTIONS,
    SINGLE_TAB_ACTIONS,
    offered_actions,
    parse_action,
)
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.coercions import coerce_decision
from waymark.host.core.snapshot import Snapshot

SNAPSHOT = Snapshot.model_validate({
    "url": "https://board.test/", "screenshot_scale": 2.0,
    "elements": [
        {"ref": 5, "role": "button", "name": "Write report", "bbox": [10, 10, 100, 40], "in_viewport": True},
        {"ref": 9, "role": "dropzone", "name": "Done column", "bbox": [200, 10, 180, 90], "in_viewport": True},
        {"ref": 12, "role": "button", "name": "Delete board", "bbox": [600, 340, 100, 50], "in_viewport": True},
    ],
})


def test_drag_with_both_a_drop_target_and_an_offset_is_refused_naming_the_two_forms():
    with pytest.raises(ValidationError, match="to_ref .* or dx/dy .*not both"):
        parse_action({"type": "drag", "ref": 5, "to_ref": 9, "dx": 40})


def test_drag_without_a_destination_is_refused_with_an_example():
    with pytest.raises(ValidationError, match=r'needs where to drop: to_ref .* or dx/dy .*"dx": 120'):
        parse_action({"type": "drag", "ref": 5})


def test_drag_along_one_axis_is_a_drag_by_offset():
    action = parse_action({"type": "drag", "ref": 5, "dy": -30})
    assert (action.dx, action.dy, action.to_ref) == (None, -30, None)


def test_the_executor_refuses_a_drag_with_both_forms_with_the_grammar_s_sentence():
    with pytest.raises(DecisionRejected) as refused:
        validate_decision({"action": {"type": "drag", "ref": 5, "to_ref": 9, "dx": 10, "dy": 0}}, SNAPSHOT)
    assert refused.value.kind == "shape"
    assert "not both" in refused.value.message


def test_a_drop_target_the_snapshot_lacks_is_an_unknown_ref():
    with pytest.raises(DecisionRejected) as refused:
        validate_decision({"action": {"type": "drag", "ref": 5, "to_ref": 77}}, SNAPSHOT)
    assert refused.value.kind == "unknown_ref"
    assert "to_ref 77" in refused.value.message


def test_a_point_of_the_screenshot_is_never_negative():
    with pytest.raises(ValidationError):
        parse_action({"type": "click_at", "x": -3, "y": 40})


def test_drag_at_needs_both_points():
    with pytest.raises(ValidationError, match="to_y"):
        parse_action({"type": "drag_at", "x": 1, "y": 2, "to_x": 3})


def test_coordinate_actions_are_offered_only_in_vision_mode():
    assert COORDINATE_ACTIONS == {"click_at", "double_click_at", "move_to", "drag_at", "scroll_at"}
    assert not COORDINATE_ACTIONS & set(SINGLE_TAB_ACTIONS)
    assert COORDINATE_ACTIONS <= set(offered_actions(multi_tab=False, coordinates=True))
    assert {"drag", "right_click"} <= set(SINGLE_TAB_ACTIONS)


def test_the_default_executor_tool_names_no_coordinate_action():
    (tool,) = executor_tools(SINGLE_TAB_ACTIONS)
    assert not COORDINATE_ACTIONS & set(tool.parameters["properties"]["action"]["enum"])
    assert "to_x" not in tool.parameters["properties"]
    assert "click_at" not in tool.description


def test_a_click_at_a_point_over_a_destructive_button_asks_first_at_the_screenshot_s_scale():
    # Screenshot pixel (1300, 730) is CSS pixel (650, 365): inside "Delete board".
    assert destructive_reason(parse_action({"type": "click_at", "x": 1300, "y": 730}), SNAPSHOT)
    assert destructive_reason(parse_action({"type": "click_at", "x": 650, "y": 365}), SNAPSHOT) is None


def test_the_action_line_names_the_drop_target_the_offset_and_the_points():
    assert action_line(parse_action({"type": "drag", "ref": 5, "to_ref": 9}), SNAPSHOT) == 'drag [5] button "Write report" to [9] dropzone "Done column"'
    assert action_line(parse_action({"type": "drag", "ref": 5, "dx": 40, "dy": 0}), SNAPSHOT) == 'drag [5] button "Write report" by (40, 0) px'
    assert action_line(parse_action({"type": "drag_at", "x": 1, "y": 2, "to_x": 30, "to_y": 40.5}), SNAPSHOT) == "drag_at (1, 2) to (30, 40.5)"


def test_the_timeline_says_where_a_pointer_action_landed():
    result = ActionResult.model_validate({"ok": True, "action": "drag", "drop": {"x": 290, "y": 55, "ref": 9, "refs": [9], "element": "<div>"}})
    assert landed_line(result, SNAPSHOT) == ' -> dropped on [9] dropzone "Done column"'
    assert landed_line(ActionResult(ok=True, action="click"), SNAPSHOT) == ""


def test_the_names_models_give_drag_and_right_click_are_read_as_them():
    decision, _ = coerce_decision({"action": {"type": "drag_and_drop", "ref": 5, "to_ref": 9}})
    assert parse_action(decision["action"]).type == "drag"
    decision, _ = coerce_decision({"action": {"type": "context_click", "ref": 12}})
    assert parse_action(decision["action"]).type == "right_click"
