"""JSON-in-text for backends without native tool calling: the tools become instructions and
tool-call history becomes plain messages, so the model answers with one Decision object that
host.agent.parsing.parse_decision reads."""

from __future__ import annotations

import json

from waymark.providers.base import Message, TextPart, Tool


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
            out.append(Message(role="user", content=[TextPart(text=f"{label}:\n"), *msg.content]))
        else:
            out.append(msg)
    if tools and tool_choice != "none":
        block = tool_instructions(tools, tool_choice)
        if out and out[0].role == "system":
            out[0] = Message(role="system", content=list(out[0].content) + [TextPart(text="\n\n" + block)])
        else:
            out.insert(0, Message.text("system", block))
    return out


_OPEN, _CLOSE = "<think>", "</think>"


def _partial_tag(text: str, tag: str) -> int:
    """How many characters at the end of `text` could begin `tag` (held back until the next piece)."""
    lowered = text.lower()
    return next((n for n in range(min(len(tag) - 1, len(text)), 0, -1) if tag.startswith(lowered[-n:])), 0)


class ReasoningCutter:
    """Cuts the reasoning some models write before their answer (`<think>...</think>` of
    DeepSeek-R1 and Qwen3 style models) out of text that arrives in pieces, so a streamed answer
    and a whole one read the same. An unclosed block runs to the end; the blank space after a
    block goes with it."""

    def __init__(self) -> None:
        self._held = ""
        self._inside = False
        self._after = False

    def feed(self, piece: str) -> str:
        """The visible text this piece completes."""
        text, out = self._held + piece, []
        self._held = ""
        while text:
            if self._inside:
                end = text.lower().find(_CLOSE)
                if end < 0:
                    keep = _partial_tag(text, _CLOSE)
                    self._held = text[len(text) - keep:] if keep else ""
                    break
                text, self._inside, self._after = text[end + len(_CLOSE):], False, True
                continue
            if self._after:
                text = text.lstrip()
                if not text:
                    break
                self._after = False
            start = text.lower().find(_OPEN)
            if start >= 0:
                out.append(text[:start])
                text, self._inside = text[start + len(_OPEN):], True
                continue
            keep = _partial_tag(text, _OPEN)
            out.append(text[:len(text) - keep])
            self._held = text[len(text) - keep:] if keep else ""
            break
        return "".join(out)

    def end(self) -> str:
        """What was held back, once the text is complete (nothing when it ended inside a block)."""
        held, self._held = self._held, ""
        return "" if self._inside else held


def strip_reasoning(text: str) -> str:
    """The answer without its `<think>` reasoning (see ReasoningCutter). A close with no open
    before it ends reasoning whose opening tag the chat template wrote into the prompt (Qwen3
    and DeepSeek-R1 templates do): the answer is what follows it."""
    lowered = text.lower()
    close = lowered.find(_CLOSE)
    if close >= 0 and _OPEN not in lowered[:close]:
        text = text[close + len(_CLOSE):].lstrip()
        lowered = text.lower()
    if _OPEN not in lowered:
        return text
    cutter = ReasoningCutter()
    return cutter.feed(text) + cutter.end()
