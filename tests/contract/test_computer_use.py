"""Computer-use mode of the providers that have one (Gemini's computer-use tool, Anthropic's
computer tool, OpenAI's computer_use_preview through the Responses API), against the loopback
server speaking their wire protocols: the request offers the computer tool sized to the
screenshot, and coordinate answers come back as the executor's `act` calls in the screenshot's
pixels. Anthropic's tool inputs are built through the SDK's own types for each action
(fake_server.computer_input), OpenAI's whole answers through its Response type; Gemini's
predefined functions are plain function calls, which the SDK types as such."""

from __future__ import annotations

import base64
import json
from typing import Any, Iterator

import pytest

from tests.conftest import screenshot_jpeg
from tests.contract.backends import (
    AnthropicBackend,
    GeminiBackend,
    HTTPBackend,
    OpenAICompatBackend,
)
from tests.contract.fake_server import FakeServer, Reply, computer_input, wire
from waymark.host.agent.executor import Executor
from waymark.host.core.actions import ACT_TOOL
from waymark.host.core.snapshot import Snapshot
from waymark.providers import errors
from waymark.providers.base import (
    Completion,
    CompletionRequest,
    ImagePart,
    LLMProvider,
    Message,
    TextPart,
    Tool,
)
from waymark.providers.streaming import join_deltas

