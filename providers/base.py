"""The LLMProvider interface and the normalised request/response every provider speaks."""

from __future__ import annotations

import abc
from typing import Any, AsyncIterator, Literal

from pydantic import BaseModel, ConfigDict, Field

from waymark.providers.errors import Blocked


class TextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ImagePart(BaseModel):
    """An image given inline as base64 (screenshots travel as JPEG)."""

    type: Literal["image"] = "image"
    media_type: str = "image/jpeg"
    data_b64: str


Part = TextPart | ImagePart


#: Providers keep tool-call arguments that are not valid JSON under this key, so the decision
#: parser (host.agent.parsing) can say "malformed".
RAW_ARGUMENTS_KEY = "__raw_arguments__"


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any]
    #: Opaque backend data that must travel back with the call in later turns (Gemini's
    #: thought signature, base64). Never shown to anyone.
    signature: str | None = None


class Message(BaseModel):
    """One chat message. `tool` messages answer the assistant's tool call `tool_call_id`."""

    role: Literal["system", "user", "assistant", "tool"]
    content: list[Part] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @classmethod
    def text(cls, role: Literal["system", "user", "assistant", "tool"], text: str, **kw: Any) -> "Message":
        return cls(role=role, content=[TextPart(text=text)], **kw)

    def plain_text(self) -> str:
        """The message's text parts joined."""
        return "".join(p.text for p in self.content if isinstance(p, TextPart))


class Tool(BaseModel):
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class CompletionRequest(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    messages: list[Message]
    tools: list[Tool] = Field(default_factory=list)
    #: "auto", "none", "required", or the name of one tool.
    tool_choice: str = "auto"
    response_schema: dict[str, Any] | None = None
    max_tokens: int = 2048
    temperature: float | None = None
    #: Seconds for the whole call.
    timeout: float = 60.0
    #: What the agent knows about this call, for providers that act on structure rather than
    #: text (the scripted provider): "role" ("planner" | "executor" | "chat"), "step_index",
    #: "attempt". Never sent to a model. The page itself is not here: see host.core.page_in_view.
    metadata: dict[str, Any] = Field(default_factory=dict)


class Usage(BaseModel):
    input_tokens: int
    output_tokens: int


FinishReason = Literal["stop", "length", "tool_calls", "blocked", "error"]


class Completion(BaseModel):
    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: FinishReason = "stop"
    #: None where the backend reported no usage; never invented.
    usage: Usage | None = None
    model: str = ""
    latency_ms: float = 0.0

    def unless_refused(self, provider: str = "") -> "Completion":
        """This completion, or errors.Blocked carrying the refusal's text when the backend
        declined to answer (for callers that need an answer: the agent's planner and executor)."""
        if self.finish_reason == "blocked":
            raise Blocked(f"the model refused: {self.text or 'no reason given'}"[:500], provider=provider)
        return self


class Delta(BaseModel):
    """One streamed piece. The final delta carries finish_reason and usage (when known)."""

    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: FinishReason | None = None
    usage: Usage | None = None


class Capabilities(BaseModel):
    native_tools: bool
    json_schema: bool
    vision: bool
    streaming: bool
    context_tokens: int
    #: Computer-use mode: the model answers in coordinates of the screenshot each executor turn
    #: carries (providers.computer_use), so the executor shows it one every turn.
    screen: bool = False


class LLMProvider(abc.ABC):
    """What the agent calls. Implementations raise only providers.errors.ProviderError subclasses."""

    #: Registry name, e.g. "gemini", "openai_compat", "anthropic", "mlx", "scripted".
    name: str = ""

    def __init__(self, model: str) -> None:
        self.model = model

    @abc.abstractmethod
    def capabilities(self) -> Capabilities:
        """What this provider and model can do."""

    @abc.abstractmethod
    async def complete(self, request: CompletionRequest) -> Completion:
        """One whole completion."""

    @abc.abstractmethod
    def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        """The completion as deltas; joined, they equal `complete`'s result."""

    async def ping(self, timeout: float = 3.0) -> str:
        """The cheapest request that proves the backend answers (and takes the key); returns a
        short description. Raises ProviderError. In-process providers have nothing to reach."""
        return "in-process"

    async def model_ids(self, timeout: float = 3.0) -> list[str] | None:
        """The model names the backend lists, for a check that spends no tokens; None when it has
        no listing to ask (in-process providers, APIs without one). Raises ProviderError."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional: only providers holding connections override it
        """Release connections."""
