"""The executor measured alone (`waymark eval run --planner scripted --executor SPEC`): the task's
own script gives the plan (its intents and checks, never its actions) and a real executor, the
openai_compat provider against a loopback model server that records every request, acts. The
authorities: the model server's own request log (no planner call reached it) and the final page."""

from __future__ import annotations

from typing import Any, AsyncIterator

import pytest
import pytest_asyncio

from tests.e2e.test_eval_suite_dir import SCRIPT, _suite
from tests.reliability.fake_model import FakeModel
from waymark.eval.report import read_rows
from waymark.eval.runner import RunConfig, run_suite
from waymark.providers.spec import ModelSpec

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


@pytest_asyncio.fixture
async def executor() -> AsyncIterator[FakeModel]:
    # The server answers each executor turn with the scripted step's action, as a model that points right would.
    server = await FakeModel(plan=[{"intent": s["intent"], "action": s["action"]} for s in SCRIPT["steps"]]).start()
    yield server
    await server.stop()


async def test_the_scripts_plan_with_a_real_executor_passes_and_the_model_is_asked_only_to_act(tmp_path: Any, executor: FakeModel):
    suite = _suite(tmp_path / "my-suite")
    spec = ModelSpec.make("openai_compat", "fake-model", {"base_url": executor.base_url, "preset": "llamacpp"})
    config = RunConfig(suite="my-suite", suites_dir=suite.parent, planner=ModelSpec.make("scripted", "scripted"), executor=spec,
                       out=tmp_path / "alone.jsonl")
    await run_suite(config)
    (row,) = read_rows(config.out)
    assert row.verdict == "pass", row.reason
    roles = [s.role for s in executor.seen]
    assert roles and set(roles) == {"executor"}, roles
    # What the executor was asked to do is the script's own plan, step by step.
    prompts = "\n".join(s.prompt() for s in executor.seen)
    assert all(step["intent"] in prompts for step in SCRIPT["steps"])
