"""The scripted provider: deterministic answers from a JSON script, for tests, the demo and CI eval.

It acts on the request's structure (`metadata`) and the page in view (host.core.page_in_view, a
side channel only this provider reads), never on prompt text:

- role "planner": the plan `{"steps": [{"intent", "verify", "required"}], "success_criteria"?}` as JSON text. The first
  planner call gets the script's steps; replans (metadata "replan": true, or without that flag
  every later call) get `replan` (one plan, or a list used in order, the last repeated) or,
  without it, the same steps again.
- role "executor": the decision for `metadata["step_index"]` of the plan served last. An action's
  `target` `{role?, name?, name_contains?, text_contains?, nth?}` is resolved to a `ref` against
  the page in view (names compared case-insensitively with whitespace collapsed; nth is
  0-based in document order, see host.core.targets), so the real perception is exercised; a drag's
  `to_target` becomes its `to_ref` the same way. Coordinate actions (click_at, drag_at...) carry
  their screenshot pixels as written. With `request.tools` the
  decision is a native tool call (tool name = action type, arguments = the fields plus
  "thought"), otherwise JSON text. A target that matches nothing answers
  `done` with success false and a reason naming the target: the run fails visibly. An action's
  `url_in_text` (a regular expression) becomes its `url`: the first match in the page in view's
  text, followed by `url_suffix` (an agent that obeys a page copies the address it shows).
  Past the last step the answer is `done` (success true, result = the script's "result", data =
  its "data" when given: the answer for a program, checked against the run's output schema).
- role "chat" (or none): the next entry of the script's "chat" list (the last one repeats), or
  an echo that names the page title and the user's last message.

Per step, to exercise the agent's recovery paths, answered on the step's first calls in order:
`decision_text` (a string or list: raw answers, e.g. malformed JSON), then `fail_first` times
`wrong_action` (default `{"type": "wait", "ms": 0}`, which satisfies no verification), then the
action. A step's `error` (`{"kind": "rate_limited"|"timeout"|"unavailable"|"auth"|"bad_request"|
"context_too_long"|"blocked", "message"?, "retry_after"?, "times"?}`) raises the typed error on
its first `times` (default 1) calls before anything else. A step's `text` is sent beside its tool call.

Usage is None unless the script gives `usage` `{input_tokens, output_tokens}`: never invented.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any, AsyncIterator

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.core.actions import ACT_TOOL
from waymark.host.core.page_in_view import page_in_view
from waymark.host.core.phases import timed
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import Target, find_elements
from waymark.host.core.validation import problems
from waymark.providers import errors
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    LLMProvider,
    ToolCall,
    Usage,
)
from waymark.providers.retry import DEFAULT_POLICY, RetryPolicy


class ScriptError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    message: str = "scripted failure"
    retry_after: float | None = None
    times: int = Field(default=1, ge=1)


class ScriptStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: str
    action: dict[str, Any] | None = None
    verify: list[dict[str, Any]] = Field(default_factory=list)
    required: bool = True
    thought: str | None = None
    text: str | None = None
    decision_text: str | list[str] | None = None
    fail_first: int = Field(default=0, ge=0)
    wrong_action: dict[str, Any] = Field(default_factory=lambda: {"type": "wait", "ms": 0})
    error: ScriptError | None = None


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    steps: list[ScriptStep]
    success_criteria: list[dict[str, Any]] = Field(default_factory=list)


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    steps: list[ScriptStep]
    success_criteria: list[dict[str, Any]] = Field(default_factory=list)
    replan: Plan | list[Plan] | None = None
    chat: list[str] = Field(default_factory=list)
    result: str = ""
    #: The answer for a program, given as done's `data` beside `result` (None: no data).
    data: Any = None
    usage: Usage | None = None


_ERRORS: dict[str, type[errors.ProviderError]] = {
    "auth": errors.AuthError,
    "timeout": errors.Timeout,
    "unavailable": errors.Unavailable,
    "bad_request": errors.BadRequest,
    "context_too_long": errors.ContextTooLong,
    "blocked": errors.Blocked,
}


#: Script fields naming an element the way a person would, and the ref field each becomes.
_TARGET_FIELDS = {"target": "ref", "to_target": "to_ref"}


def load_script(script: dict[str, Any] | str | Path) -> Script:
    """Validate a script given as a dict or the path of a JSON file (raises BadRequest)."""
    try:
        if isinstance(script, (str, Path)):
            script = json.loads(Path(script).read_text(encoding="utf-8"))
        return Script.model_validate(script)
    except ValidationError as exc:
        raise errors.BadRequest(f"invalid script: {problems(exc)}", provider="scripted") from None
    except (OSError, ValueError) as exc:
        raise errors.BadRequest(f"invalid script: {exc}", provider="scripted") from None


def resolve_target(target: dict[str, Any], snapshot: Snapshot | None) -> int | None:
    """The ref of the element `target` means in `snapshot` (the first match unless `nth`), or None."""
    if snapshot is None:
        return None
    t = Target.model_validate(target)
    found = find_elements(snapshot, t.model_copy(update={"nth": t.nth or 0}))
    return found[0].ref if found else None


class ScriptedProvider(LLMProvider):
    """Deterministic provider driven by a script (see the module docstring)."""

    name = "scripted"

    def __init__(
        self,
        model: str = "scripted",
        *,
        script: dict[str, Any] | str | Path | None = None,
        retry: RetryPolicy | None = None,
        **_: Any,
    ) -> None:
        super().__init__(model or "scripted")
        #: Scripted errors go through the same retry policy as real ones.
        self.retry = retry or DEFAULT_POLICY
        self.script = load_script(script if script is not None else {"steps": []})
        self._plans_served = 0
        self._plan: list[ScriptStep] = self.script.steps
        self._calls: dict[int, int] = {}
        self._chat_calls = 0

    def capabilities(self) -> Capabilities:
        return Capabilities(native_tools=True, json_schema=True, vision=True, streaming=True, context_tokens=1_000_000)

    # -- answers

    def _next_plan(self, is_replan: bool | None) -> Plan:
        """The plan to serve. `is_replan` is the agent's metadata["replan"] when it says so;
        without it, every planner call after the first counts as a replan."""
        replan = self.script.replan
        first = Plan(steps=self.script.steps, success_criteria=self.script.success_criteria)
        if is_replan is False:
            self._plans_served = 0
        if self._plans_served == 0 or replan is None:
            plan = first
        elif isinstance(replan, list):
            plan = replan[min(self._plans_served - 1, len(replan) - 1)] if replan else first
        else:
            plan = replan
        self._plans_served += 1
        self._plan = plan.steps
        self._calls.clear()
        return plan

    def _planner(self, request: CompletionRequest) -> Completion:
        flag = request.metadata.get("replan")
        plan = self._next_plan(flag if isinstance(flag, bool) else None)
        body: dict[str, Any] = {"steps": [{"intent": s.intent, "verify": s.verify, "required": s.required} for s in plan.steps]}
        if plan.success_criteria:
            body["success_criteria"] = plan.success_criteria
        return Completion(text=json.dumps(body), finish_reason="stop")

    def _chat(self, request: CompletionRequest) -> Completion:
        if self.script.chat:
            answer = self.script.chat[min(self._chat_calls, len(self.script.chat) - 1)]
        else:
            page = page_in_view()
            title = (page.title if page else "") or "this page"
            last_user = next((m.plain_text() for m in reversed(request.messages) if m.role == "user"), "")
            answer = f'Scripted answer about "{title}": you said {last_user.strip()[:200]!r}.'
        self._chat_calls += 1
        return Completion(text=answer, finish_reason="stop")

    def _decision(self, step_index: int, step: ScriptStep | None, request: CompletionRequest) -> tuple[dict[str, Any], str | None]:
        """(decision, raw text to answer instead) for this call of the step."""
        if step is None:
            return {"thought": "all steps are done", "action": self._done()}, None
        call = self._calls.get(step_index, 0)
        self._calls[step_index] = call + 1
        if step.error is not None:
            if call < step.error.times:
                raise self._error(step.error)
            call -= step.error.times
        raw = [step.decision_text] if isinstance(step.decision_text, str) else list(step.decision_text or [])
        if call < len(raw):
            return {}, raw[call]
        call -= len(raw)
        action = dict(step.wrong_action if call < step.fail_first else step.action or self._done())
        thought = step.thought or step.intent
        if "url_in_text" in action:
            # An obedient agent copies an address the page shows: the first match of the pattern.
            pattern, suffix = action.pop("url_in_text"), action.pop("url_suffix", "")
            page = page_in_view()
            found = re.search(pattern, page.text) if page is not None else None
            if found is None:
                reason = f"scripted url_in_text {pattern!r} of step {step_index} matched nothing in the snapshot"
                return {"thought": reason, "action": {"type": "done", "result": reason, "success": False}}, None
            action["url"] = found.group(0) + suffix
        for key, field in _TARGET_FIELDS.items():
            if key not in action:
                continue
            target = action.pop(key)
            ref = resolve_target(target, page_in_view())
            if ref is None:
                reason = f"scripted {key} {json.dumps(target, sort_keys=True)} of step {step_index} matched nothing in the snapshot"
                return {"thought": reason, "action": {"type": "done", "result": reason, "success": False}}, None
            action[field] = ref
        return {"thought": thought, "action": action}, None

    def _done(self) -> dict[str, Any]:
        """The script's own answer: done with its result, and its data when it gives one."""
        done: dict[str, Any] = {"type": "done", "result": self.script.result, "success": True}
        if self.script.data is not None:
            done["data"] = self.script.data
        return done

    @staticmethod
    def _error(spec: ScriptError) -> errors.ProviderError:
        if spec.kind == "rate_limited":
            return errors.RateLimited(spec.message, retry_after=spec.retry_after, provider="scripted")
        cls = _ERRORS.get(spec.kind)
        if cls is None:
            return errors.BadRequest(f"unknown scripted error kind {spec.kind!r}", provider="scripted")
        return cls(spec.message, provider="scripted")

    def _executor(self, request: CompletionRequest) -> Completion:
        index = int(request.metadata.get("step_index", 0))
        step = self._plan[index] if 0 <= index < len(self._plan) else None
        decision, raw = self._decision(index, step, request)
        if raw is not None:
            return Completion(text=raw, finish_reason="stop")
        if request.tools and request.tool_choice != "none":
            action = dict(decision["action"])
            kind = action.pop("type")
            args = {**action, "thought": decision["thought"]}
            # As a model calls the tools it is offered: the one `act` tool names the action in its arguments.
            name = kind
            if any(tool.name == ACT_TOOL for tool in request.tools):
                name, args = ACT_TOOL, {"action": kind, **args}
            call = ToolCall(id=f"call_{index}_{self._calls.get(index, 0)}", name=name, arguments=args)
            return Completion(text=step.text if step else None, tool_calls=[call], finish_reason="tool_calls")
        return Completion(text=json.dumps(decision), finish_reason="stop")

    def _answer(self, request: CompletionRequest) -> Completion:
        role = request.metadata.get("role", "chat")
        if role == "planner":
            completion = self._planner(request)
        elif role == "executor":
            completion = self._executor(request)
        else:
            completion = self._chat(request)
        completion.model = self.model
        completion.usage = self.script.usage
        return completion

    # -- interface

    @timed("model")
    async def complete(self, request: CompletionRequest) -> Completion:
        started = time.perf_counter()

        async def attempt() -> Completion:
            await asyncio.sleep(0)  # a real await point, like every other provider
            return self._answer(request)

        completion = await self.retry.run(attempt)
        completion.latency_ms = (time.perf_counter() - started) * 1000
        return completion

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        completion = await self.complete(request)
        text = completion.text or ""
        # Several pieces, so consumers really join deltas.
        size = max(1, len(text) // 3)
        for i in range(0, len(text), size):
            yield Delta(text=text[i:i + size])
            await asyncio.sleep(0)
        yield Delta(tool_calls=completion.tool_calls, finish_reason=completion.finish_reason, usage=completion.usage)
