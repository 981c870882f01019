"""Computer-use answers (Gemini's computer-use functions, Anthropic's computer tool) as Waymark's
actions, and typing without a ref given the ref it means."""

from __future__ import annotations

import base64

import pytest

from tests.conftest import screenshot_jpeg
from waymark.host.agent.grammar import DecisionRejected
from waymark.host.agent.parsing import ParseFailure, decision_from_tool_call
from waymark.host.agent.screen import dispatchable
from waymark.host.core.snapshot import Snapshot
from waymark.providers import errors
from waymark.providers.computer_use import (
    GeminiScreen,
    ScreenshotError,
    anthropic_action,
    image_size,
    openai_action,
    waymark_key,
)
from waymark.providers.spec import ModelSpec, SpecError

GEMINI = GeminiScreen(1280, 800)


def test_the_size_of_a_real_jpeg_screenshot_is_read_from_its_header():
    assert image_size(screenshot_jpeg(1280, 800)) == (1280, 800)


def test_an_image_whose_size_cannot_be_read_is_a_bad_request():
    with pytest.raises(errors.BadRequest):
        image_size(base64.b64encode(b"\xff\xd8\xff\xe0no frame here\xff\xd9").decode())
    assert issubclass(ScreenshotError, errors.BadRequest)


def test_gemini_coordinates_0_to_999_become_the_screenshots_pixels():
    assert GEMINI.action("click_at", {"x": 500, "y": 250}) == {"action": "click_at", "x": 640, "y": 200}
    assert GEMINI.action("click_at", {"x": 999, "y": 999}) == {"action": "click_at", "x": 1278, "y": 799}


def test_gemini_drag_and_drop_is_drag_at_to_the_destination():
    answer = GEMINI.action("drag_and_drop", {"x": 100, "y": 100, "destination_x": 500, "destination_y": 500})
    assert answer == {"action": "drag_at", "x": 128, "y": 80, "to_x": 640, "to_y": 400}


def test_gemini_hover_and_double_click_are_move_to_and_double_click_at():
    assert GEMINI.action("hover_at", {"x": 0, "y": 0}) == {"action": "move_to", "x": 0, "y": 0}
    assert GEMINI.action("double_click", {"x": 500, "y": 500})["action"] == "double_click_at"


def test_gemini_scroll_at_scales_its_magnitude_along_the_scrolled_axis_in_screenshot_pixels():
    down = GEMINI.action("scroll_at", {"x": 500, "y": 500, "direction": "down", "magnitude": 500})
    right = GEMINI.action("scroll_at", {"x": 500, "y": 500, "direction": "right", "magnitude": 500})
    assert (down["amount_px"], right["amount_px"]) == (400, 640)
    assert down == {"action": "scroll_at", "x": 640, "y": 400, "direction": "down", "amount_px": 400}


def test_gemini_scroll_document_scrolls_the_page():
    assert GEMINI.action("scroll_document", {"direction": "up"}) == {"action": "scroll", "direction": "up"}


def test_gemini_type_text_at_fills_the_field_at_the_point_unless_told_not_to_clear():
    assert GEMINI.action("type_text_at", {"x": 500, "y": 500, "text": "shoes"}) == {"action": "fill", "text": "shoes", "x": 640, "y": 400}
    kept = GEMINI.action("type_text_at", {"x": 500, "y": 500, "text": "shoes", "clear_before_typing": False, "press_enter": True})
    assert kept == {"action": "type", "text": "shoes", "x": 640, "y": 400, "press_enter": True}


def test_gemini_key_combinations_are_presses_in_waymarks_key_names():
    assert GEMINI.action("key_combination", {"keys": "control+a"}) == {"action": "press", "key": "Control+a"}
    assert GEMINI.action("hotkey", {"keys": ["Control", "Shift", "Tab"]}) == {"action": "press", "key": "Control+Shift+Tab"}


def test_gemini_navigation_and_waits_are_waymarks():
    assert GEMINI.action("navigate", {"url": "https://example.com"}) == {"action": "navigate", "url": "https://example.com"}
    assert GEMINI.action("go_back", {}) == {"action": "back"}
    assert GEMINI.action("go_forward", {}) == {"action": "forward"}
    assert GEMINI.action("wait_5_seconds", {}) == {"action": "wait", "ms": 5000}


def test_a_gemini_action_its_safety_check_wants_confirmed_becomes_a_question_for_the_user():
    answer = GEMINI.action("click_at", {"x": 1, "y": 1, "safety_decision": {"decision": "require_confirmation", "explanation": "a cookie banner"}})
    assert answer["action"] == "ask_user" and "a cookie banner" in answer["question"]


def test_a_safety_decision_that_allows_the_action_is_not_a_field_of_it():
    answer = GEMINI.action("click_at", {"x": 500, "y": 500, "safety_decision": {"decision": "regular"}})
    assert answer == {"action": "click_at", "x": 640, "y": 400}


def test_an_action_waymark_cannot_do_is_refused_by_the_parser_with_its_name():
    with pytest.raises(ParseFailure, match="triple_click"):
        decision_from_tool_call("act", GEMINI.action("triple_click", {"x": 1, "y": 1}))
    with pytest.raises(ParseFailure, match="middle_click"):
        decision_from_tool_call("act", anthropic_action({"action": "middle_click", "coordinate": [1, 1]}))


