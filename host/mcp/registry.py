"""The tool table: each MCP tool is a name, a short description, a pydantic model of its
arguments (the input schema is generated from it) and the coroutine that runs it."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import mcp_types as types
from pydantic import BaseModel

from waymark.host.mcp.session import Confirm, McpSession

Content = types.TextContent | types.ImageContent
Progress = Callable[[float, float | None, str], Awaitable[None]]
#: Asks the client's user a question of Waymark's agent; their answer, or None when there is none.
Ask = Callable[[str], Awaitable[str | None]]


@dataclass
class ToolCall:
    """What a running tool may use besides its arguments."""

    session: McpSession
    confirm: Confirm
    progress: Progress
    ask: Ask
    #: The models of delegated tasks, as `agent.run` takes them (empty: the saved settings per role).
    models: dict[str, Any]


@dataclass
class Structured:
    """A tool's answer with structured content beside its text (a delegated task's `data` and grounding)."""

    content: list[Content]
    structured: dict[str, Any]
    #: The task it ran did not succeed: the client reads the verdict beside an error flag.
    is_error: bool = False


@dataclass
class Failed:
    """A tool's answer when what it was asked did not happen (an action that failed, a check that
    did not hold): the same content, marked `isError` so the client's model cannot read it as done."""

    content: list[Content]


Run = Callable[[Any, ToolCall], Awaitable["list[Content] | Structured | Failed"]]


@dataclass(frozen=True)
class Tool:
    """One MCP tool."""

    name: str
    description: str
    params: type[BaseModel]
    run: Run
    #: Fields of `params` the client does not give (an action's `type`, fixed by the tool).
    fixed: tuple[str, ...] = ()
    #: A call that succeeds changes the tool list (saving a workflow adds a tool): clients are told.
    changes_tools: bool = False

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, from the model, without the fixed fields."""
        schema = copy.deepcopy(self.params.model_json_schema())
        schema.pop("title", None)
        schema.pop("description", None)
        for field in schema.get("properties", {}).values():
            field.pop("title", None)  # the property's own name says it: fewer tokens per tool list
        for name in self.fixed:
            schema.get("properties", {}).pop(name, None)
            if name in schema.get("required", []):
                schema["required"].remove(name)
        schema.setdefault("properties", {})
        schema["type"] = "object"
        return schema

    def definition(self) -> types.Tool:
        """The tool as `tools/list` announces it."""
        return types.Tool(name=self.name, description=self.description, input_schema=self.input_schema())


def text(value: str) -> types.TextContent:
    """A text content block."""
    return types.TextContent(type="text", text=value)
