"""Host methods of agent mode: `agent.run` runs a task, `agent.answer` answers its questions.

`agent.run` params: {task, start_url?, tab_id?, provider?+model? | planner?+executor? (model
specs, see providers/spec.py: "gemini:gemini-2.5-flash", "llamacpp:qwen?temperature=0"),
script? (path or inline script for the scripted provider), provider_options?, budgets?,
policy?, screenshots?, output_schema? (a JSON Schema the answer's data must match, see
host/agent/answers)}. Without provider, planner/executor or script, each role runs with the
provider, model and options saved in the settings (settings.py), so planner and executor may
differ. Each role's temperature and per-call timeout come from its spec (local servers: 0 and
a longer timeout), and the snapshot is sized to the executor's context window.
Every model call is counted in the diagnostics under its provider and role. The policy is
narrowed by the one saved in Settings (settings.run_policy). An attached MCP client's call sets
no script, provider, model, planner, executor, provider_options or upload_dir, and its run's
confirmations are asked in the side panel (host/rpc/clients.py). It streams notifications while
it runs:

- `run` {run_id, trace_dir, task, ...} first, so the caller knows which run to answer;
- `plan` / `replan` {steps, success_criteria, fallback?}, `step` {step, plan_index, attempt, intent,
  action_line, verdict (passed | unproven | retry | refused | failed | acted | done | ...),
  checks_before?, checks, timing, tokens, screenshot?, thumbnail_b64?}, `step_failed` {intent,
  reason, artifacts}, `criteria` {ok, checks, held_at_start} when a claimed success is judged;
- `confirm` {run_id, request_id, action_line, reason, url} and `ask_user` {run_id, request_id,
  question}: the run waits until someone calls `agent.answer` {run_id, request_id, answer}
  (true/false for a confirmation, text for a question) or the policy's timeout declines;
- `finished` {summary}. The reply's data is the summary: {success, duration_ms, tokens_total,
  steps_passed, steps_total, steps_unproven, run_id, outcome, reason, result, data, grounding,
  trace_dir, ...}.

Cancelling the call stops the run at once, the in-flight model call included.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from waymark.host.agent.answers import check_schema
from waymark.host.agent.budgets import Budgets, snapshot_chars
from waymark.host.agent.confirm import Policy
from waymark.host.agent.human import Human
from waymark.host.agent.loop import AgentRun, CallSettings, RunOptions
from waymark.host.agent.trace import new_run_id
from waymark.host.core.validation import problems
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.rpc.clients import human_for, note_run, refuse_user_only
from waymark.host.rpc.diagnostics import MeasuredProvider
from waymark.host.settings import load_settings, role_spec, run_policy
from waymark.providers import registry
from waymark.providers.base import LLMProvider
from waymark.providers.errors import ProviderError, error_code
from waymark.providers.spec import ChoiceError, ModelChoice, ModelSpec, SpecError

log = logging.getLogger(__name__)


class ModelParams(BaseModel):
    """The models a run uses and the policy it runs under: parameters `agent.run` and `workflow.run` share."""

    model_config = ConfigDict(extra="forbid")

    provider: str | None = None
    model: str | None = None
    planner: str | None = None
    executor: str | None = None
    script: str | dict[str, Any] | None = None
    provider_options: dict[str, Any] = Field(default_factory=dict)
    policy: Policy = Field(default_factory=Policy)


class RunParams(ModelParams):
    """The parameters of `agent.run`."""

    task: str = Field(min_length=1, max_length=4000)
    start_url: str | None = None
    tab_id: int | None = None
    budgets: Budgets = Field(default_factory=Budgets)
    screenshots: bool = True
    #: The MCP client that asked for this run: it types only the secrets the user granted it
    #: (the control socket sets it for a client's call, whatever the client sent).
    secret_client: str | None = None
    #: False: no planner call; the executor works on the whole task (see RunOptions.plan).
    plan: bool = True
    #: The folder upload_file takes files from; None: the one in the settings (if any).
    upload_dir: str | None = None
    #: Vision mode: offer the executor the coordinate actions (click_at, drag_at...) too.
    coordinates: bool = False
    #: The JSON Schema (Draft 2020-12) the answer's `data` must match; its values are grounded in the pages the run saw.
    output_schema: dict[str, Any] | None = None

    @field_validator("output_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_schema(value) if value is not None else None


def role_specs(params: ModelParams) -> tuple[ModelSpec, ModelSpec]:
    """(planner, executor) specs of a run. Explicit params win: planner and executor specs; then
    provider and model; without them, the saved settings of each role."""
    choice = ModelChoice(provider=params.provider, model=params.model, planner=params.planner, executor=params.executor)
    try:
        specs = choice.specs(params.provider_options)
    except ChoiceError as exc:
        raise MethodError("bad_params", exc.message) from None
    if specs is not None:
        return specs
    settings = load_settings()
    return role_spec("planner", settings), role_spec("executor", settings)


def script_executor(params: ModelParams) -> ModelSpec | None:
    """The model that acts in a run whose plan comes from its script (`script` with `executor`):
    the executor measured alone, on the task's own plan (the eval's `--planner scripted`)."""
    if params.script is None or params.executor is None:
        return None
    try:
        return ModelSpec.parse(params.executor)
    except SpecError as exc:
        raise MethodError("bad_params", f"executor: {exc}") from None


async def build_providers(params: ModelParams, specs: tuple[ModelSpec, ModelSpec] | None,
                          alone: ModelSpec | None = None) -> tuple[LLMProvider, LLMProvider]:
    """(planner, executor) for a run, each counted in the diagnostics: one scripted provider
    for both roles when a script is given (the script's plan and the model `alone` acting, when
    given), else one provider per distinct spec (roles with the same spec share one: the scripted
    provider's executor follows the plan it served)."""
    if params.script is not None:
        provider = registry.create("scripted", "scripted", script=params.script)
        if alone is not None:
            return _measured(provider, await _second(provider, alone.build))
        return _measured(provider, provider)
    assert specs is not None
    planner_spec, executor_spec = specs
    planner = planner_spec.build()
    if executor_spec == planner_spec:
        return _measured(planner, planner)
    return _measured(planner, await _second(planner, executor_spec.build))


def _call(spec: ModelSpec | None) -> CallSettings:
    if spec is None:
        return CallSettings()
    return CallSettings(temperature=spec.call_temperature(), timeout_s=spec.call_timeout())


async def _second(first: LLMProvider, build: Callable[[], LLMProvider]) -> LLMProvider:
    """Build the executor; if that fails, close the planner already built."""
    try:
        return build()
    except BaseException:
        await first.aclose()
        raise


def _measured(planner: LLMProvider, executor: LLMProvider) -> tuple[LLMProvider, LLMProvider]:
    measured = MeasuredProvider(planner)
    return measured, measured if executor is planner else MeasuredProvider(executor)


class _Run:
    """A running agent: its pending questions, answered through `agent.answer`."""

    def __init__(self, run_id: str, owner: int | None = None) -> None:
        self.run_id = run_id
        #: The MCP client connection that started it (CallContext.client_id); None: the user did.
        self.owner = owner
        self.pending: dict[str, asyncio.Future[Any]] = {}


_RUNS: dict[str, _Run] = {}
_request_ids = itertools.count(1)


class StreamedHuman(Human):
    """Asks through the call's notifications and waits for `agent.answer`."""

    def __init__(self, run: _Run, ctx: CallContext) -> None:
        self.run = run
        self.ctx = ctx

    async def _wait(self, kind: str, data: dict[str, Any]) -> Any:
        request_id = f"q{next(_request_ids)}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.run.pending[request_id] = future
        try:
            self.ctx.notify(kind, {"run_id": self.run.run_id, "request_id": request_id, **data})
            return await future
        finally:
            self.run.pending.pop(request_id, None)

    async def ask(self, question: str) -> str | None:
        answer = await self._wait("ask_user", {"question": question})
        return str(answer) if answer not in (None, "") else None

    async def confirm(self, request: dict[str, Any]) -> bool:
        answer = await self._wait("confirm", request)
        return answer is True or (isinstance(answer, str) and answer.strip().lower() in ("yes", "approve", "approved", "confirm", "true"))


@method("agent.run")
async def agent_run(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Run one agent task to its summary, streaming its events."""
    refuse_user_only(params, ctx)
    try:
        run_params = RunParams.model_validate(params)
    except ValidationError as exc:
        raise MethodError("bad_params", problems(exc, limit=1)) from None
    try:
        specs = None if run_params.script is not None else role_specs(run_params)
        alone = script_executor(run_params)
        planner, executor = await build_providers(run_params, specs, alone)
    except ProviderError as exc:
        code = error_code(exc)
        raise MethodError(code if code == "provider_not_configured" else "provider_unavailable", str(exc)) from None
    run_id = new_run_id()
    state = _Run(run_id, ctx.client_id)
    _RUNS[run_id] = state
    note_run(ctx, run_id)
    options = RunOptions(
        task=run_params.task, start_url=run_params.start_url, tab_id=run_params.tab_id, budgets=run_params.budgets,
        policy=run_policy(run_params.policy, trusted=ctx.client_id is None), screenshots=run_params.screenshots, plan=run_params.plan, coordinates=run_params.coordinates,
        output_schema=run_params.output_schema, secret_client=run_params.secret_client,
        upload_dir=run_params.upload_dir or load_settings().upload_dir, file_folders=load_settings().file_folders,
        max_chars=snapshot_chars(executor.capabilities().context_tokens),
        planner_call=_call(specs[0] if specs else None), executor_call=_call(specs[1] if specs else alone),
    )
    try:
        run = AgentRun(options, ctx.browser, planner, executor, human_for(StreamedHuman(state, ctx), ctx), emit=ctx.notify, run_id=run_id)
        summary = await run.run()
        return summary.model_dump()
    finally:
        _RUNS.pop(run_id, None)
        for future in state.pending.values():
            future.cancel()
        await planner.aclose()
        if executor is not planner:
            await executor.aclose()


@method("agent.answer")
async def agent_answer(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Answer a run's `confirm` (true/false) or `ask_user` (text) request. An MCP client answers
    only the runs it started: another's run is, to it, no run at all."""
    run = _RUNS.get(str(params.get("run_id", "")))
    if run is None or (ctx.client_id is not None and run.owner != ctx.client_id):
        raise MethodError("no_such_run", "no run with that id is waiting for an answer")
    future = run.pending.get(str(params.get("request_id", "")))
    if future is None or future.done():
        raise MethodError("no_such_request", "that run is not waiting for this answer")
    future.set_result(params.get("answer"))
    return {"answered": True}


@method("agent.runs")
async def agent_runs(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The runs in progress and the questions each is waiting on."""
    return {"runs": [{"run_id": r.run_id, "waiting": sorted(r.pending)} for r in _RUNS.values()]}