def test_anthropic_coordinates_are_already_the_screenshots_pixels():
    assert anthropic_action({"action": "left_click", "coordinate": [640, 400]}) == {"action": "click_at", "x": 640, "y": 400}
    assert anthropic_action({"action": "double_click", "coordinate": [5, 6]}) == {"action": "double_click_at", "x": 5, "y": 6}
    assert anthropic_action({"action": "mouse_move", "coordinate": [5, 6]}) == {"action": "move_to", "x": 5, "y": 6}


def test_anthropic_left_click_drag_goes_from_its_start_coordinate():
    answer = anthropic_action({"action": "left_click_drag", "start_coordinate": [10, 20], "coordinate": [300, 40]})
    assert answer == {"action": "drag_at", "x": 10, "y": 20, "to_x": 300, "to_y": 40}


def test_anthropic_scroll_notches_become_pixels():
    answer = anthropic_action({"action": "scroll", "coordinate": [10, 20], "scroll_direction": "down", "scroll_amount": 3})
    assert answer == {"action": "scroll_at", "x": 10, "y": 20, "direction": "down", "amount": 300}


def test_anthropic_xdotool_keys_are_pressed_by_waymarks_names():
    assert anthropic_action({"action": "key", "text": "ctrl+Return"}) == {"action": "press", "key": "Control+Enter"}
    assert waymark_key("Page_Down") == "PageDown" and waymark_key("super+l") == "Meta+l" and waymark_key("BackSpace") == "Backspace"


def test_anthropic_type_types_at_the_focused_element_and_a_screenshot_waits_for_the_next_turn():
    assert anthropic_action({"action": "type", "text": "hello"}) == {"action": "type", "text": "hello"}
    assert anthropic_action({"action": "screenshot"}) == {"action": "wait", "ms": 0}
    assert anthropic_action({"action": "wait", "duration": 2}) == {"action": "wait", "ms": 2000}


def _page(focused_ref: int | None = None) -> Snapshot:
    elements = [
        {"ref": 4, "role": "textbox", "name": "Search", "bbox": [100, 50, 300, 30], "in_viewport": True},
        {"ref": 7, "role": "textbox", "name": "Email", "bbox": [100, 200, 300, 30], "in_viewport": True},
        {"ref": 9, "role": "button", "name": "Go", "bbox": [420, 50, 60, 30], "in_viewport": True},
    ]
    for e in elements:
        if e["ref"] == focused_ref:
            e["states"] = {"focused": True}
    return Snapshot.model_validate({"url": "http://127.0.0.1/", "viewport": {"width": 1280, "height": 800, "dpr": 2}, "elements": elements})


def test_typing_at_a_point_goes_to_the_field_there_at_device_pixel_ratio_2():
    notes: list[str] = []
    # (500, 430) in a 2560-pixel-wide screenshot is (250, 215) in CSS pixels: the Email field.
    answer = dispatchable({"action": "fill", "text": "a@b.c", "x": 500, "y": 430}, _page(), 2560, notes)
    assert answer == {"action": "fill", "text": "a@b.c", "ref": 7}


def test_typing_without_a_point_goes_to_the_focused_element_as_press_does():
    answer = dispatchable({"action": "type", "text": "hello"}, _page(focused_ref=4), 2560, [])
    assert answer == {"action": "type", "text": "hello", "ref": 4}


def test_typing_with_no_field_at_the_point_and_none_focused_is_refused_with_what_to_do():
    with pytest.raises(DecisionRejected, match="click the field first") as refused:
        dispatchable({"action": "type", "text": "hello", "x": 900, "y": 100}, _page(), 2560, [])
    assert refused.value.kind == "no_field"


def test_press_enter_after_typing_is_left_to_the_next_turn_and_noted():
    notes: list[str] = []
    answer = dispatchable({"action": "type", "text": "shoes", "press_enter": True}, _page(focused_ref=4), 2560, notes)
    assert "press_enter" not in answer and any("Enter" in n for n in notes)


def test_a_typing_answer_with_a_ref_and_other_actions_pass_unchanged():
    assert dispatchable({"action": "type", "text": "x", "ref": 7}, _page(), 2560, []) == {"action": "type", "text": "x", "ref": 7}
    assert dispatchable({"action": "click_at", "x": 1, "y": 2}, _page(), 2560, []) == {"action": "click_at", "x": 1, "y": 2}


def test_computer_use_is_a_model_option_that_round_trips_through_the_label():
    spec = ModelSpec.parse("gemini:gemini-2.5-computer-use-preview-10-2025?computer_use=true")
    assert spec.options == {"computer_use": True}
    assert ModelSpec.parse(spec.label()) == spec
    anthropic = ModelSpec.parse("anthropic:claude-opus-4-5?computer_use=on&computer_tool=computer_20251124")
    assert anthropic.options == {"computer_use": True, "computer_tool": "computer_20251124"}


