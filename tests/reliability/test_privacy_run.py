"""Privacy through a whole agent run in real Chromium, with the real openai_compat provider
against a loopback model that records every prompt: a password the user typed and tokens in
the page's URL reach no prompt, no trace file and no host log line. The run's one step (a fill)
passes; the run itself ends unproven, as a run whose only evidence is its own typing must."""

from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator

import pytest
import pytest_asyncio

from tests.agent_calls import start_run
from tests.e2e.dispatch_helpers import tab_id_of
from tests.reliability.fake_model import FakeModel
from waymark.host.core.paths import state_dir

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

PASSWORD = "user-typed-pw-314159"
TOKEN = "tok-9f8e7d6c5b4a3921"
SESSION = "SESSIONID-77aa88bb"
PLAN = [{"intent": "Enter the username", "action": {"type": "fill", "target": {"role": "textbox", "name": "Username"}, "text": "ada"},
         "verify": [{"value_equals": {"target": {"name": "Username"}, "value": "ada"}}]}]


@pytest_asyncio.fixture
async def model() -> AsyncIterator[FakeModel]:
    server = await FakeModel(plan=PLAN).start()
    yield server
    await server.stop()


async def test_a_typed_password_and_url_tokens_reach_no_prompt_trace_or_log(sw, page, site_url, model):
    await page.goto(f"{site_url}/agent/login.html?token={TOKEN}&sid={SESSION}&next=/account")
    await page.fill("#pw", PASSWORD)
    await page.bring_to_front()
    tab = await tab_id_of(sw, page)
    run = await start_run(sw, {"task": "Enter ada as the username", "tab_id": tab, "screenshots": True, **model.provider_params()})
    summary = await run.summary()
    assert summary["steps_passed"] == 1, summary
    assert await page.input_value("#user") == "ada" and await page.input_value("#pw") == PASSWORD

    prompts = "\n".join(s.prompt() for s in model.seen)
    assert "next=" in prompts and "/agent/login.html" in prompts, "the page's URL reached the model, cleaned"
    for secret in (PASSWORD, TOKEN, SESSION):
        assert secret not in prompts, f"{secret} reached a prompt"
    files = [p for p in Path(summary["trace_dir"]).rglob("*") if p.is_file()] + list(state_dir().glob("host.log*"))
    assert any(p.name == "trace.jsonl" for p in files)
    for path in files:
        data = path.read_bytes()
        for secret in (PASSWORD, TOKEN, SESSION):
            assert secret.encode() not in data, f"{secret} leaked into {path}"
    streamed = str(await run.events())
    assert TOKEN not in streamed and PASSWORD not in streamed


async def test_a_start_url_with_tokens_is_not_written_to_the_trace(sw, site_url, model):
    url = f"{site_url}/agent/login.html?token={TOKEN}&sid={SESSION}"
    summary = await (await start_run(sw, {"task": "Enter ada as the username", "start_url": url, "screenshots": False,
                                          **model.provider_params()})).summary()
    assert summary["steps_passed"] == 1, summary
    for path in [p for p in Path(summary["trace_dir"]).rglob("*") if p.is_file()] + list(state_dir().glob("host.log*")):
        data = path.read_bytes()
        assert TOKEN.encode() not in data and SESSION.encode() not in data, f"a URL token leaked into {path}"
