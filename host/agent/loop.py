"""One agent run: plan, then per step snapshot -> decide -> gate -> dispatch -> verify, with
repair, retries, replans and budgets; every attempt is a trace event and a streamed event.

A step passes only when its predicates hold on fresh browser state and at least one of them did
not hold before the step acted: a check that already held proves nothing, and a step whose checks
all held beforehand is `unproven` (the run goes on, but it never counts as verified). A failed
required step persists its evidence (snapshot, overlay screenshot, the model's raw output) and
triggers a bounded replan with that evidence; so does a URL check that nothing on the page leads
to, after one attempt instead of every retry.

The run succeeds only when the plan's task-level success criteria hold on the final page (a claimed
`done` that fails them is a failed run with the reason) and something about the task's outcome
proves the agent did it (host.agent.proof, host.agent.guards.conclusion). Otherwise it ends
`unproven`, never a success. A planner that gives no usable plan leaves a single step, the task itself, which
the executor works on until it says done.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.agent import guards
from waymark.host.agent.action_lines import action_line, landed_line
from waymark.host.agent.admission import Admission, Refusal
from waymark.host.agent.answers import Answers
from waymark.host.agent.attempt import (
    Attempted,
    Ended,
    Retry,
    StepEvent,
    StepOutcome,
    Stopped,
    event,
)
from waymark.host.agent.budgets import BudgetExhausted, Budgets, BudgetTracker
from waymark.host.agent.closing import closing_message
from waymark.host.agent.confirm import Policy
from waymark.host.agent.executor import Executor, Turn
from waymark.host.agent.grammar import offered_on
from waymark.host.agent.guards import CONCLUSION, ConclusionGuard
from waymark.host.agent.host_actions import (
    HOST_ACTION_HANDLERS,
    HostActions,
    RunStopped,
    ended_by,
    ended_unexpectedly,
)
from waymark.host.agent.human import Human
from waymark.host.agent.planner import (
    Plan,
    Planner,
    PlanStep,
)
from waymark.host.agent.planning import Planning, clipped
from waymark.host.agent.prompts import read_line, snapshot_block
from waymark.host.agent.proof import Proof
from waymark.host.agent.redaction import (
    Redactor,
    SecretScope,
    redact_url,
)
from waymark.host.agent.run_record import Emit, RunRecord
from waymark.host.agent.run_state import RunState
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.step_judge import StepJudge
from waymark.host.agent.task_values import untyped
from waymark.host.agent.trace import (
    RunSummary,
    digest,
    new_run_id,
)
from waymark.host.agent.verdicts import RunOutcome
from waymark.host.agent.verifier import (
    PAGE_TEXT,
    Expectation,
)
from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.core.actions import (
    ActionModel,
    Done,
    Extract,
    Fill,
    Type,
    Wait,
    action_json,
    offered_actions,
)
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.phases import timed
from waymark.host.core.snapshot import DialogSeen, Snapshot
from waymark.host.core.targets import places_of
from waymark.host.core.uploads import upload_summary
from waymark.providers.base import LLMProvider
from waymark.providers.errors import ProviderError

log = logging.getLogger(__name__)

class CallSettings(BaseModel):
    """How one role's model calls are made."""

    model_config = ConfigDict(extra="forbid")

    #: None: the provider's default.
    temperature: float | None = Field(default=None, ge=0, le=2)
    #: Seconds per model call (the run's wall clock bounds it too).
    timeout_s: float = Field(default=120.0, gt=0, le=3600)


