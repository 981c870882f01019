"""The one protocol schema: pydantic models for every message between extension and host.

Every message carries the envelope `{"v": 1, "type": ..., "id": ...}`. Requests carry an id
and replies echo it. `extension/shared/protocol.schema.json` is generated from these models
(`waymark schema`), and a test fails when the checked-in file is stale.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from waymark.host.core import PROTOCOL_VERSION


class Envelope(BaseModel):
    """Fields every message has."""

    model_config = ConfigDict(extra="forbid")

    v: Literal[1] = PROTOCOL_VERSION
    id: str | None = None


class ErrorInfo(BaseModel):
    """A typed failure: a stable machine code and a sentence for people."""

    model_config = ConfigDict(extra="forbid")

    code: str
    message: str


# ---------------------------------------------------------------- browser -> host


class HelloFromBrowser(Envelope):
    """The extension opens every connection with this handshake."""

    type: Literal["hello"]
    extension_version: str = "unknown"
    protocol: int = PROTOCOL_VERSION
    capabilities: list[str] = Field(default_factory=list)


class Ping(Envelope):
    type: Literal["ping"]


class Result(Envelope):
    """The extension's reply to a host request; `id` echoes the request's id."""

    type: Literal["result"]
    id: str
    ok: bool
    data: dict[str, Any] | None = None
    error: ErrorInfo | None = None


class BrowserEvent(Envelope):
    """Something the extension noticed without being asked (tab closed, dialog opened, ...)."""

    type: Literal["event"]
    name: str
    data: dict[str, Any] = Field(default_factory=dict)


class Call(Envelope):
    """A request from the extension (side panel, service worker) to a host method."""

    type: Literal["call"]
    id: str
    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class Cancel(Envelope):
    """Ask the host to cancel the call with this id (a stop button, a closed panel)."""

    type: Literal["cancel"]
    id: str


InboundMessage = Annotated[
    Union[HelloFromBrowser, Ping, Result, BrowserEvent, Call, Cancel],
    Field(discriminator="type"),
]

# ---------------------------------------------------------------- host -> browser


class HelloFromHost(Envelope):
    type: Literal["hello"] = "hello"
    host_version: str
    protocol: int = PROTOCOL_VERSION


class ControlHello(HelloFromHost):
    """The host's hello on a control connection (host.control_server): it also names the
    extension whose browser the caller reaches. The extension never sees it."""

    extension_version: str | None = None


class Pong(Envelope):
    type: Literal["pong"] = "pong"


class ErrorReply(Envelope):
    """The host's answer to a message it could not accept; it keeps serving."""

    type: Literal["error"] = "error"
    code: str
    message: str


class Chunk(Envelope):
    """One piece of a host-to-browser message too large for one frame (base64 of UTF-8 JSON)."""

    type: Literal["chunk"] = "chunk"
    chunk_id: str
    index: int = Field(ge=0)
    total: int = Field(ge=1)
    data: str


class BrowserRequest(Envelope):
    """A request the host sends to the extension; answered by a `result` with the same id."""

    type: Literal["request"] = "request"
    id: str
    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class Reply(Envelope):
    """The host's final answer to a `call`; `id` echoes the call's id."""

    type: Literal["reply"] = "reply"
    id: str
    ok: bool
    data: dict[str, Any] | None = None
    error: ErrorInfo | None = None


class Notify(Envelope):
    """A progress event for a running call (a streamed token, an agent step); `id` is the call's."""

    type: Literal["notify"] = "notify"
    id: str
    name: str
    data: dict[str, Any] = Field(default_factory=dict)


OutboundMessage = Annotated[
    Union[HelloFromHost, Pong, ErrorReply, Chunk, BrowserRequest, Reply, Notify],
    Field(discriminator="type"),
]
#: Any host-to-browser message, as the host's senders take it.
Outbound = Union[HelloFromHost, Pong, ErrorReply, Chunk, BrowserRequest, Reply, Notify]

INBOUND_TYPES = frozenset({"hello", "ping", "result", "event", "call", "cancel"})
OUTBOUND_TYPES = frozenset({"hello", "pong", "error", "chunk", "request", "reply", "notify"})

_inbound_adapter: TypeAdapter[Any] = TypeAdapter(InboundMessage)
_outbound_adapter: TypeAdapter[Any] = TypeAdapter(OutboundMessage)


class ProtocolError(Exception):
    """A well-formed frame that is not a valid message; `code` is sent back to the browser."""

    def __init__(self, code: str, message: str, message_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message_id = message_id


def parse_inbound(value: object) -> BaseModel:
    """Validate a decoded frame as a browser-to-host message, raising ProtocolError."""
    return _parse(value, _inbound_adapter, INBOUND_TYPES)


def parse_outbound(value: object) -> BaseModel:
    """Validate a decoded frame as a host-to-browser message (what a control client or a test
    standing in for Chrome reads), raising ProtocolError."""
    return _parse(value, _outbound_adapter, OUTBOUND_TYPES)


def _parse(value: object, adapter: TypeAdapter[Any], types: frozenset[str]) -> BaseModel:
    if not isinstance(value, dict):
        raise ProtocolError("schema_violation", f"a message must be a JSON object, got {type(value).__name__}")
    raw_id = value.get("id")
    message_id = raw_id if isinstance(raw_id, str) else None
    msg_type = value.get("type")
    if not isinstance(msg_type, str):
        raise ProtocolError("schema_violation", "message has no string 'type'", message_id)
    if value.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise ProtocolError("unsupported_version", f"protocol version {value.get('v')!r} is not supported (expected {PROTOCOL_VERSION})", message_id)
    if msg_type not in types:
        raise ProtocolError("unknown_type", f"unknown message type {msg_type[:64]!r}", message_id)
    try:
        message: BaseModel = adapter.validate_python(value)
        return message
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise ProtocolError("schema_violation", f"{msg_type}: {where}: {first['msg']}", message_id) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of both directions, as checked in under extension/shared/."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Waymark native-messaging protocol",
        "protocol": PROTOCOL_VERSION,
        "inbound": _inbound_adapter.json_schema(ref_template="#/inbound/$defs/{model}"),
        "outbound": _outbound_adapter.json_schema(ref_template="#/outbound/$defs/{model}"),
    }


def json_schema_text() -> str:
    """The schema file's exact text."""
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
