"""The executor: one typed action per turn against the current snapshot.

Native tool calls where the provider has them (one tool per action type, the same for every
snapshot; a reply naming a ref the snapshot lacks is refused); JSON in text otherwise, through
the one hardened parser. A reply that cannot be used is answered with a reminder that names
what was wrong, a bounded number of times; when the same unusable reply comes back twice, the
model is asked afresh (without its own answer to copy) at a higher temperature, since repeating
the reminder only gets the same answer.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict

from waymark.host.agent import prompts, screen
from waymark.host.agent.answers import answer_instructions, constrained
from waymark.host.agent.grammar import (
    DecisionRejected,
    constrained_decision_schema,
    executor_tools,
    validate_decision,
)
from waymark.host.agent.guards import Finding
from waymark.host.agent.parsing import (
    ParseFailure,
    decision_from_tool_call,
    parse_decision,
    retry_reminder,
)
from waymark.host.agent.run_state import RunState
from waymark.host.core.actions import ACTION_TYPES, UPLOAD_ACTIONS, Decision
from waymark.host.core.page_in_view import showing
from waymark.host.core.snapshot import Snapshot
from waymark.providers.base import (
    CompletionRequest,
    ImagePart,
    LLMProvider,
    Message,
    TextPart,
)
from waymark.providers.computer_use import image_size


class ParseProblem(BaseModel):
    """One unusable reply and the reminder it was answered with."""

    kind: str
    detail: str
    reminder: str


class Turn(BaseModel):
    """The outcome of one executor turn."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    decision: Decision | None
    #: The model's raw output (text and tool calls) of the last call, for artifacts.
    raw: str
    tokens: int
    #: The split of `tokens`, over every call of the turn, the rejected answers included.
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int
    latency_ms: float
    problems: list[ParseProblem]
    native: bool
    #: Near-miss repairs and coercions applied to the accepted answer (see host.core.coercions).
    coercions: list[str] = []
    #: Every raw reply of this turn, the rejected ones included, for traces and eval rows.
    answers: list[str] = []
    #: What the before-dispatch guards found on this turn's answers (host.agent.guards).
    findings: list[Finding] = []


def _rejection_reminder(rejected: DecisionRejected) -> str:
    return (
        f"Your previous answer could not be used [{rejected.kind}]: {rejected.message}. "
        "Choose again: exactly one action, with a ref from the current snapshot."
    )


def _raw(completion: Any) -> str:
    parts = [completion.text or ""]
    for call in completion.tool_calls:
        parts.append(f"tool_call {call.name} {call.arguments}")
    return "\n".join(p for p in parts if p)


#: Temperature of the fresh try after the same unusable answer came back twice.
REPEAT_TEMPERATURE = 0.7


def _repeat_reminder(reminder: str) -> str:
    return ("Your earlier answers were the same and could not be used. Do not repeat them; " + reminder[0].lower() + reminder[1:])


