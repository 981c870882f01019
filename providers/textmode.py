"""JSON-in-text for backends without native tool calling: the tools become instructions and
tool-call history becomes plain messages, so the model answers with one Decision object that
providers.parsing.parse_decision reads."""

from __future__ import annotations

import json
import re

from providers.base import Message, TextPart, Tool


def tool_instructions(tools: list[Tool], tool_choice: str = "auto") -> str:
    """The instruction block that replaces native tools."""
    lines = [
        "Answer with exactly one JSON object and nothing else:",
        '{"thought": "<one short sentence>", "action": {"type": "<one of the actions below>", ...its fields}}',
        "Actions (type: description; fields as JSON Schema):",
    ]
    for tool in tools:
        if tool_choice not in ("auto", "required", "none") and tool.name != tool_choice:
            continue
        params = {k: v for k, v in tool.parameters.get("properties", {}).items() if k != "thought"}
        lines.append(f"- {tool.name}: {tool.description} {json.dumps(params, separators=(',', ':'))}")
    return "\n".join(lines)


def flatten_messages(messages: list[Message], tools: list[Tool], tool_choice: str = "auto") -> list[Message]:
    """Messages for a text-only backend: tools described in the system message, earlier tool
    calls written as the JSON the model would have answered, tool results as user messages."""
    out: list[Message] = []
    for msg in messages:
        if msg.role == "assistant" and msg.tool_calls:
            parts = [msg.plain_text()] if msg.plain_text() else []
            for call in msg.tool_calls:
                args = dict(call.arguments)
                thought = args.pop("thought", None)
                decision = {"action": {"type": call.name, **args}}
                if thought is not None:
                    decision = {"thought": thought, **decision}
                parts.append(json.dumps(decision))
            out.append(Message.text("assistant", "\n".join(parts)))
        elif msg.role == "tool":
            label = f"Result of {msg.name}" if msg.name else "Result"
            out.append(Message(role="user", content=[TextPart(text=f"{label}:\n")] + list(msg.content)))
        else:
            out.append(msg)
    if tools and tool_choice != "none":
        block = tool_instructions(tools, tool_choice)
        if out and out[0].role == "system":
            out[0] = Message(role="system", content=list(out[0].content) + [TextPart(text="\n\n" + block)])
        else:
            out.insert(0, Message.text("system", block))
    return out


_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """The answer without the reasoning some models write before it (`<think>...</think>` of
    DeepSeek-R1 and Qwen3 style models; an unclosed block runs to the end of the text)."""
    return _THINK.sub("", text).strip() if "<think>" in text.lower() else text
