"""The contract's assertions about what a Completion means, in one place so the suite and the
mutant tests (test_checks_catch_mutants.py) use the very same rules."""

from __future__ import annotations

from typing import Any

from waymark.host.agent.parsing import decision_from_tool_call, parse_decision
from waymark.providers.base import Capabilities, Completion, Usage


def decision_of(result: Completion) -> dict[str, Any]:
    """The executor decision a completion carries, native tool call or JSON in text."""
    if result.tool_calls:
        call = result.tool_calls[0]
        return decision_from_tool_call(call.name, call.arguments)
    return parse_decision(result.text or "")


def check_plain_text(result: Completion, text: str) -> None:
    """A text answer is that text, with no tool calls, finished normally."""
    assert result.text == text
    assert result.tool_calls == []
    assert result.finish_reason == "stop"


def check_tool_only(result: Completion, caps: Capabilities, decision: dict[str, Any]) -> None:
    """A tool-only answer: natively, one tool call, no text, finish "tool_calls"; in text mode,
    the text is the decision. Either way the decision is the one the backend gave."""
    if caps.native_tools:
        assert result.text is None, "a tool-only reply has no text"
        assert len(result.tool_calls) == 1
        assert result.finish_reason == "tool_calls"
    else:
        assert result.tool_calls == []
        assert result.finish_reason == "stop"
    assert decision_of(result) == decision


def check_tool_and_text(result: Completion, caps: Capabilities, text: str, decision: dict[str, Any]) -> None:
    """Text beside a tool call is kept, and the call still decides."""
    assert result.text is not None and text in result.text
    if caps.native_tools:
        assert result.text == text
        assert len(result.tool_calls) == 1
        assert result.finish_reason == "tool_calls"
    assert decision_of(result) == decision


def check_usage(result: Completion, expected: Usage | None) -> None:
    """Usage is what the backend counted, and None when it counted nothing: never invented."""
    assert result.usage == expected


def check_joined(joined: Completion, whole: Completion) -> None:
    """Streamed deltas joined mean the same as the complete answer (tool-call ids may differ)."""
    assert joined.text == whole.text
    assert [(c.name, c.arguments) for c in joined.tool_calls] == [(c.name, c.arguments) for c in whole.tool_calls]
    assert joined.finish_reason == whole.finish_reason
    assert joined.usage == whole.usage
