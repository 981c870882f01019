"""Host methods of workflows (host.workflows): `workflow.save` a successful run, `workflow.list`,
`workflow.show`, `workflow.delete`, and `workflow.run`, which replays one and streams the same
notifications as `agent.run` (`run`, `plan`, `step`, `criteria`, `confirm`, `finished`); its reply is
a run summary with `model_calls`, `replay` (unchanged | healed | failed) and `heals`.
`workflow.record_draft` turns a demonstration the side panel recorded into steps to review, and
`workflow.record_save` writes the reviewed steps as a workflow (host.workflows.record). In the
review, `workflow.record_check` validates a check the user changed or wrote ({check} -> {check,
says}, else `invalid_check`) and `workflow.record_answer` grounds an answer the user marks on the
page the recording ended on ({page, text, role?, name?, taken?} -> the step that reads it).

`workflow.run` params: {name, params? {NAME: value}, start_url?, heal? (default true),
provider?+model? | executor? | script?, provider_options?, policy?, screenshots?}. Healing asks
the executor chosen as for `agent.run` (explicit params, else the saved settings); with none
configured, a step that no longer matches fails the replay with a reason naming it.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.agent.budgets import snapshot_chars
from waymark.host.agent.trace import TraceNotFound, find_run, new_run_id
from waymark.host.core.validation import problems
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.rpc.agent import (
    _RUNS,
    ModelParams,
    StreamedHuman,
    _call,
    _Run,
    role_specs,
)
from waymark.host.rpc.clients import (
    USER_ONLY_SAVE,
    human_for,
    note_run,
    refuse_others_run,
    refuse_user_only,
)
from waymark.host.rpc.diagnostics import MeasuredProvider
from waymark.host.settings import load_settings, run_policy
from waymark.host.workflows import store
from waymark.host.workflows.model import ParamMissing, WorkflowInvalid, bind
from waymark.host.workflows.record import (
    AnswerMark,
    Demonstration,
    NotACheck,
    RecordedSave,
    draft,
    edited_check,
    marked_answer,
    workflow_of,
)
from waymark.host.workflows.replay import Replay, ReplayOptions
from waymark.host.workflows.save import NotSaveable, recorded, workflow_from
from waymark.providers import registry
from waymark.providers.base import LLMProvider


def _params(model: type[BaseModel], params: dict[str, Any]) -> Any:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise MethodError("bad_params", problems(exc, limit=1)) from None


class SaveParams(BaseModel):
    """The parameters of `workflow.save`."""

    model_config = ConfigDict(extra="forbid")

    #: A run id, a unique prefix of one, or `latest`.
    run_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str = ""
    #: Approve the run's destructive steps for this workflow: its replays do not ask again.
    approve: bool = False
    replace: bool = False


def save_run(params: SaveParams, reviewed: bool = True) -> dict[str, Any]:
    """Save a run as a workflow; the reply is the workflow and its file. Not `reviewed`: an MCP
    client saved it, and it waits for the user's review (`workflow.review`)."""
    with _saving():
        folder = find_run(params.run_id)
        workflow = workflow_from(recorded(folder), params.name, params.description)
        workflow.reviewed = reviewed
        if params.approve:
            workflow.approved = [i for i, s in enumerate(workflow.steps, 1) if s.destructive]
        path = store.write(workflow, replace=params.replace)
    return {"workflow": workflow.model_dump(mode="json", exclude_none=True), "path": str(path)}


@contextlib.contextmanager
def _saving() -> Iterator[None]:
    """Writing a workflow: each reason it cannot be written as the typed error the caller shows."""
    try:
        yield
    except TraceNotFound as exc:
        raise MethodError("no_such_run", str(exc)) from None
    except NotSaveable as exc:
        raise MethodError("not_saveable", str(exc)) from None
    except store.WorkflowExists as exc:
        raise MethodError("workflow_exists", str(exc)) from None
    except WorkflowInvalid as exc:
        raise MethodError("bad_params", str(exc)) from None


