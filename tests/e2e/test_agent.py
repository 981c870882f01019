"""The whole agent loop in real Chromium with the real extension and host, driven by the
scripted provider (and, where a model call must be in flight, an OpenAI-compatible server on
loopback). Runs are started through the extension exactly as the side panel starts them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_calls import RecordingModel, start_run, tool_call, trace_events
from waymark.eval.sites.serve import SiteServer
from waymark.host.core import secrets_store
from waymark.host.core.paths import state_dir

ROOT = Path(__file__).resolve().parents[2]
DEMO_SCRIPT = json.loads((ROOT / "eval" / "scripts" / "demo_shop.json").read_text(encoding="utf-8"))

def step(intent: str, action: dict[str, Any], verify: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"intent": intent, "action": action, "verify": verify, **extra}


@pytest.fixture(scope="module")
def shop_url() -> Any:
    with SiteServer() as sites:
        yield f"{sites.site}/shop/index.html"


# ------------------------------------------------------------------ flows


async def test_the_shop_flow_reaches_checkout_and_stops_at_the_place_order_confirmation(sw, shop_url):
    run = await start_run(sw, {"task": "Buy trail shoes up to the order confirmation", "start_url": shop_url, "script": DEMO_SCRIPT})
    request = await run.wait_for("confirm")
    assert request["action_line"].startswith('click') and '"Place order"' in request["action_line"]
    await run.answer(request, False)
    summary = await run.summary()
    assert summary["outcome"] == "declined"
    assert (summary["steps_passed"], summary["steps_total"]) == (9, 10)
    passed = [e["intent"] for e in trace_events(summary["trace_dir"], "step") if e["verdict"] == "passed"]
    assert "Close the upsell drawer that covers the page" in passed
    assert (Path(summary["trace_dir"]) / "summary.json").exists()


async def test_a_destructive_action_waits_for_confirmation_and_happens_only_once_approved(sw, shop_url):
    run = await start_run(sw, {"task": "Buy trail shoes", "start_url": shop_url, "script": DEMO_SCRIPT})
    request = await run.wait_for("confirm")
    waiting = await sw.evaluate("() => globalThis.waymark.call('agent.runs')")
    assert any(r["run_id"] == request["run_id"] and r["waiting"] == [request["request_id"]] for r in waiting["runs"])
    assert not [e for e in await run.events("step") if e.get("intent") == "Place the order"]
    await run.answer(request, True)
    summary = await run.summary()
    assert summary["success"] is True
    assert (summary["steps_passed"], summary["steps_total"]) == (10, 10)
    last = trace_events(summary["trace_dir"], "step")[-1]
    assert last["confirmation"] == "approved"
    assert any(c["predicate"] == {"text_present": "Order placed"} and c["ok"] for c in last["checks"])


async def test_a_finished_run_leaves_no_debugger_attached_to_any_tab(sw, shop_url):
    run = await start_run(sw, {"task": "Buy trail shoes", "start_url": shop_url, "script": DEMO_SCRIPT})
    request = await run.wait_for("confirm")
    assert await sw.evaluate("() => globalThis.waymark.debuggerTabs()"), "the run's clicks went through the debugger"
    await run.answer(request, False)
    await run.summary()
    assert await sw.evaluate("() => globalThis.waymark.debuggerTabs()") == []


async def test_a_login_flow_signs_in_with_a_stored_secret_that_no_trace_or_log_contains(sw, site_url):
    password = "correct-horse-battery-staple"
    secrets_store.set_secret("BANK_PASSWORD", password, [site_url])
    script = {"steps": [
        step("Enter the username", {"type": "fill", "target": {"name": "Username"}, "text": "ada"},
             [{"value_equals": {"target": {"name": "Username"}, "value": "ada"}}]),
        step("Enter the password", {"type": "fill", "target": {"name": "Password"}, "text": "{{secret:BANK_PASSWORD}}"}, []),
        step("Sign in", {"type": "click", "target": {"role": "button", "name": "Sign in"}},
             [{"url_contains": "/account.html"}, {"text_present": "Welcome back"}]),
    ]}
    run = await start_run(sw, {"task": "Sign in as ada with {{secret:BANK_PASSWORD}}", "start_url": f"{site_url}/agent/login.html",
                               "script": script})
    summary = await run.summary()
    assert summary["success"] is True, summary
    assert summary["steps_passed"] == 3
    typed = [e for e in trace_events(summary["trace_dir"]) if e.get("intent") == "Enter the password"]
    assert typed[0]["action"]["text"] == "{{secret:BANK_PASSWORD}}"
    for path in [*Path(summary["trace_dir"]).rglob("*"), *state_dir().glob("host.log*")]:
        if path.is_file():
            assert password.encode() not in path.read_bytes(), f"the password leaked into {path}"


async def test_a_secret_typed_into_a_visible_field_is_redacted_from_every_later_snapshot(sw, site_url):
    token = "tok-5e57a9c1b2d3"
    secrets_store.set_secret("API_TOKEN", token, [site_url])
    script = {"steps": [
        step("Paste the API token", {"type": "fill", "target": {"name": "API token"}, "text": "{{secret:API_TOKEN}}"}, []),
        step("Save it", {"type": "click", "target": {"role": "button", "name": "Save token"}},
             [{"text_present": f"Saved a token of {len(token)} characters"}]),
    ]}
    run = await start_run(sw, {"task": "Save my API token {{secret:API_TOKEN}}", "start_url": f"{site_url}/agent/token.html", "script": script})
    summary = await run.summary()
    assert summary["success"] is True, summary
    streamed = json.dumps(await run.events())
    assert token not in streamed
    for path in [*Path(summary["trace_dir"]).rglob("*"), *state_dir().glob("host.log*")]:
        if path.is_file():
            assert token.encode() not in path.read_bytes(), f"the token leaked into {path}"


async def test_a_failed_required_step_is_replanned_with_its_evidence(sw, site_url):
    open_panel = {"type": "click", "target": {"role": "button", "name": "Open panel"}}
    checks = [{"url_contains": "/menu.html"}, {"text_present": "Opened the first panel"}]
    script = {
        "steps": [step("Open the panel", open_panel, checks, fail_first=5)],
        "replan": {"steps": [step("Open the panel with its button", open_panel, checks)]},
    }
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": script,
                           "budgets": {"retries_per_step": 1}})
    summary = await run.summary()
    assert summary["success"] is True, summary
    assert summary["replans"] == 1
    replan = trace_events(summary["trace_dir"], "replan")[0]
    assert replan["evidence"]["failed_step"] == "Open the panel"
    assert "text_present" in replan["evidence"]["reason"]
    failed = trace_events(summary["trace_dir"], "step_failed")[0]
    assert (Path(summary["trace_dir"]) / failed["artifacts"]["snapshot"]).is_file()
    assert (Path(summary["trace_dir"]) / failed["artifacts"]["raw_output"]).is_file()


async def test_unusable_answers_are_answered_with_a_reminder_naming_each_failure(sw, site_url):
    script = {"steps": [step(
        "Open the panel", {"type": "click", "target": {"role": "button", "name": "Open panel"}},
        [{"text_present": "Opened the first panel"}],
        decision_text=["I would click the button.", '{"action": {"type": "click", "ref": 1}} {"action": {"type": "done"}}'],
    )]}
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": script})
    summary = await run.summary()
    assert summary["success"] is True, summary
    problems = trace_events(summary["trace_dir"], "step")[0]["parse_failures"]
    assert [p["kind"] for p in problems] == ["no_json", "multi_root"]
    assert "[no_json]" in problems[0]["reminder"] and "[multi_root]" in problems[1]["reminder"]


# ------------------------------------------------------------------ budgets


def _failing_menu_script(**extra: Any) -> dict[str, Any]:
    checks = [{"url_contains": "/menu.html"}, {"text_present": "Opened the first panel"}]
    return {"steps": [step("Open the panel", {"type": "click", "target": {"role": "button", "name": "Open panel"}}, checks, fail_first=50)], **extra}


@pytest.mark.parametrize("budgets,script,outcome", [
    ({"max_steps": 1}, {"steps": [
        step("Open the panel", {"type": "click", "target": {"role": "button", "name": "Open panel"}}, []),
        step("Go to the other page", {"type": "click", "target": {"role": "link", "name": "Other page"}}, []),
    ]}, "budget_steps"),
    ({"retries_per_step": 0, "max_replans": 0}, _failing_menu_script(), "budget_replans"),
    ({"max_tokens": 1000}, {**_failing_menu_script(), "usage": {"input_tokens": 600, "output_tokens": 100}}, "budget_tokens"),
    ({"wall_clock_s": 2}, _failing_menu_script(), "budget_wall_clock"),
], ids=["steps", "replans", "tokens", "wall_clock"])
async def test_each_exhausted_budget_ends_the_run_with_its_name(sw, site_url, budgets, script, outcome):
    run = await start_run(sw, {"task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "script": script, "budgets": budgets})
    summary = await run.summary()
    assert summary["success"] is False
    assert summary["outcome"] == outcome, summary
    assert json.loads((Path(summary["trace_dir"]) / "summary.json").read_text())["outcome"] == outcome


# ------------------------------------------------------------------ cancellation


class _SilentModelServer:
    """An OpenAI-compatible endpoint on loopback that accepts a request and never answers."""

    def __init__(self) -> None:
        self.requests: list[bytes] = []
        self.received = asyncio.Event()
        self._server: asyncio.AbstractServer | None = None
        self.url = ""

    async def __aenter__(self) -> "_SilentModelServer":
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.requests.append(await reader.read(65536))
            self.received.set()
            try:
                await reader.read()  # hold the connection until the client gives up
            finally:
                writer.close()

        self._server = await asyncio.start_server(handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()


async def test_cancelling_a_run_stops_it_during_the_model_call(sw, site_url):
    async with _SilentModelServer() as model:
        run = await start_run(sw, {
            "task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "provider": "openai_compat",
            "model": "silent", "provider_options": {"base_url": model.url, "api_key": "test-key"},
        })
        await asyncio.wait_for(model.received.wait(), 60)
        started = await run.wait_for("run")
        await run.cancel()
        reply = await asyncio.wait_for(run.reply(), 30)
    assert reply["ok"] is False and reply["code"] == "cancelled"
    summary = json.loads((Path(started["trace_dir"]) / "summary.json").read_text())
    assert summary["outcome"] == "cancelled"
    assert b"POST /v1/chat/completions" in model.requests[0]


# ------------------------------------------------------------------ secrets never reach a prompt


_TOKEN_PLAN = {"steps": [
    {"intent": "Paste the API token", "verify": [], "required": True},
    {"intent": "Save it", "verify": [{"text_present": "Saved a token of"}], "required": True},
]}


def _token_model(system: str, user: str) -> dict[str, Any]:
    """A model for the token page: the plan, then the fill, then the click."""
    import re

    if "planner" in system:
        return {"content": json.dumps(_TOKEN_PLAN)}
    if "Current step: Paste the API token" in user:
        ref = int(re.search(r'\[(\d+)\] textbox "API token"', user).group(1))
        return tool_call("fill", {"ref": ref, "text": "{{secret:API_TOKEN}}"})
    return tool_call("click", {"ref": int(re.search(r'\[(\d+)\] button "Save token"', user).group(1))})


async def test_a_secret_value_never_reaches_a_model_prompt(sw, site_url):
    token = "tok-77c0ffee91ab"
    secrets_store.set_secret("API_TOKEN", token, [site_url])
    model = RecordingModel(_token_model)
    try:
        run = await start_run(sw, {
            "task": "Save my API token {{secret:API_TOKEN}}", "start_url": f"{site_url}/agent/token.html", **model.provider_options(),
        })
        summary = await run.summary()
    finally:
        model.close()
    assert summary["success"] is True, summary
    assert len(model.bodies) >= 3  # planner, fill, click
    assert all(token.encode() not in body for body in model.bodies)
    # The field really held the value when the last prompt was built: the prompt says only that it has one.
    assert b'textbox \\"API token\\" has_value=true secret=true' in model.bodies[-1]


async def test_ask_user_waits_for_the_answer_and_gives_it_to_the_executor(sw, site_url):
    script = {"steps": [
        step("Ask which panel to open", {"type": "ask_user", "question": "Which panel should I open?"}, []),
        step("Open the panel", {"type": "click", "target": {"role": "button", "name": "Open panel"}},
             [{"text_present": "Opened the first panel"}]),
    ]}
    run = await start_run(sw, {"task": "Open a panel", "start_url": f"{site_url}/agent/menu.html", "script": script})
    question = await run.wait_for("ask_user")
    assert question["question"] == "Which panel should I open?"
    await run.answer(question, "the first one")
    summary = await run.summary()
    assert summary["success"] is True, summary
    assert [e["verdict"] for e in trace_events(summary["trace_dir"], "step")] == ["passed", "passed"]


# ------------------------------------------------------------------ deterministic repair

_VEIL_SCRIPT = {"steps": [step("Continue", {"type": "click", "target": {"role": "button", "name": "Continue"}},
                               [{"text_present": "Continued to the next page"}])]}


async def test_an_occluding_layer_is_closed_by_repair_and_the_action_tried_again(sw, site_url):
    run = await start_run(sw, {"task": "Continue", "start_url": f"{site_url}/agent/veil.html", "script": _VEIL_SCRIPT})
    summary = await run.summary()
    assert summary["success"] is True, summary
    first = trace_events(summary["trace_dir"], "step")[0]
    assert first["verdict"] == "passed"
    assert "pressed Escape to close the overlay" in first["repair"]


async def test_repair_leaves_an_occluding_layer_alone_when_the_policy_says_so(sw, site_url):
    run = await start_run(sw, {"task": "Continue", "start_url": f"{site_url}/agent/veil.html", "script": _VEIL_SCRIPT,
                           "policy": {"dismiss_occluders": False}, "budgets": {"retries_per_step": 0, "max_replans": 0}})
    summary = await run.summary()
    assert summary["success"] is False
    first = trace_events(summary["trace_dir"], "step")[0]
    assert first["error"]["code"] == "occluded"
    assert any("does not allow closing it" in note for note in first["repair"])


async def test_a_choice_a_widget_did_not_take_is_made_again_by_repair(sw, site_url):
    script = {"steps": [step("Choose express shipping", {"type": "select", "target": {"role": "listbox", "name": "Shipping"}, "value": "Express"},
                             [{"text_present": "Shipping: Express"}])]}
    run = await start_run(sw, {"task": "Choose express shipping", "start_url": f"{site_url}/agent/hydrate.html", "script": script,
                               "budgets": {"retries_per_step": 0, "max_replans": 0}})
    summary = await run.summary()
    assert summary["success"] is True, summary
    first = trace_events(summary["trace_dir"], "step")[0]
    assert first["repair"][0].startswith("the action failed with not_selected: option \"Express\" of ref")
    assert first["repair"][-1] == "tried the same action on the same ref again — it worked"


async def test_a_link_to_a_blocked_domain_stops_the_run(sw, site_url, other_origin):
    script = {"steps": [step("Leave the site", {"type": "click", "target": {"role": "link", "name": "Leave this site"}}, [])]}
    start_url = f"{site_url}/agent/jump.html?to={other_origin}/agent/menu.html"  # 127.0.0.1 -> localhost
    run = await start_run(sw, {"task": "Follow the link", "start_url": start_url, "script": script,
                           "policy": {"block_domains": ["localhost"]}})
    summary = await run.summary()
    assert summary["outcome"] == "blocked"
    assert "led to a page that is not allowed: localhost is on the block list" in summary["reason"]


# ------------------------------------------------------------------ model options

async def test_a_runs_model_specs_set_each_roles_temperature_timeout_and_snapshot_size(sw, site_url):
    from tests.reliability.fake_model import FakeModel

    plan = [{"intent": "Open the panel", "action": {"type": "click", "target": {"role": "button", "name": "Open panel"}},
             "verify": [{"text_present": "Opened the first panel"}]}]
    model = await FakeModel(plan=plan).start()
    try:
        run = await start_run(sw, {
            "task": "Open the panel", "start_url": f"{site_url}/agent/menu.html", "screenshots": False,
            "planner": f"openai_compat:fake-model?base_url={model.base_url}",
            "executor": f"openai_compat:fake-model?base_url={model.base_url}&temperature=0.3&timeout=77&context_tokens=4096",
        })
        started = await run.wait_for("run")
        summary = await run.summary()
    finally:
        await model.stop()
    assert summary["success"] is True, summary
    bodies = {seen.role: seen.body for seen in model.seen}
    # A server on loopback is a local model: temperature 0 unless the spec says otherwise.
    assert bodies["planner"]["temperature"] == 0 and bodies["executor"]["temperature"] == 0.3
    assert started["executor_call"] == {"temperature": 0.3, "timeout_s": 77.0}
    assert started["snapshot_chars"] < 4096 * 3 < 20_000
