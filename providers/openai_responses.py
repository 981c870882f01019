"""OpenAI's computer-use model through the Responses API (`POST /responses`): the request with
the `computer_use_preview` tool sized to the screenshot, and the answer's items (messages,
function calls, computer calls) as one Completion. Used by openai_compat in computer-use mode;
chat completions have no computer tool."""

from __future__ import annotations

import json
from typing import Any

from waymark.host.core.actions import ACT_TOOL
from waymark.providers.base import (
    RAW_ARGUMENTS_KEY,
    Completion,
    CompletionRequest,
    FinishReason,
    ImagePart,
    Message,
    TextPart,
    ToolCall,
    Usage,
)
from waymark.providers.computer_use import (
    OPENAI_ENVIRONMENT,
    OPENAI_TOOL_TYPE,
    openai_action,
)

#: Why an answer is incomplete (incomplete_details.reason) -> the normalised finish reason.
_INCOMPLETE: dict[str, FinishReason] = {"max_output_tokens": "length", "content_filter": "blocked"}


def _content(msg: Message) -> str | list[dict[str, Any]]:
    if all(isinstance(p, TextPart) for p in msg.content):
        return msg.plain_text()
    return [{"type": "input_text", "text": p.text} if isinstance(p, TextPart)
            else {"type": "input_image", "image_url": f"data:{p.media_type};base64,{p.data_b64}"}
            for p in msg.content if isinstance(p, (TextPart, ImagePart))]


def body(request: CompletionRequest, model: str, display: tuple[int, int]) -> dict[str, Any]:
    """The Responses request: system text as instructions, the conversation as input items, the
    computer tool of the screenshot's size beside the request's own function tools."""
    system = "\n\n".join(m.plain_text() for m in request.messages if m.role == "system")
    items: list[dict[str, Any]] = []
    for msg in request.messages:
        if msg.role == "system":
            continue
        # The executor's turns are user prompts and, after an unusable answer, that answer as text.
        role = "assistant" if msg.role == "assistant" else "user"
        items.append({"role": role, "content": _content(msg) if role == "user" else msg.plain_text()})
    tools: list[dict[str, Any]] = [{"type": OPENAI_TOOL_TYPE, "display_width": display[0], "display_height": display[1],
                                    "environment": OPENAI_ENVIRONMENT}]
    tools += [{"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters} for t in request.tools]
    out: dict[str, Any] = {"model": model, "input": items, "tools": tools, "max_output_tokens": request.max_tokens,
                           # The computer-use model takes only automatic truncation.
                           "truncation": "auto"}
    if system:
        out["instructions"] = system
    if request.temperature is not None:
        out["temperature"] = request.temperature
    return out


def _arguments(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else (raw if isinstance(raw, dict) else {})
    except ValueError:
        return {RAW_ARGUMENTS_KEY: raw}
    return value if isinstance(value, dict) else {RAW_ARGUMENTS_KEY: raw}


def completion(data: dict[str, Any], model: str, latency_ms: float) -> Completion:
    """One Responses answer as a Completion; computer calls become the executor's `act` calls."""
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    for i, item in enumerate(data.get("output") or []):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    texts.append(part.get("text") or "")
                elif part.get("type") == "refusal":
                    refusals.append(part.get("refusal") or "")
        elif kind == "function_call":
            calls.append(ToolCall(id=item.get("call_id") or f"call_{i}", name=item.get("name") or "", arguments=_arguments(item.get("arguments"))))
        elif kind == "computer_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            calls.append(ToolCall(id=item.get("call_id") or f"call_{i}", name=ACT_TOOL,
                                  arguments=openai_action(action, item.get("pending_safety_checks"))))
    usage = data.get("usage")
    finish: FinishReason = "tool_calls" if calls else "stop"
    if data.get("status") == "incomplete":
        finish = _INCOMPLETE.get(str((data.get("incomplete_details") or {}).get("reason")), "error")
    if refusals:
        finish = "blocked"
    return Completion(
        text="".join(refusals or texts) or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=Usage(input_tokens=int(usage["input_tokens"]), output_tokens=int(usage["output_tokens"])) if isinstance(usage, dict) else None,
        model=data.get("model") or model,
        latency_ms=latency_ms,
    )
