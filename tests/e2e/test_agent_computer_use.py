"""A computer-use executor in a real run: the real extension in real Chromium, the real host,
and OpenAI's computer-use model faked at the HTTP boundary (a loopback server answering chat
completions for the planner and the Responses API for the executor through the SDK's types).
The model is shown the numbered-overlay screenshot and its click at screenshot pixels lands."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import threading
from typing import Iterator

import pytest

from tests.agent_calls import start_run, trace_events
from tests.contract.fake_server import FakeServer, Reply

PLAN = {"steps": [{"intent": "Press the target", "verify": [{"text_present": "The target was hit"}]}]}


@pytest.fixture
def model_server() -> Iterator[FakeServer]:
    """The loopback server both roles' models answer from."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    server = asyncio.run_coroutine_threadsafe(FakeServer().start(), loop).result(10)
    yield server
    asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)


async def test_a_computer_use_model_sees_the_screenshot_and_its_click_at_a_point_lands(sw, site_url, model_server):
    from PIL import Image

    # The target's centre, CSS (200, 140), is screenshot pixel (200, 140) at device-pixel-ratio 1.
    click = ("computer_call", {"action": {"type": "click", "button": "left", "x": 200, "y": 140}})
    model_server.script(Reply(text=json.dumps(PLAN)), Reply(tool_calls=[click]))
    base = f"{model_server.url}/v1"
    run = await start_run(sw, {"task": "Press the target", "start_url": f"{site_url}/agent/press_point.html",
                               "planner": f"openai_compat:planner?base_url={base}",
                               "executor": f"openai_compat:computer-use-preview?computer_use=true&base_url={base}"})
    summary = await run.summary()
    assert summary["success"], summary
    step = next(e for e in trace_events(summary["trace_dir"], "step") if e.get("verdict") == "passed")
    assert step["action"] == {"type": "click_at", "x": 200, "y": 140}
    executor_calls = [s for s in model_server.seen if s.path.endswith("/responses")]
    assert len(executor_calls) == 1
    body = executor_calls[0].body
    assert body["tools"][0]["type"] == "computer_use_preview"
    images = [p["image_url"] for item in body["input"] if isinstance(item["content"], list) for p in item["content"] if p["type"] == "input_image"]
    assert len(images) == 1
    shot = Image.open(io.BytesIO(base64.b64decode(images[0].split(",", 1)[1])))
    # The tool is declared the size of the screenshot the model was shown.
    assert (body["tools"][0]["display_width"], body["tools"][0]["display_height"]) == shot.size


@pytest.fixture
def gemini_key() -> Iterator[None]:
    """A Gemini key in the host's secret store (the one this session's state folder holds) for
    one test: a key left there would say "configured" to later tests."""
    from waymark.host.core import secrets_store

    secrets_store.set_provider_key("GEMINI_API_KEY", "test-key")
    yield
    secrets_store.delete_provider_key("GEMINI_API_KEY")


async def test_a_gemini_computer_use_model_types_into_the_field_at_the_point_it_names(sw, site_url, model_server, gemini_key):
    plan = {"steps": [{"intent": "Type the name Ada", "verify": [{"text_present": "Hello, Ada"}]}]}
    # The field's centre, CSS (550, 120), in Gemini's 0-999 coordinates of a 1280 x 800 screenshot.
    type_at = ("type_text_at", {"x": round(550 * 1000 / 1280), "y": round(120 * 1000 / 800), "text": "Ada"})
    model_server.script(Reply(text=json.dumps(plan)), Reply(tool_calls=[type_at]))
    run = await start_run(sw, {"task": "Type the name Ada", "start_url": f"{site_url}/agent/press_point.html",
                               "planner": f"gemini:planner?base_url={model_server.url}",
                               "executor": f"gemini:computer-use?computer_use=true&base_url={model_server.url}"})
    summary = await run.summary()
    assert summary["success"], summary
    step = next(e for e in trace_events(summary["trace_dir"], "step") if e.get("verdict") == "passed")
    assert step["action"]["type"] == "fill" and step["action"]["text"] == "Ada"
    assert any(c.startswith("fill_target") for c in step["coercions"])
    executor_call = model_server.seen[-1].body
    assert executor_call["tools"][0] == {"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}