def test_computer_use_on_a_provider_without_that_mode_is_refused_by_name():
    with pytest.raises(SpecError, match="computer_use is an option of gemini, anthropic and openai_compat preset openai, not of openai_compat preset ollama"):
        ModelSpec.parse("ollama:qwen2.5:1.5b?computer_use=true")
    with pytest.raises(SpecError, match="computer_tool"):
        ModelSpec.parse("gemini:gemini-2.5-flash?computer_tool=computer_20250124")
    assert ModelSpec.parse("openai_compat:computer-use-preview?computer_use=true").options == {"computer_use": True}


def test_the_snapshots_own_screenshot_scale_places_the_point():
    page = _page().model_copy(update={"screenshot_scale": 1.0})
    # At scale 1, (250, 215) is the Email field itself.
    assert dispatchable({"action": "type", "text": "x", "x": 250, "y": 215}, page, 2560, [])["ref"] == 7


def test_a_scroll_distance_in_screenshot_pixels_becomes_css_pixels():
    answer = dispatchable({"action": "scroll_at", "x": 10, "y": 10, "direction": "down", "amount_px": 800}, _page(), 2560, [])
    assert answer == {"action": "scroll_at", "x": 10, "y": 10, "direction": "down", "amount": 400}


def test_a_right_click_at_a_point_goes_to_the_element_there():
    notes: list[str] = []
    answer = dispatchable(anthropic_action({"action": "right_click", "coordinate": [900, 130]}), _page(), 2560, notes)
    assert answer == {"action": "right_click", "ref": 9}
    with pytest.raises(DecisionRejected, match="nothing Waymark can act on"):
        dispatchable({"action": "right_click", "x": 2000, "y": 1500}, _page(), 2560, [])


def test_every_mapped_answer_fits_the_grammar_once_made_dispatchable():
    from waymark.host.agent.grammar import validate_decision

    page = _page(focused_ref=4)
    answers = [GEMINI.action(name, args) for name, args in [
        ("click_at", {"x": 10, "y": 10}), ("double_click", {"x": 10, "y": 10}), ("hover_at", {"x": 1, "y": 1}),
        ("drag_and_drop", {"x": 1, "y": 1, "destination_x": 9, "destination_y": 9}),
        ("scroll_at", {"x": 5, "y": 5, "direction": "left"}), ("scroll_document", {"direction": "down"}),
        ("type_text_at", {"x": 200, "y": 80, "text": "a"}), ("key_combination", {"keys": "Enter"}),
        ("navigate", {"url": "https://example.com"}), ("go_back", {}), ("wait_5_seconds", {}), ("open_web_browser", {}),
    ]] + [anthropic_action(a) for a in [
        {"action": "left_click", "coordinate": [3, 4]}, {"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]},
        {"action": "scroll", "coordinate": [3, 4], "scroll_direction": "up", "scroll_amount": 2}, {"action": "key", "text": "Escape"},
        {"action": "type", "text": "b"}, {"action": "wait", "duration": 1}, {"action": "screenshot"},
    ]]
    for answer in answers:
        decision = decision_from_tool_call("act", dispatchable(answer, page, 2560, []))
        assert validate_decision(decision, page).action.type == decision["action"]["type"]


def test_openai_computer_actions_are_waymarks_in_screenshot_pixels():
    assert openai_action({"type": "click", "button": "left", "x": 3, "y": 4}) == {"action": "click_at", "x": 3, "y": 4}
    assert openai_action({"type": "click", "button": "right", "x": 3, "y": 4}) == {"action": "right_click", "x": 3, "y": 4}
    assert openai_action({"type": "double_click", "x": 3, "y": 4}) == {"action": "double_click_at", "x": 3, "y": 4}
    assert openai_action({"type": "move", "x": 3, "y": 4}) == {"action": "move_to", "x": 3, "y": 4}
    assert openai_action({"type": "keypress", "keys": ["CTRL", "A"]}) == {"action": "press", "key": "Control+A"}
    assert openai_action({"type": "type", "text": "hi"}) == {"action": "type", "text": "hi"}
    assert openai_action({"type": "wait"}) == {"action": "wait", "ms": 2000}


def test_an_openai_drag_goes_from_the_first_point_of_its_path_to_the_last():
    path = [{"x": 1, "y": 2}, {"x": 5, "y": 5}, {"x": 9, "y": 8}]
    assert openai_action({"type": "drag", "path": path}) == {"action": "drag_at", "x": 1, "y": 2, "to_x": 9, "to_y": 8}


def test_an_openai_scroll_goes_the_way_of_its_larger_distance():
    answer = openai_action({"type": "scroll", "x": 10, "y": 20, "scroll_x": 50, "scroll_y": 300})
    assert answer == {"action": "scroll_at", "x": 10, "y": 20, "direction": "down", "amount_px": 300}
    assert openai_action({"type": "scroll", "x": 0, "y": 0, "scroll_x": -400, "scroll_y": 10})["direction"] == "left"


def test_a_middle_click_is_refused_by_the_parser_with_its_name():
    with pytest.raises(ParseFailure, match="wheel_click"):
        decision_from_tool_call("act", openai_action({"type": "click", "button": "wheel", "x": 1, "y": 1}))