class Executor:
    """Asks one provider for the next action."""

    def __init__(self, provider: LLMProvider, timeout: float = 90.0, temperature: float | None = None,
                 output_schema: dict[str, Any] | None = None) -> None:
        self.provider = provider
        #: The answer the caller asked for: said in every prompt, and the shape of done's data where output is constrained.
        self.output_schema = output_schema
        self.timeout = timeout
        self.temperature = temperature
        self.native = provider.capabilities().native_tools
        #: Computer-use mode: the screenshot goes with every turn and answers come in its coordinates.
        self.screen = provider.capabilities().screen

    async def decide(
        self, *, task: str, intent: str, verify: list[dict[str, Any]], history: list[str], feedback: str | None,
        page: str, snapshot: Snapshot, step_index: int, attempt: int, reminders: int, timeout: float | None = None,
        allowed: tuple[str, ...] = ACTION_TYPES, uploads: str = "", screenshot_b64: str | None = None, untyped: list[str] | None = None,
        guards: RunState | None = None,
    ) -> Turn:
        """One decision valid for `snapshot`, or `decision=None` after `reminders` unusable replies.
        Only the `allowed` actions are offered (tools, answer format, constraint) and accepted.
        In computer-use mode `screenshot_b64` (the numbered-overlay screenshot of `snapshot`) goes
        with the prompt, and typing without a ref is given the ref it means (host.agent.screen).
        With `guards`, each valid answer passes the before-dispatch guards: one that holds it back is
        answered like an unusable reply, and an advisory given the same answer again lets it through."""
        user = prompts.executor_user(task, intent, verify, history, feedback, page, text_mode=not self.native, allowed=allowed,
                                     uploads=uploads, untyped=untyped)
        if self.output_schema is not None:
            user += "\n\n" + answer_instructions(self.output_schema)
        shown = self.screen and screenshot_b64 is not None
        content: list[Any] = [TextPart(text=user)]
        if shown:
            content = [TextPart(text=user + "\n\n" + prompts.SCREEN_NOTE), ImagePart(data_b64=screenshot_b64 or "")]
        first = [
            Message.text("system", prompts.executor_system(secrets=prompts.mentions_secrets(task))),
            Message(role="user", content=content),
        ]
        image_width = image_size(screenshot_b64)[0] if shown and screenshot_b64 else 0
        messages = first
        temperature = self.temperature
        answers: list[str] = []
        tools = executor_tools(allowed) if self.native else []
        # In text mode, a server that constrains output to a schema cannot answer unparseable JSON.
        data_schema = constrained(self.output_schema) if self.output_schema is not None else None
        schema = (constrained_decision_schema(snapshot, allowed, data_schema) if not self.native and self.provider.capabilities().json_schema
                  else None)
        problems: list[ParseProblem] = []
        findings: list[Finding] = []
        tokens_in = tokens_out = 0
        raw = ""
        started = time.perf_counter()
        calls = 0
        for _ in range(reminders + 1):
            calls += 1
            request = CompletionRequest(
                messages=messages, tools=tools, tool_choice="required" if tools else "auto", response_schema=schema,
                timeout=timeout or self.timeout, temperature=temperature,
                metadata={"role": "executor", "step_index": step_index, "attempt": attempt, "task": task},
            )
            with showing(snapshot):
                completion = (await self.provider.complete(request)).unless_refused(self.provider.name)
            if completion.usage:
                tokens_in += completion.usage.input_tokens
                tokens_out += completion.usage.output_tokens
            raw = _raw(completion)
            answers.append(raw)
            coercions: list[str] = []
            try:
                if completion.tool_calls:
                    call = completion.tool_calls[0]
                    if len(completion.tool_calls) > 1:
                        raise ParseFailure("multi_root", f"{len(completion.tool_calls)} tool calls; call exactly one tool")
                    arguments = screen.dispatchable(call.arguments, snapshot, image_width, coercions) if shown else call.arguments
                    decision = decision_from_tool_call(call.name, arguments, coercions)
                else:
                    decision = parse_decision(completion.text or "", coercions)
                typed = validate_decision(decision, snapshot, coercions)
                if typed.action.type not in allowed:
                    why = "no upload folder is set" if typed.action.type in UPLOAD_ACTIONS else "this task has one tab"
                    raise DecisionRejected("not_offered", f"{typed.action.type} is not possible now ({why}); "
                                           f"choose one of: {', '.join(allowed)}")
                if guards is not None:
                    held, found = guards.before_dispatch(typed.action, snapshot)
                    findings += found
                    if held is not None:
                        insist = "; if this action is still right, give it again and it will be done" if held.strength == "advisory" else ""
                        raise DecisionRejected(held.code, held.message + insist)
            except ParseFailure as failure:
                reminder = retry_reminder(failure)
                problems.append(ParseProblem(kind=failure.kind, detail=failure.detail, reminder=reminder))
            except DecisionRejected as rejected:
                reminder = _rejection_reminder(rejected)
                problems.append(ParseProblem(kind=rejected.kind, detail=rejected.message, reminder=reminder))
            else:
                return Turn(decision=typed, raw=raw, tokens=tokens_in + tokens_out, tokens_in=tokens_in, tokens_out=tokens_out, calls=calls, latency_ms=(time.perf_counter() - started) * 1000,
                            problems=problems, native=self.native, coercions=coercions, answers=answers, findings=findings)
            if len(answers) > 1 and answers[-1] == answers[-2]:
                # A model shown its own answer tends to copy it: ask afresh, warmer, without it.
                temperature = max(REPEAT_TEMPERATURE, self.temperature or 0.0)
                messages = [*first, Message.text("user", _repeat_reminder(reminder))]
            else:
                # The reply goes back as text so every provider can read it; the reminder names the failure.
                messages = [*messages, Message.text("assistant", raw or "(empty answer)"), Message.text("user", reminder)]
        return Turn(decision=None, raw=raw, tokens=tokens_in + tokens_out, tokens_in=tokens_in, tokens_out=tokens_out, calls=calls, latency_ms=(time.perf_counter() - started) * 1000,
                    problems=problems, native=self.native, answers=answers, findings=findings)