@method("workflow.save")
async def workflow_save(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Save a successful run as a workflow; one an MCP client saves waits for the user's review."""
    refuse_user_only(params, ctx, USER_ONLY_SAVE)
    refuse_others_run(ctx, str(params.get("run_id", "")))
    return save_run(_params(SaveParams, params), reviewed=ctx.client_id is None)


@method("workflow.record_draft")
async def workflow_record_draft(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The steps of a demonstration the side panel recorded, each target placed and its checks
    proposed, for the user to review (not a method MCP clients may call: host.control_server)."""
    try:
        return draft(_params(Demonstration, params)).model_dump(mode="json", exclude_none=True)
    except NotSaveable as exc:
        raise MethodError("not_saveable", str(exc)) from None


class CheckParams(BaseModel):
    """The parameters of `workflow.record_check`: one check as the verifier's predicate."""

    model_config = ConfigDict(extra="forbid")

    check: dict[str, Any]


@method("workflow.record_check")
async def workflow_record_check(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """A check the user changed or wrote in the review, validated and said in words; `invalid_check`
    says what is wrong with one that is not a check (not a method MCP clients may call)."""
    try:
        return edited_check(_params(CheckParams, params).check).model_dump(mode="json")
    except NotACheck as exc:
        raise MethodError("invalid_check", str(exc)) from None


@method("workflow.record_answer")
async def workflow_record_answer(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The step that reads an answer the user marked in the review on the recording's final page,
    with the words around it there; `not_saveable` when the page did not show it."""
    try:
        return marked_answer(_params(AnswerMark, params)).model_dump(mode="json", exclude_none=True)
    except NotSaveable as exc:
        raise MethodError("not_saveable", str(exc)) from None


@method("workflow.record_save")
async def workflow_record_save(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Save a reviewed recording as a workflow; refused, naming the step, while a step that
    changed the page has no check."""
    with _saving():
        workflow = workflow_of(_params(RecordedSave, params))
        path = store.write(workflow, replace=bool(params.get("replace")))
    return {"workflow": workflow.model_dump(mode="json", exclude_none=True), "path": str(path)}


@method("workflow.review")
async def workflow_review(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The user reviewed a workflow an MCP client saved (in the side panel): it may be replayed
    and offered as a tool from now on. Not a method MCP clients may call (host.control_server)."""
    workflow = _load(params.get("name"))
    workflow.reviewed = True
    workflow.updated = store.now()
    path = store.write(workflow, replace=True)
    return {"workflow": workflow.model_dump(mode="json", exclude_none=True), "path": str(path)}


@method("workflow.list")
async def workflow_list(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The saved workflows (name, description, task, steps, parameters)."""
    return {"workflows": store.listing(), "folder": str(store.workflows_dir())}


def _load(name: Any) -> Any:
    try:
        return store.load(str(name or ""))
    except store.WorkflowNotFound as exc:
        raise MethodError("no_such_workflow", str(exc)) from None
    except WorkflowInvalid as exc:
        raise MethodError("invalid_workflow", str(exc)) from None


@method("workflow.show")
async def workflow_show(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """One workflow and the path of its file (to edit by hand)."""
    workflow = _load(params.get("name"))
    return {"workflow": workflow.model_dump(mode="json", exclude_none=True), "path": str(store.path_of(workflow.name))}


@method("workflow.delete")
async def workflow_delete(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Delete a saved workflow."""
    try:
        path = store.delete(str(params.get("name") or ""))
    except store.WorkflowNotFound as exc:
        raise MethodError("no_such_workflow", str(exc)) from None
    except WorkflowInvalid as exc:
        raise MethodError("bad_params", str(exc)) from None
    return {"deleted": str(path)}


class ReplayParams(ModelParams):
    """The parameters of `workflow.run`."""

    name: str = Field(min_length=1)
    params: dict[str, str] = Field(default_factory=dict)
    start_url: str | None = None
    heal: bool = True
    screenshots: bool = False
    #: The MCP client that asked for this run: it types only the secrets the user granted it
    #: (the control socket sets it for a client's call, whatever the client sent).
    secret_client: str | None = None


def _heal_source(params: ReplayParams) -> Any:
    """Builds the healing executor on first need: the script's provider, else the executor chosen as `agent.run` chooses it."""

    async def build() -> LLMProvider:
        if params.script is not None:
            return MeasuredProvider(registry.create("scripted", "scripted", script=params.script))
        return MeasuredProvider(role_specs(params)[1].build())

    return build


@method("workflow.run")
async def workflow_run(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Replay a saved workflow to its summary, streaming its events."""
    refuse_user_only(params, ctx)
    replay_params: ReplayParams = _params(ReplayParams, params)
    workflow = _load(replay_params.name)
    if not workflow.reviewed:
        raise MethodError("workflow_not_reviewed", f"an MCP client saved the workflow {workflow.name}: "
                          "review it in Waymark's side panel before it runs")
    try:
        values = bind(workflow, replay_params.params)
    except ParamMissing as exc:
        raise MethodError("bad_params", str(exc)) from None
    executor_call = None
    if replay_params.script is None and (replay_params.provider or replay_params.executor or replay_params.model):
        executor_call = _call(role_specs(replay_params)[1])
    options = ReplayOptions(values=values, start_url=replay_params.start_url,
                            policy=run_policy(replay_params.policy, trusted=ctx.client_id is None),
                            file_folders=load_settings().file_folders,
                            screenshots=replay_params.screenshots, heal=replay_params.heal, max_chars=snapshot_chars(32_000),
                            secret_client=replay_params.secret_client,
                            **({"executor_call": executor_call} if executor_call else {}))
    run_id = new_run_id()
    state = _Run(run_id, ctx.client_id)
    note_run(ctx, run_id)
    replay = Replay(workflow, options, ctx.browser, human_for(StreamedHuman(state, ctx), ctx), executor_source=_heal_source(replay_params),
                    emit=ctx.notify, run_id=run_id)
    _RUNS[run_id] = state
    try:
        summary = await replay.run()
        return summary.model_dump()
    finally:
        _RUNS.pop(replay.run_id, None)
        for future in state.pending.values():
            future.cancel()