WIDTH, HEIGHT = 1280, 800
ACT = Tool(name=ACT_TOOL, description="Do one browser action.",
           parameters={"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]})

pytestmark = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


@pytest.fixture(params=["gemini", "anthropic", "openai_compat"])
def screen_backend(request: pytest.FixtureRequest, fake_server: FakeServer) -> Iterator[HTTPBackend]:
    """Each provider with a computer-use mode, behind the loopback server."""
    fake_server.unrealistic.clear()
    yield {"gemini": GeminiBackend, "anthropic": AnthropicBackend, "openai_compat": OpenAICompatBackend}[request.param](fake_server)
    assert not fake_server.unrealistic, f"a fake answer no real API would send: {fake_server.unrealistic[0]}"


def screen_request(image: str | None = None, tools: list[Tool] | None = None, screenshot: bool = True) -> CompletionRequest:
    content: list[Any] = [TextPart(text="Add the item to the cart.")]
    if screenshot:
        content.append(ImagePart(data_b64=image or screenshot_jpeg(WIDTH, HEIGHT)))
    return CompletionRequest(messages=[Message.text("system", "You are a careful browser agent."), Message(role="user", content=content)],
                             tools=[ACT] if tools is None else tools, tool_choice="required", timeout=20.0)


async def answer(provider: LLMProvider, request: CompletionRequest, streamed: bool) -> Completion:
    if streamed:
        return join_deltas([d async for d in provider.stream(request)])
    return await provider.complete(request)


def click(backend: HTTPBackend, x: int, y: int) -> tuple[str, dict[str, Any]]:
    """A click at screenshot pixel (x, y), as each API answers it."""
    if backend.name == "gemini":
        return "click_at", {"x": round(x * 1000 / WIDTH), "y": round(y * 1000 / HEIGHT)}
    if backend.name == "openai_compat":
        return "computer_call", {"action": {"type": "click", "button": "left", "x": x, "y": y}}
    return "computer", computer_input("left_click", coordinate=[x, y])


async def test_the_request_offers_the_computer_tool_sized_to_the_screenshot(screen_backend: HTTPBackend, streamed: bool) -> None:
    provider = await screen_backend.make(Reply(tool_calls=[click(screen_backend, 640, 400)]), computer_use=True)
    await answer(provider, screen_request(), streamed)
    seen = screen_backend.server.seen[-1]
    if screen_backend.name == "gemini":
        tools = seen.body["tools"]
        assert tools[0] == {"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}
        assert [f["name"] for f in tools[1]["functionDeclarations"]] == [ACT_TOOL]
        assert "toolConfig" not in seen.body
    elif screen_backend.name == "openai_compat":
        from openai.types.responses import ComputerUsePreviewTool

        assert seen.path.endswith("/responses")
        computer = wire(ComputerUsePreviewTool, seen.body["tools"][0])
        assert computer == {"type": "computer_use_preview", "display_width": WIDTH, "display_height": HEIGHT, "environment": "browser"}
        assert [t.get("name") for t in seen.body["tools"][1:]] == [ACT_TOOL]
        assert seen.body["truncation"] == "auto"
    else:
        from anthropic.types.beta import BetaToolComputerUse20250124

        computer = wire(BetaToolComputerUse20250124, seen.body["tools"][0])
        assert (computer["display_width_px"], computer["display_height_px"]) == (WIDTH, HEIGHT)
        assert seen.headers["anthropic-beta"] == "computer-use-2025-01-24"
        assert [t["name"] for t in seen.body["tools"]] == ["computer", ACT_TOOL]


async def test_a_click_at_screen_coordinates_is_click_at_in_the_screenshots_pixels(screen_backend: HTTPBackend, streamed: bool) -> None:
    provider = await screen_backend.make(Reply(tool_calls=[click(screen_backend, 640, 200)]), computer_use=True)
    result = await answer(provider, screen_request(), streamed)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [(ACT_TOOL, {"action": "click_at", "x": 640, "y": 200})]
    assert result.finish_reason == "tool_calls"


async def test_a_drag_is_drag_at_from_its_start_to_its_end(screen_backend: HTTPBackend, streamed: bool) -> None:
    if screen_backend.name == "gemini":
        call = ("drag_and_drop", {"x": 100, "y": 500, "destination_x": 500, "destination_y": 500})
    elif screen_backend.name == "openai_compat":
        call = ("computer_call", {"action": {"type": "drag", "path": [{"x": 128, "y": 400}, {"x": 300, "y": 420}, {"x": 640, "y": 400}]}})
    else:
        call = ("computer", computer_input("left_click_drag", start_coordinate=[128, 400], coordinate=[640, 400]))
    provider = await screen_backend.make(Reply(tool_calls=[call]), computer_use=True)
    result = await answer(provider, screen_request(), streamed)
    assert result.tool_calls[0].arguments == {"action": "drag_at", "x": 128, "y": 400, "to_x": 640, "to_y": 400}


async def test_a_call_of_the_requests_own_tool_passes_unchanged(screen_backend: HTTPBackend, streamed: bool) -> None:
    done = (ACT_TOOL, {"action": "done", "result": "added", "success": True})
    provider = await screen_backend.make(Reply(tool_calls=[done]), computer_use=True)
    result = await answer(provider, screen_request(), streamed)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [done]


async def test_a_request_without_a_screenshot_gets_no_computer_tool(screen_backend: HTTPBackend, streamed: bool) -> None:
    provider = await screen_backend.make(Reply(text="A plan."), computer_use=True)
    await answer(provider, screen_request(tools=[], screenshot=False), streamed)
    body = screen_backend.server.seen[-1].body
    assert "tools" not in body


async def test_without_the_mode_the_same_answer_is_not_turned_into_an_action(screen_backend: HTTPBackend, streamed: bool) -> None:
    call = click(screen_backend, 640, 200)
    provider = await screen_backend.make(Reply(tool_calls=[call]))
    result = await answer(provider, screen_request(), streamed)
    assert (result.tool_calls[0].name, result.tool_calls[0].arguments) == call
    assert "computer" not in json.dumps(screen_backend.server.seen[-1].body["tools"]).lower()
    assert "anthropic-beta" not in screen_backend.server.seen[-1].headers


async def test_a_screenshot_whose_size_cannot_be_read_is_a_bad_request_sent_nowhere(screen_backend: HTTPBackend, streamed: bool) -> None:
    provider = await screen_backend.make(Reply(text="unused"), computer_use=True)
    with pytest.raises(errors.BadRequest, match="screenshot"):
        await answer(provider, screen_request(image="bm90IGFuIGltYWdl"), streamed)
    assert screen_backend.server.seen == []


async def test_a_gemini_step_its_safety_check_wants_confirmed_is_a_question_for_the_user(fake_server: FakeServer, streamed: bool) -> None:
    backend = GeminiBackend(fake_server)
    args = {"x": 500, "y": 500, "safety_decision": {"decision": "require_confirmation", "explanation": "It accepts the cookie banner."}}
    provider = await backend.make(Reply(tool_calls=[("click_at", args)]), computer_use=True)
    result = await answer(provider, screen_request(), streamed)
    action = result.tool_calls[0].arguments
    assert action["action"] == "ask_user" and "cookie banner" in action["question"]


async def test_an_unknown_anthropic_computer_tool_version_is_refused_by_name(fake_server: FakeServer, streamed: bool) -> None:
    with pytest.raises(errors.ProviderNotConfigured, match="computer_20991231"):
        await AnthropicBackend(fake_server).make(Reply(text="unused"), computer_use=True, computer_tool="computer_20991231")


async def test_the_newer_anthropic_computer_tool_goes_with_its_own_beta(fake_server: FakeServer, streamed: bool) -> None:
    from anthropic.types.beta import BetaToolComputerUse20251124

    backend = AnthropicBackend(fake_server)
    provider = await backend.make(Reply(tool_calls=[click(backend, 1, 2)]), computer_use=True, computer_tool="computer_20251124")
    await answer(provider, screen_request(), streamed)
    seen = backend.server.seen[-1]
    assert wire(BetaToolComputerUse20251124, seen.body["tools"][0])["type"] == "computer_20251124"
    assert seen.headers["anthropic-beta"] == "computer-use-2025-11-24"


PAGE = Snapshot.model_validate({
    "url": "http://127.0.0.1/shop", "title": "Fake shop", "viewport": {"width": WIDTH, "height": HEIGHT, "dpr": 1},
    "elements": [{"ref": 4, "role": "searchbox", "name": "Search", "bbox": [400, 40, 480, 40], "in_viewport": True},
                 {"ref": 9, "role": "button", "name": "Go", "bbox": [900, 40, 80, 40], "in_viewport": True}],
    "text": '[4] searchbox "Search"\n[9] button "Go"',
})


async def test_the_executor_shows_the_screenshot_and_types_into_the_field_at_the_point(screen_backend: HTTPBackend, streamed: bool) -> None:
    if streamed:
        pytest.skip("the executor asks for whole completions")
    if screen_backend.name == "gemini":
        call = ("type_text_at", {"x": 500, "y": 75, "text": "red shoes"})
    elif screen_backend.name == "openai_compat":
        call = ("computer_call", {"action": {"type": "type", "text": "red shoes"}})
    else:
        call = ("computer", computer_input("type", text="red shoes"))
    page = PAGE.model_copy(deep=True)
    # Anthropic and OpenAI type at the focused element: the search box has focus.
    page.elements[0].states = {} if screen_backend.name == "gemini" else {"focused": True}
    provider = await screen_backend.make(Reply(tool_calls=[call]), computer_use=True)
    shot = screenshot_jpeg(WIDTH, HEIGHT)
    turn = await Executor(provider).decide(task="Search for red shoes", intent="search", verify=[], history=[], feedback=None,
                                           page=page.text, snapshot=page, step_index=0, attempt=1, reminders=0, screenshot_b64=shot)
    assert turn.decision is not None
    assert turn.decision.action.model_dump(exclude_none=True) == {"type": "fill" if screen_backend.name == "gemini" else "type",
                                                                  "ref": 4, "text": "red shoes"}
    assert sent_images(screen_backend) == [base64.b64decode(shot)]


def sent_images(backend: HTTPBackend) -> list[bytes]:
    """The images of the last request, decoded, as each API carries them."""
    body = backend.server.seen[-1].body
    if backend.name == "gemini":
        return [base64.urlsafe_b64decode(p["inlineData"]["data"]) for c in body["contents"] for p in c["parts"] if "inlineData" in p]
    if backend.name == "openai_compat":
        return [base64.b64decode(p["image_url"].split(",", 1)[1]) for i in body["input"] if isinstance(i["content"], list)
                for p in i["content"] if p["type"] == "input_image"]
    return [base64.b64decode(b["source"]["data"]) for m in body["messages"] for b in m["content"] if b.get("type") == "image"]


async def test_the_executor_takes_a_click_at_screen_coordinates_as_click_at(screen_backend: HTTPBackend, streamed: bool) -> None:
    from waymark.host.core.actions import offered_actions

    if streamed:
        pytest.skip("the executor asks for whole completions")
    provider = await screen_backend.make(Reply(tool_calls=[click(screen_backend, 960, 60)]), computer_use=True)
    executor = Executor(provider)
    assert executor.screen
    turn = await executor.decide(task="Search", intent="press Go", verify=[], history=[], feedback=None, page=PAGE.text, snapshot=PAGE,
                                 step_index=0, attempt=1, reminders=0, screenshot_b64=screenshot_jpeg(WIDTH, HEIGHT),
                                 allowed=offered_actions(multi_tab=False, coordinates=True))
    assert turn.decision is not None
    assert turn.decision.action.model_dump(exclude_none=True) == {"type": "click_at", "x": 960, "y": 60}


async def test_an_openai_computer_call_with_pending_safety_checks_is_a_question_for_the_user(fake_server: FakeServer, streamed: bool) -> None:
    backend = OpenAICompatBackend(fake_server)
    checks = [{"id": "sc_1", "code": "malicious_instructions", "message": "The page asks to send your password."}]
    call = ("computer_call", {"action": {"type": "click", "button": "left", "x": 5, "y": 5}, "pending_safety_checks": checks})
    provider = await backend.make(Reply(tool_calls=[call]), computer_use=True)
    result = await answer(provider, screen_request(), streamed)
    action = result.tool_calls[0].arguments
    assert action["action"] == "ask_user" and "send your password" in action["question"]


async def test_an_openai_scroll_keeps_its_distance_in_screenshot_pixels_and_its_usage(fake_server: FakeServer, streamed: bool) -> None:
    backend = OpenAICompatBackend(fake_server)
    call = ("computer_call", {"action": {"type": "scroll", "x": 600, "y": 300, "scroll_x": 0, "scroll_y": -500}})
    provider = await backend.make(Reply(tool_calls=[call], usage=(1500, 20)), computer_use=True)
    result = await answer(provider, screen_request(), streamed)
    assert result.tool_calls[0].arguments == {"action": "scroll_at", "x": 600, "y": 300, "direction": "up", "amount_px": 500}
    assert result.usage is not None and (result.usage.input_tokens, result.usage.output_tokens) == (1500, 20)


async def test_computer_use_on_an_openai_compatible_local_server_is_refused_by_name(fake_server: FakeServer, streamed: bool) -> None:
    from waymark.providers import registry

    with pytest.raises(errors.ProviderNotConfigured, match="Responses API"):
        registry.create("openai_compat", "qwen", preset="ollama", computer_use=True)


# A capture at device-pixel-ratio 2 of a 1280x800 viewport: 4.1 megapixels, more than Anthropic's
# models see unscaled (1568 px on the long edge, about 1.15 megapixels; larger images are
# downsampled by the API and the model answers in the smaller image's pixels).
DPR2 = (2 * WIDTH, 2 * HEIGHT)
#: 2560x1600 scaled by min(1568 / 2560, sqrt(1_150_000 / (2560 * 1600))) = 0.5299.
DPR2_DISPLAY = (1356, 848)


async def test_at_device_pixel_ratio_2_anthropic_is_sent_the_screenshot_scaled_to_the_display_it_is_told(fake_server: FakeServer, streamed: bool) -> None:
    from anthropic.types.beta import BetaToolComputerUse20250124

    from waymark.providers.computer_use import image_size

    backend = AnthropicBackend(fake_server)
    provider = await backend.make(Reply(tool_calls=[click(backend, 1, 2)]), computer_use=True)
    await answer(provider, screen_request(image=screenshot_jpeg(*DPR2)), streamed)
    computer = wire(BetaToolComputerUse20250124, backend.server.seen[-1].body["tools"][0])
    assert (computer["display_width_px"], computer["display_height_px"]) == DPR2_DISPLAY
    [image] = sent_images(backend)
    assert image_size(base64.b64encode(image).decode()) == DPR2_DISPLAY, "the model sees exactly the display it is told about"


async def test_at_device_pixel_ratio_2_an_anthropic_click_comes_back_in_the_screenshots_pixels(fake_server: FakeServer, streamed: bool) -> None:
    backend = AnthropicBackend(fake_server)
    centre_of_display = (DPR2_DISPLAY[0] // 2, DPR2_DISPLAY[1] // 2)
    provider = await backend.make(Reply(tool_calls=[click(backend, *centre_of_display)]), computer_use=True)
    result = await answer(provider, screen_request(image=screenshot_jpeg(*DPR2)), streamed)
    assert result.tool_calls[0].arguments == {"action": "click_at", "x": DPR2[0] // 2, "y": DPR2[1] // 2}


async def test_at_device_pixel_ratio_2_an_anthropic_drag_scales_both_of_its_ends(fake_server: FakeServer, streamed: bool) -> None:
    backend = AnthropicBackend(fake_server)
    call = ("computer", computer_input("left_click_drag", start_coordinate=[339, 212], coordinate=[1017, 636]))
    provider = await backend.make(Reply(tool_calls=[call]), computer_use=True)
    result = await answer(provider, screen_request(image=screenshot_jpeg(*DPR2)), streamed)
    assert result.tool_calls[0].arguments == {"action": "drag_at", "x": 640, "y": 400, "to_x": 1920, "to_y": 1200}


async def test_the_executor_at_device_pixel_ratio_2_clicks_the_css_point_anthropic_saw(fake_server: FakeServer, streamed: bool) -> None:
    from waymark.host.core.actions import offered_actions

    if streamed:
        pytest.skip("the executor asks for whole completions")
    backend = AnthropicBackend(fake_server)
    # "Go" is at CSS (900..980, 40..80): its centre (940, 60) is (1880, 120) in the DPR-2 screenshot
    # and (996, 64) in the display Anthropic is shown.
    provider = await backend.make(Reply(tool_calls=[click(backend, 996, 64)]), computer_use=True)
    page = PAGE.model_copy(update={"viewport": {"width": WIDTH, "height": HEIGHT, "dpr": 2}, "screenshot_scale": 2.0})
    turn = await Executor(provider).decide(task="Search", intent="press Go", verify=[], history=[], feedback=None, page=page.text,
                                           snapshot=page, step_index=0, attempt=1, reminders=0, screenshot_b64=screenshot_jpeg(*DPR2),
                                           allowed=offered_actions(multi_tab=False, coordinates=True))
    assert turn.decision is not None
    action = turn.decision.action.model_dump(exclude_none=True)
    assert action["type"] == "click_at"
    css = (action["x"] / 2, action["y"] / 2)
    assert 900 <= css[0] <= 980 and 40 <= css[1] <= 80, f"the click lands on Go, not at {css}"