class RunOptions(BaseModel):
    """What one run does and under which limits."""

    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, max_length=4000)
    start_url: str | None = None
    tab_id: int | None = None
    budgets: Budgets = Field(default_factory=Budgets)
    policy: Policy = Field(default_factory=Policy)
    #: Attach a numbered-overlay screenshot to each step's settled snapshot (for traces and the panel).
    screenshots: bool = True
    #: The folder upload_file takes files from (host.core.uploads); None: upload_file is not offered.
    upload_dir: str | None = None
    #: Folders whose files the run may open as file: URLs (the user's settings); empty: none.
    file_folders: list[str] = Field(default_factory=list)
    max_chars: int = Field(default=20_000, ge=500)
    planner_call: CallSettings = Field(default_factory=CallSettings)
    executor_call: CallSettings = Field(default_factory=CallSettings)
    #: Ask the planner for a plan. Off, the executor works on the whole task as one open step (for
    #: a model that acts well turn by turn but writes plans whose checks cannot hold); such a
    #: run's success is unproven unless the page shows evidence the planner would have named.
    plan: bool = True
    #: Vision mode: the executor may also act at points of the screenshot (click_at, drag_at...),
    #: for models that answer in coordinates; off, its tool stays as small as the ref actions make it.
    #: A computer-use executor (providers.computer_use) always has them.
    coordinates: bool = False
    #: The JSON Schema (Draft 2020-12) `done`'s data must match (host.agent.answers); None: no answer is asked for.
    output_schema: dict[str, Any] | None = None
    #: An MCP client's run: besides naming a secret, the task types it only where the user granted it that client.
    secret_client: str | None = None


