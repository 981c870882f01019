"""Workflows over MCP: `browser_save_workflow` saves a run that succeeded, and each saved workflow
is a tool of its own (`workflow_NAME`) whose input schema is its parameters; calling it replays
the workflow (no model while its steps match), streamed as progress like browser_run_task."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from waymark.host.mcp.registry import Content, Failed, Structured, Tool, ToolCall, text
from waymark.host.mcp.tools_task import streamed, summary_content
from waymark.host.workflows import store
from waymark.host.workflows.model import Workflow, WorkflowInvalid

#: Tool names of saved workflows start with this; the rest is the workflow's name.
PREFIX = "workflow_"


class SaveParams(BaseModel):
    """Arguments of browser_save_workflow."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(min_length=1, description="the run to save (the id its summary gave, or `latest`); it must have succeeded")
    name: str = Field(min_length=1, description="the workflow's name: lowercase letters, digits, - and _")
    description: str = Field(default="", description="what the workflow does, in words (shown to the user, who reviews it)")


async def save_workflow(params: Any, call: ToolCall) -> list[Content]:
    """Save the run on the host; the new tool appears in the next tools/list."""
    saved = await call.session.call("workflow.save", {"run_id": params.run_id, "name": params.name, "description": params.description})
    workflow = saved["workflow"]
    names = ", ".join(p["name"] for p in workflow.get("parameters", [])) or "none"
    tool = (f"the tool {PREFIX}{workflow['name']}" if workflow.get("reviewed", True)
            else f"the tool {PREFIX}{workflow['name']} once the user has reviewed it in Waymark's side panel")
    return [text(f"saved workflow {workflow['name']} ({len(workflow['steps'])} steps, parameters: {names}) as {tool}; file: {saved['path']}")]


def params_model(workflow: Workflow) -> type[BaseModel]:
    """The tool's arguments: one string per parameter (required when it has no default), and start_url.
    Their descriptions are fixed words and the parameter's name: whoever saved the workflow (an MCP
    client, maybe) does not write text another client's model reads as its tool's instructions."""
    fields: dict[str, Any] = {p.name: (str, Field(default=p.default, description=f"the value of {p.name}") if p.default is not None
                                       else Field(description=f"the value of {p.name}")) for p in workflow.parameters}
    fields["start_url"] = (str | None, Field(default=None, description="start here instead of the recorded address (a staging copy)"))
    return create_model(f"Workflow_{workflow.name.replace('-', '_')}", __config__=ConfigDict(extra="forbid"), **fields)


def workflow_tool(workflow: Workflow) -> Tool:
    """A saved workflow as a tool: calling it replays the workflow with the given parameters."""
    names = [p.name for p in workflow.parameters]

    async def run(params: Any, call: ToolCall) -> list[Content] | Structured | Failed:
        replay: dict[str, Any] = {"name": workflow.name, "params": {n: getattr(params, n) for n in names},
                                  "policy": call.session.policy.model_dump(), "secret_client": call.session.client,
                                  **{k: v for k, v in call.models.items() if k in ("script", "planner", "executor")}}
        if params.start_url:
            replay["start_url"] = params.start_url
        summary = await streamed("workflow.run", replay, call)
        figures = text(f"replay: {summary.get('replay')}, {summary.get('model_calls', 0)} model call(s), {summary.get('tokens_total', 0)} tokens")
        answer = summary_content(summary)
        if isinstance(answer, Failed):
            return Failed([*answer.content, figures])
        return [*answer, figures] if isinstance(answer, list) else answer

    # A fixed template and the name (NAME_PATTERN: letters, digits, - and _): the description and
    # task are words whoever saved the workflow wrote, never a tool's instructions.
    description = (f"Replay the saved workflow {workflow.name}: {len(workflow.steps)} steps, each proven by its recorded "
                   "checks; no model while they match. What it does is in its file (waymark workflow show).")
    return Tool(f"{PREFIX}{workflow.name}", description, params_model(workflow), run)


class NoParams(BaseModel):
    """browser_list_workflows takes no arguments."""

    model_config = ConfigDict(extra="forbid")


async def list_workflows(params: Any, call: ToolCall) -> Structured:
    """The saved workflows, each with its schedule and its last scheduled run: read-only (a client
    can neither make nor change a schedule; only the user does, with `waymark workflow schedule`)."""
    from waymark.host.workflows.schedule_view import rows

    schedules = {row["workflow"]: row for row in rows()}
    listed = [{**{k: w[k] for k in ("name", "steps", "updated", "reviewed", "error") if k in w},
               "schedule": schedules.get(str(w["name"]))} for w in store.listing()]
    lines = [f"{w['name']}: " + (f"{s['when']}{' (paused)' if s['paused'] else ''}, last run: "
                                 + (f"{s['last']['outcome']} at {s['last']['started']}" if s["last"] else "none yet")
                                 if (s := w["schedule"]) else "not scheduled") for w in listed]
    return Structured([text("\n".join(lines) or "no workflows are saved")], {"workflows": listed})


def workflow_tools() -> list[Tool]:
    """browser_save_workflow and one tool per saved workflow (read when the tools are listed)."""
    tools = [Tool("browser_save_workflow", "Save a run that succeeded (browser_run_task's) as a reusable workflow: it becomes "
                  "a tool of its own that replays it without a model while the page still matches.", SaveParams, save_workflow,
                  changes_tools=True),
             Tool("browser_list_workflows", "List the saved workflows with their schedules and the last result of each scheduled "
                  "run (read-only: schedules are made and changed by the user only).", NoParams, list_workflows)]
    for name in store.names():
        try:
            workflow = store.load(name)
        except (store.WorkflowNotFound, WorkflowInvalid):
            continue  # a broken file is no tool; `waymark workflow list` says what is wrong with it
        if workflow.reviewed:  # one an MCP client saved is a tool once the user reviewed it in the side panel
            tools.append(workflow_tool(workflow))
    return tools