class AgentRun:
    """Runs one task to a RunSummary. Cancel the task running `run()` to stop it at any point."""

    def __init__(
        self, options: RunOptions, bridge: BrowserBridge, planner: LLMProvider, executor: LLMProvider, human: Human,
        emit: Emit | None = None, run_id: str | None = None, conclusion_guards: Sequence[ConclusionGuard] = CONCLUSION,
    ) -> None:
        """`conclusion_guards`: the rules this run's claimed success is judged by (host.agent.guards.conclusion)."""
        self.options = options
        self.run_id = run_id or new_run_id()
        self.redactor = Redactor.for_run()
        #: The secrets this run may type: those its task names.
        self.secret_scope = SecretScope.of_task(options.task, options.secret_client)
        self.record = RunRecord(self.run_id, self.redactor, emit)
        self.trace, self.emit, self._found = self.record.trace, self.record.emit, self.record.found
        self.session = BrowserSession(bridge, tab_id=options.tab_id, max_chars=options.max_chars, screenshots=options.screenshots,
                                      upload_dir=options.upload_dir)
        #: What decides every action of the run before it is sent (host.agent.admission).
        self.admission = self.session.admission = Admission(options.policy, human, self.redactor, self.secret_scope,
                                                            self.session.own_tabs, task=options.task, file_folders=options.file_folders)
        self.planner = Planner(planner, timeout=options.planner_call.timeout_s, temperature=options.planner_call.temperature)
        self.executor = Executor(executor, timeout=options.executor_call.timeout_s, temperature=options.executor_call.temperature,
                                 output_schema=options.output_schema)
        #: The answer asked for, and the text of every page read to ground it.
        self.answers = Answers(options.output_schema)
        self.human = human
        self.budget = BudgetTracker(options.budgets)
        self.history: list[str] = []
        self.steps_passed = 0
        self.steps_verified = 0
        self.steps_unproven = 0
        self.steps_total = 0
        self.retries = 0
        self.step_counter = 0
        self.result = ""
        #: The intents of the steps that passed or acted, for the closing message.
        self.steps_done: list[str] = []
        self.last_raw = ""
        #: Tabs this task works in (the session's: those it started in or opened); the last of them is never closed.
        self.task_tabs = self.session.tabs
        #: What the run knows of itself that its guards, judge and conclusion read (host.agent.run_state):
        #: what it typed, the pages it reached, its secret fills, its start page, what its actions changed.
        self.state = RunState(options.task)
        #: The current step's checks, as they stood before it acted.
        self.judge = StepJudge(self.session, self._page_text, self._found, self.state, self.history)
        self.proof = Proof(self.state, self._page_text, lambda: self.session.snapshot(occlusion=False), self.emit, self._found,
                           conclusion_guards)
        self.planning = Planning(self.planner, options.task, options.plan, self.answers, self.budget, self.proof, self.history, self.emit,
                                 self._take_tokens, self._safe, self._page, lambda: self._timeout(options.planner_call),
                                 self._safe_text)
        self.host = HostActions(self.proof, self.answers, human, self.history, self.session, self.task_tabs, self.state, options.policy,
                                self.admission, self.redactor)

    # ------------------------------------------------------------ plumbing

    @timed("prompt")
    def _safe(self, snapshot: Snapshot) -> Snapshot:
        """The snapshot as prompts and traces may see it: no screenshot, no secret, no password value."""
        return self.redactor.snapshot(snapshot.model_copy(update={"screenshot_b64": None}))

    @timed("prompt")
    def _page(self, snapshot: Snapshot) -> str:
        return snapshot_block(snapshot.url, snapshot.title, snapshot.text, self.session.tab_id if len(self.task_tabs) > 1 else None)

    def _allowed(self, snap: Snapshot) -> tuple[str, ...]:
        """The actions offered this turn: tab switching and closing only when the task has tabs to
        switch, uploads only when the user set an upload folder, the coordinate actions only in vision
        mode or to a computer-use executor, actions on an element only when the page lists one."""
        return offered_on(snap, offered_actions(multi_tab=len(self.task_tabs) > 1, upload_folder=bool(self.options.upload_dir),
                                                coordinates=self.options.coordinates or self.executor.screen,
                                                downloads=bool(snap.downloads)))

    def _timeout(self, call: CallSettings) -> float:
        return max(1.0, min(call.timeout_s, self.budget.remaining_s()))

    async def _page_text(self) -> str:
        """The page's readable text, for text_present checks the element list cannot answer."""
        result = await self.session.admit_and_act(PAGE_TEXT, snapshot_after=False)
        text = result.text or "" if result.ok else ""
        self.answers.saw_text(result.url_after, "", self.redactor.text(text))
        return text

    async def _safe_text(self) -> str:
        """The page's readable text as prompts may see it: every secret redacted."""
        return self.redactor.text(await self._page_text())

    def _take_tokens(self, tokens_in: int, tokens_out: int) -> None:
        self.budget.add_tokens(tokens_in, tokens_out)

    # ------------------------------------------------------------ the run

    async def run(self) -> RunSummary:
        started = time.monotonic()
        outcome: RunOutcome = "failed"
        reason, success = "", False
        self.emit("run", task=self.options.task, start_url=redact_url(self.options.start_url), budgets=self.options.budgets.model_dump(),
                  policy=self.options.policy.model_dump(), trace_dir=str(self.trace.dir), snapshot_chars=self.options.max_chars,
                  output_schema=self.options.output_schema,
                  planner_call=self.options.planner_call.model_dump(), executor_call=self.options.executor_call.model_dump())
        # The wall clock bounds everything, the in-flight model or browser call included.
        clock = asyncio.timeout(self.options.budgets.wall_clock_s)
        try:
            async with clock:
                try:
                    success, outcome, reason = self.answers.judge(*await self._run())
                finally:
                    await asyncio.shield(self.session.release())
        except (TimeoutError, BudgetExhausted, RunStopped, ProviderError, BrowserError) as exc:
            outcome, reason = ended_by(exc, clock.expired(), self.options.budgets.wall_clock_s)
        except BaseException as exc:  # cancelled, or a bug: either still leaves a summary and a trace behind
            outcome, reason = ended_unexpectedly(exc, log, "run", self.run_id, lambda why: self._finish(started, False, "cancelled", why))
        return self._finish(started, success, outcome, reason)

    def _finish(self, started: float, success: bool, outcome: RunOutcome, reason: str) -> RunSummary:
        return self.record.summary(
            RunSummary, success=success, duration_ms=round((time.monotonic() - started) * 1000, 1), tokens_total=self.budget.tokens,
            tokens_in=self.budget.tokens_in, tokens_out=self.budget.tokens_out,
            steps_passed=self.steps_passed, steps_total=max(self.steps_total, self.steps_passed), steps_unproven=self.steps_unproven,
            task=self.options.task, outcome=outcome, reason=reason, result=self.result, replans=self.budget.replans,
            retries=self.retries, data=self.answers.data, grounding=self.answers.grounding)

    async def _run(self) -> tuple[bool, RunOutcome, str]:
        if self.options.start_url:
            try:
                await self.session.open(await self.admission.admit_open(self.options.start_url))
            except Refusal as refusal:
                raise RunStopped("blocked", f"the start URL is not allowed: {refusal.reason}") from None
        elif self.session.tab_id is None:
            await self.session.use_active_tab()
        snap = await self.session.snapshot()
        try:
            self.admission.starts_on(snap)
        except Refusal as refusal:
            raise RunStopped("blocked", refusal.message) from None
        if self.session.tab_id is not None:
            self.task_tabs.add(self.session.tab_id)
        # The page as it was before anything was done: success criteria that already held here prove nothing.
        self.state.began(snap, await self._page_text())
        await self.proof.began(snap)
        self.state.reached(snap.url)

        plan = await self.planning.plan(snap, None, self.steps_verified)
        self.steps_total = len(plan.steps)
        index = 0
        while True:
            while index < len(plan.steps):
                step = plan.steps[index]
                outcome, snap = await self._step(step, index, snap)
                self.proof.stepped(index, outcome)
                if outcome.verdict != "failed" or not step.required:
                    # What this step's actions changed matters only while it is retried or replanned.
                    self.state.step_ended()
                if outcome.verdict == "done":
                    self.result = outcome.result
                    if not outcome.success:
                        return await self.proof.gave_up(snap, outcome.reason)
                    return await self._conclude(snap, outcome.reason, Done(result=outcome.result))
                if outcome.verdict == "passed":
                    self.steps_passed += 1
                    self.steps_verified += outcome.proved_by in ("check", "typing", "navigation")
                    self.history.append(f"- step {self.steps_passed}: {step.intent} -> passed")
                    self.steps_done.append(step.intent)
                    index += 1
                    continue
                if outcome.verdict == "unproven":
                    self.steps_unproven += 1
                    self.history.append(f"- step: {step.intent} -> acted, but not proven (its checks held before it acted)")
                    self.steps_done.append(step.intent)
                    index += 1
                    continue
                if not step.required:
                    self.history.append(f"- optional step skipped: {step.intent} ({outcome.reason})")
                    index += 1
                    continue
                self.history.append(f"- step: {step.intent} -> failed ({outcome.reason[:200]})")
                evidence = await self.record.failure(
                    f"fail-{self.step_counter:03d}", self._safe(snap), self.last_raw, lambda: self.session.snapshot(screenshot=True),
                    {"failed_step": step.intent, "reason": outcome.reason, "url": snap.url, "attempts": outcome.attempts})
                plan = await self._replan(snap, evidence)
                index = 0
                if not plan.steps:
                    return await self._conclude(snap, "the new plan found nothing left to do")
            # A plan written while an overlay hid part of the page (a cookie wall before its
            # answer) could not plan for what it hid: its steps are done, the task may not be, and
            # the page now shows what is left. Nor did a plan whose steps all passed unproven, or
            # proven only by their elements' states, do anything a check saw: a new plan on the page
            # they reached reads what is left (host.agent.proof counts what it reads off that page
            # only beside work proven on the way). A plan that proved a step by a check is judged
            # as it is: a criterion may be a wrong guess, and a new plan can undo that work.
            hid = self.planning.hid
            why = (f"the last plan was made while an overlay hid {hid} element(s) of the page" if hid
                   else "no step of the last plan was proven by a check that changed" if self.steps_verified == self.planning.verified_before
                   else "")
            unmet = await self.proof.unmet(snap) if why else ""
            if not unmet or self.budget.replans >= self.options.budgets.max_replans:
                return await self._conclude(snap, "every step passed its checks")
            self.history.append(f"- every step of the plan was done, but the task is not: {unmet}")
            self.emit("plan_finished", unmet=unmet)
            plan = await self._replan(snap, {"plan_finished": True, "reason": f"the task's success criteria fail: {unmet}; {why}", "url": snap.url})
            index = 0
            if not plan.steps:
                return await self._conclude(snap, "the new plan found nothing left to do")

    async def _replan(self, snap: Snapshot, evidence: dict[str, Any]) -> Plan:
        """A new plan from this page for what is left, counted against the replan budget."""
        self.budget.take_replan()
        plan = await self.planning.plan(snap, evidence, self.steps_verified)
        self.steps_total = self.steps_passed + self.steps_unproven + len(plan.steps)
        return plan

    async def _conclude(self, snap: Snapshot, reason: str, claim: Done | None = None) -> tuple[bool, RunOutcome, str]:
        """The verdict on a run whose plan ended or whose executor claimed success (`claim`), with a
        closing message unless a read or the claim gave the result."""
        success, outcome, why = await self.proof.conclude(snap, reason, self.steps_verified, self.steps_unproven, claim)
        if not self.result:
            self.result = closing_message(self.steps_done, success, why)
        return success, outcome, why

    # ------------------------------------------------------------ one plan step

    async def _step(self, step: PlanStep, index: int, snap: Snapshot) -> tuple[StepOutcome, Snapshot]:
        self.judge = StepJudge(self.session, self._page_text, self._found, self.state, self.history, step.intent)
        await self.judge.begin(step.verify, snap)
        before, expectation = self.judge.before, self.judge.expectation
        feedback: str | None = None
        attempt = failures = 0
        while True:
            attempt += 1
            if feedback is not None:
                landed = None if step is self.planning.open_step else await self.judge.landed(snap)
                if landed is not None:
                    self._turnless_step(step, index, attempt, failures, landed.event)
                    return landed.outcome.model_copy(update={"attempts": attempt - 1}), snap
                # The last attempt failed; turns that went well (an answer, an open step acting) are no retries.
                failures += 1
                if not self.budget.retries_left(failures):
                    return StepOutcome(verdict="failed", reason=feedback, attempts=attempt - 1), snap
                self.retries += 1
            self.budget.take_step()
            self.step_counter += 1
            record = self._record(step, index, attempt, failures)
            if before is not None and attempt == 1:
                record["checks_before"] = [r.model_dump() for r in before.results]
            attempted = await self._traced_attempt(step, index, attempt, snap, expectation, feedback, record)
            match attempted:
                case Ended(snapshot=snap, outcome=outcome):
                    return outcome, snap
                case Retry(snapshot=snap, feedback=feedback):
                    continue
                case Stopped(outcome=stopped, reason=reason):
                    raise RunStopped(stopped, reason)

    @timed("step")
    async def _traced_attempt(self, step: PlanStep, index: int, attempt: int, snap: Snapshot, expectation: Expectation,
                              feedback: str | None, record: dict[str, Any]) -> Attempted:
        """One attempt and its step event, timed together: what a step costs the host includes its trace."""
        timing: dict[str, float] = {}
        try:
            attempted = await self._attempt(step, index, attempt, snap, expectation, feedback, record, timing)
        except BrowserError as exc:
            # The step that broke the run belongs in its trace.
            self._emit_step(record, timing, event("error", f"browser {exc.code}: {exc.message}",
                                                  error={"code": exc.code, "message": exc.message}))
            raise
        self._emit_step(record, timing, attempted.event)
        return attempted

    def _emit_step(self, record: dict[str, Any], timing: dict[str, float], judged: StepEvent) -> None:
        """An attempt's step event, emitted once: its record with the verdict its last stage gave."""
        record.update(verdict=judged.verdict, reason=judged.reason, timing={k: round(v, 1) for k, v in timing.items()}, **judged.extra)
        self.emit("step", **record)

    def _turnless_step(self, step: PlanStep, index: int, attempt: int, failures: int, judged: StepEvent) -> None:
        """The event of a step judged without a turn of the executor."""
        self.step_counter += 1
        self.emit("step", **self._record(step, index, attempt, failures), verdict=judged.verdict, reason=judged.reason, findings=[],
                  **judged.extra)

    def _record(self, step: PlanStep, index: int, attempt: int, failures: int) -> dict[str, Any]:
        """The start of a step event: which step, which attempt."""
        return {"step": self.step_counter, "plan_index": index, "attempt": attempt, "retries": failures, "intent": step.intent,
                "verify": step.verify, "required": step.required}

    async def _attempt(
        self, step: PlanStep, index: int, attempt: int, snap: Snapshot, expectation: Expectation, feedback: str | None,
        record: dict[str, Any], timing: dict[str, float],
    ) -> Attempted:
        """One executor turn at a step, ended by the first stage that judges it (its step event is
        the caller's to emit: `record` and `timing` gather what the stages saw)."""
        if self.executor.screen and not snap.screenshot_b64:
            # A model that answers in coordinates sees the page every turn (refs are stable: a new look, the same refs).
            snap = await self.session.snapshot(screenshot=True)
        safe = self._safe(snap)
        self.answers.saw_snapshot(safe)
        record["snapshot"] = {"digest": digest(safe.text), "chars": len(safe.text), "elements": len(safe.elements), "url": safe.url}
        if safe.dialogs:
            # The JavaScript dialogs the executor was shown with this page (redacted as the page is).
            record["dialogs_seen"] = [d.model_dump(exclude_none=True) for d in safe.dialogs]
        page = self._page(safe)
        if step is self.planning.open_step:
            # The step worked on until the executor says done gives the answer: a price or a
            # description is in the page's text, never in an element's name.
            text = await self.planning.text_for(safe)
            page = f"{page}\n\n{text}" if text else page
        t0 = time.perf_counter()
        turn: Turn = await self.executor.decide(
            task=self.options.task, intent=step.intent, verify=step.verify, history=self.history, feedback=feedback,
            page=page, snapshot=safe, step_index=index, attempt=attempt,
            reminders=self.options.budgets.retries_per_step, timeout=self._timeout(self.options.executor_call),
            allowed=self._allowed(safe), uploads=upload_summary(self.options.upload_dir),
            screenshot_b64=snap.screenshot_b64 if self.executor.screen else None,
            untyped=untyped(self.state.task_values, self.state.typed), guards=self.state,
        )
        timing["model_ms"] = (time.perf_counter() - t0) * 1000
        self._take_tokens(turn.tokens_in, turn.tokens_out)
        self.last_raw = turn.raw
        record.update(tokens=turn.tokens, model_calls=turn.calls, native_tools=turn.native,
                      parse_failures=[p.model_dump() for p in turn.problems], coercions=turn.coercions, answers=clipped(turn.answers))
        self._found(record, turn.findings)
        repeated = next((f for f in turn.findings if f.guard == "repeated_after_effect"), None)
        if turn.decision is None and repeated is not None:
            # The model holds to an action whose first send changed the page: a new plan is told what changed.
            return Ended(event("failed", repeated.message), snap, StepOutcome(verdict="failed", reason=repeated.message))
        if turn.decision is None:
            kinds = ", ".join(p.kind for p in turn.problems)
            return Retry(event("failed", f"no usable decision ({kinds})"), snap, f"your answers could not be used ({kinds}); answer with one valid action")
        action: ActionModel = turn.decision.action
        record.update(action=action_json(action), action_line=action_line(action, safe), thought=turn.decision.thought)
        record.update(places_of(action, safe))

        if action.traits.runs_in == "host":
            return await HOST_ACTION_HANDLERS[type(action)](self.host, action, step, attempt, snap, expectation, step is self.planning.open_step)

        if isinstance(action, Wait) and action.until is not None:
            return await self.judge.wait_until(action, snap, timing, open_ended=step is self.planning.open_step)

        admitted = await self.host.admit(action, snap, safe, record)
        if isinstance(admitted, (Retry, Stopped)):
            # The page gets nothing; the model is told why, as for any action that cannot be done.
            return admitted
        action = admitted.chosen
        t0 = time.perf_counter()
        record["tab_before"] = self.session.tab_id
        result = await self.session.act(admitted, screenshot=self.options.screenshots)
        timing["dispatch_ms"] = (time.perf_counter() - t0) * 1000
        # run_tabs: the tabs the run started in or opened, never one it only switched to (an MCP
        # client's scope grows by these alone, host/mcp_scope.py).
        record.update(path=result.path, settle_ms=result.settle_ms, navigated=result.navigated, tab_id=self.session.tab_id,
                      run_tabs=sorted(self.session.tabs))
        if result.downloads:
            # What the action downloaded, as Chrome reported it (the names are the page's: redacted as page text).
            record["downloads"] = self.redactor.obj([d.model_dump(exclude={"path"}) for d in result.downloads])
        if result.dialogs:
            record["dialogs"] = self.redactor.obj([DialogSeen.model_validate(d).model_dump(exclude_none=True) for d in result.dialogs])
        if result.secret_origin:
            record["secret_origin"] = result.secret_origin
        stopped = self.host.arrived(action, result, snap, safe, record)
        if stopped is not None:
            return stopped
        read = ""
        if result.text is not None and isinstance(action, Extract):
            self.result = result.text[:4000]
            self.answers.saw_text(snap.url, snap.title, self.redactor.text(result.text))
            # The model sees what it read: an extraction task's values are often in no element's name.
            read = read_line(self.redactor.text(result.text))
        if not result.ok:
            recovered = await self.host.recover(action, admitted, result, timing, record)
            if not isinstance(recovered, ActionResult):
                return recovered
            result = recovered

        still = guards.after_dispatch(self.state.view(), action, safe, result)
        if still:
            self._found(record, [still])
            self.history.append(f"- did: {action_line(action, safe)} -> moved nothing")
            return Retry(event("retry", f"{still.code}: {still.message}"), result.snapshot or snap, still.message)
        if isinstance(action, (Fill, Type)):
            self.state.typed_into(snap.url, snap.find(action.ref), action, str(admitted.action.get("text", "")),
                                  secret=admitted.secret_origins is not None)
        landed = landed_line(result, safe)
        if landed:
            record.update(action_line=record["action_line"] + landed, hit=result.hit.model_dump() if result.hit else None,
                          drop=result.drop.model_dump() if result.drop else None)
        did = f"- did: {action_line(action, safe)}{landed}{read}"
        settled = result.snapshot or await self.session.snapshot(screenshot=self.options.screenshots)
        if settled.screenshot_b64:
            record["screenshot"] = self.trace.artifact_b64(f"step-{self.step_counter:03d}.jpg", settled.screenshot_b64)
        if settled.dialog is not None:
            # The action opened a dialog the page waits on: its answer is part of this step, and
            # no check can read a page that answers nothing until then.
            self.history.append(f"{did} -> opened a {settled.dialog.type} dialog")
            return Retry(event("retry", f"the page opened a {settled.dialog.type} dialog and waits for its answer"), settled,
                         f"the page shows a {settled.dialog.type} dialog: answer it with answer_dialog as the task needs")
        return await self.judge.after(action, result, settled, safe, self._safe(settled), did, timing, record,
                                      open_ended=step is self.planning.open_step)
