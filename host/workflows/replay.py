"""Replaying a workflow: each step's element found again by what a person sees, its action
dispatched with the usual settle, and the step judged by the agent's own step judge
(host.agent.step_judge) over its recorded checks, and the replay by the agent's own conclusion
(host.agent.proof, with every conclusion guard): one judge and one conclusion for a run and a
replay, so a check that holds only through the replay's typing, or a criterion that held before it
began, proves no more here than in a run.

No model is called while every step's element is found and its checks hold. When one is not found,
or its checks fail, the configured executor is asked for that step only (its intent and recorded
target as context), the step is proven as before, and the target it found is written back to the
workflow once the replay succeeds. Without a model the replay stops, naming the step and what it
looked for. Success needs what a normal run needs: every step done, the task's success criteria
holding on the final page, and something proving the replay did it (or, for a workflow that
answers something, its answer read again and found on the page).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.agent.action_lines import action_line
from waymark.host.agent.admission import Admission, Refusal
from waymark.host.agent.answers import Grounding
from waymark.host.agent.attempt import (
    Ended,
    Judged,
    Retry,
    StepEvent,
    StepOutcome,
    event,
)
from waymark.host.agent.confirm import Policy
from waymark.host.agent.executor import Executor
from waymark.host.agent.grammar import offered_on
from waymark.host.agent.guards import CONCLUSION, ConclusionGuard
from waymark.host.agent.host_actions import ended_unexpectedly
from waymark.host.agent.human import Human
from waymark.host.agent.loop import CallSettings
from waymark.host.agent.planner import Plan, PlanStep
from waymark.host.agent.prompts import snapshot_block
from waymark.host.agent.proof import Proof
from waymark.host.agent.redaction import (
    Redactor,
    SecretScope,
    placeholders,
    redact_url,
)
from waymark.host.agent.run_record import Emit, RunRecord
from waymark.host.agent.run_state import RunState
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.step_judge import StepJudge
from waymark.host.agent.trace import RunSummary, new_run_id
from waymark.host.agent.verdicts import RunOutcome
from waymark.host.agent.verifier import PAGE_TEXT
from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.core.actions import (
    ActionModel,
    Extract,
    Fill,
    Type,
    Wait,
    action_json,
    offered_actions,
    parse_action,
)
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import places_of
from waymark.host.workflows.answer_again import answer_again
from waymark.host.workflows.locate import Located, described, locate
from waymark.host.workflows.model import Answer, HealNote, Workflow, WorkflowStep, fill
from waymark.host.workflows.reread import unbound
from waymark.host.workflows.store import now
from waymark.providers.base import LLMProvider
from waymark.providers.errors import ProviderError

log = logging.getLogger(__name__)

#: Times a step's element is found again and its action dispatched, when the page re-rendered under the replay.
STALE_TRIES = 3
#: Actions that set a state (a value, a check, an address): repeating one cannot do it twice.
SETS_STATE = frozenset({"fill", "select", "check", "uncheck", "navigate"})
#: Builds the executor for healing, on the first step that needs it; raises ProviderError when none is configured.
ExecutorSource = Callable[[], Awaitable[LLMProvider]]


class ReplayOptions(BaseModel):
    """One replay's values and limits."""

    model_config = ConfigDict(extra="forbid")

    values: dict[str, str] = Field(default_factory=dict)
    #: Run from this address instead of the recorded one (a staging copy): recorded addresses of the
    #: recorded origin move to this one's.
    start_url: str | None = None
    policy: Policy = Field(default_factory=Policy)
    #: Folders whose files the replay may open as file: URLs (the user's settings); empty: none.
    file_folders: list[str] = Field(default_factory=list)
    screenshots: bool = False
    max_chars: int = Field(default=20_000, ge=500)
    #: Ask the executor for a step whose element or checks no longer match; off, such a step fails the replay.
    heal: bool = True
    #: Executor turns per step that needs healing.
    heal_attempts: int = Field(default=2, ge=1, le=5)
    executor_call: CallSettings = Field(default_factory=CallSettings)
    #: Write healed targets back to the workflow file when the replay succeeds.
    save_heals: bool = True
    #: An MCP client's replay: it types only the secrets the user granted that client.
    secret_client: str | None = None


class WorkflowSummary(RunSummary):
    """A replay's summary: a run summary (the same fields `waymark run --json` prints) and how the replay went."""

    workflow: str = ""
    #: Model calls made (healing only); 0 while every step matched.
    model_calls: int = 0
    steps_healed: int = 0
    #: unchanged: every step found by role and name and proven; healed: some step was found another
    #: way and proven; failed: the replay did not succeed.
    replay: str = ""
    #: One entry per healed step: {step, by, was, now, model_calls}.
    heals: list[dict[str, Any]] = Field(default_factory=list)


class ReplayFailed(Exception):
    """The replay stops: a step could not be done or proven."""

    def __init__(self, outcome: str, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


class StepDone(BaseModel):
    """How one replayed step ended."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    #: The step judge's verdict (passed or unproven).
    outcome: StepOutcome
    snapshot: Snapshot
    heal: HealNote | None = None
    healed_target: dict[str, Any] | None = None


def rebase(url: str, recorded_start: str, start: str | None) -> str:
    """`url` moved from the recorded start's origin to `start`'s (unchanged when either differs)."""
    if not start:
        return url
    old, new, here = urlsplit(recorded_start), urlsplit(start), urlsplit(url)
    if (here.scheme, here.netloc) != (old.scheme, old.netloc):
        return url
    return urlunsplit((new.scheme, new.netloc, here.path, here.query, here.fragment))


class Replay:
    """Replays one workflow to a WorkflowSummary. Cancel the task running `run()` to stop it."""

    def __init__(self, workflow: Workflow, options: ReplayOptions, bridge: BrowserBridge, human: Human,
                 executor_source: ExecutorSource | None = None, emit: Emit | None = None, run_id: str | None = None,
                 conclusion_guards: Sequence[ConclusionGuard] = CONCLUSION) -> None:
        """`conclusion_guards`: the rules the replay's success is judged by, as a run's (host.agent.guards.conclusion)."""
        self.workflow = workflow
        self.options = options
        self.values = options.values
        self.run_id = run_id or new_run_id()
        self.redactor = Redactor.for_run()
        #: The secrets the workflow types: those its steps name, each on the origin it was recorded typing on.
        self.secret_names = frozenset(n for step in workflow.steps for n in placeholders(str(step.action.get("text", ""))))
        self.record = RunRecord(self.run_id, self.redactor, emit)
        self.emit = self.record.emit
        self.session = BrowserSession(bridge, max_chars=options.max_chars, screenshots=options.screenshots)
        self.human = human
        self.task = str(fill(workflow.task, self.values))
        #: What decides every action of the replay, its heal turns' included, before it is sent (host.agent.admission).
        self.admission = self.session.admission = Admission(
            options.policy, human, self.redactor, SecretScope(named=self.secret_names, client=options.secret_client),
            self.session.own_tabs, task=self.task, file_folders=options.file_folders)
        self.executor_source = executor_source
        self._executor: Executor | None = None
        self._provider: LLMProvider | None = None
        self.tokens_in = self.tokens_out = self.model_calls = 0
        self.steps_passed = self.steps_verified = self.steps_unproven = self.step_counter = 0
        #: What the guards and the judge know of the replay: what it typed, its secret fills, its start page.
        self.state = RunState(self.task)
        #: What each step did, as the step judge writes it for a run's executor (healing reads none of it).
        self.history: list[str] = []
        self.proof = Proof(self.state, self._page_text, lambda: self.session.snapshot(occlusion=False), self.emit, self.record.found,
                           conclusion_guards)
        self.heals: list[dict[str, Any]] = []
        self.result = ""
        self.data: Any = None
        self.grounding: Grounding | None = None
        self.start_url = options.start_url or str(fill(workflow.start_url, self.values))

    # ------------------------------------------------------------ plumbing

    def _safe(self, snapshot: Snapshot) -> Snapshot:
        return self.redactor.snapshot(snapshot.model_copy(update={"screenshot_b64": None, "thumbnail_b64": None}))

    async def _page_text(self) -> str:
        result = await self.session.admit_and_act(PAGE_TEXT, snapshot_after=False)
        return result.text or "" if result.ok else ""

    # ------------------------------------------------------------ the replay

    async def run(self) -> WorkflowSummary:
        started = time.monotonic()
        self.emit("run", task=self.task, workflow=self.workflow.name, start_url=redact_url(self.start_url),
                  trace_dir=str(self.record.trace.dir), replay=True, policy=self.options.policy.model_dump())
        success, outcome, reason = False, "failed", ""
        try:
            try:
                success, outcome, reason = await self._run()
            finally:
                await asyncio.shield(self.session.release())
        except ReplayFailed as exc:
            outcome, reason = exc.outcome, exc.reason
        except ProviderError as exc:
            outcome, reason = "error", f"{type(exc).__name__}: {exc}"
        except BrowserError as exc:
            outcome, reason = "error", f"browser {exc.code}: {exc.message}"
        except BaseException as exc:  # cancelled, or a bug: either still leaves a summary and a trace behind
            outcome, reason = ended_unexpectedly(exc, log, "replay", self.run_id,
                                                 lambda why: self._finish(started, False, "cancelled", why))
        finally:
            if self._provider is not None:
                await self._provider.aclose()
        return self._finish(started, success, outcome, reason)

    def _finish(self, started: float, success: bool, outcome: str, reason: str) -> WorkflowSummary:
        replay = "failed" if not success else "healed" if self.heals else "unchanged"
        return self.record.summary(
            WorkflowSummary, success=success, duration_ms=round((time.monotonic() - started) * 1000, 1),
            tokens_total=self.tokens_in + self.tokens_out, tokens_in=self.tokens_in, tokens_out=self.tokens_out,
            steps_passed=self.steps_passed, steps_total=len(self.workflow.steps), steps_unproven=self.steps_unproven, task=self.task,
            outcome=outcome, reason=reason, result=self.result, data=self.data, grounding=self.grounding,
            workflow=self.workflow.name, model_calls=self.model_calls,
            steps_healed=len(self.heals), replay=replay, heals=self.heals,
        )

    async def _run(self) -> tuple[bool, RunOutcome, str]:
        try:
            await self.session.open(await self.admission.admit_open(self.start_url))
        except Refusal as refusal:
            raise ReplayFailed("blocked", f"the start URL is not allowed: {refusal.reason}") from None
        snap = await self.session.snapshot()
        self.admission.saw(snap)
        # The page before anything was done: what of the criteria holds here proves nothing, as in a run.
        self.state.began(snap, await self._page_text())
        await self.proof.began(snap)
        criteria = fill(self.workflow.success_criteria, self.values)
        steps = [PlanStep.model_construct(intent=s.intent, verify=fill(s.checks, self.values), required=True) for s in self.workflow.steps]
        if criteria:
            await self.proof.named(criteria, snap)
        await self.proof.planned(Plan.model_construct(steps=steps, success_criteria=criteria), snap)
        self.emit("plan", steps=[s.model_dump() for s in steps], success_criteria=criteria, tokens=0, workflow=self.workflow.name)
        healed_steps: dict[int, StepDone] = {}
        for index, step in enumerate(self.workflow.steps):
            done = await self._step(index, step, snap)
            snap = done.snapshot
            self.proof.stepped(index, done.outcome)
            self.steps_passed += 1
            self.steps_verified += done.outcome.proved_by in ("check", "typing", "navigation")
            self.steps_unproven += done.outcome.verdict == "unproven"
            if done.heal is not None:
                healed_steps[index] = done
        success, outcome, reason = await self.proof.conclude(snap, f"every step replayed and proven ({self.model_calls} model call(s))",
                                                             self.steps_verified, self.steps_unproven)
        if outcome == "failed":
            return success, outcome, reason
        healed_answer = await self._answer(self.workflow.answer, snap) if self.workflow.answer is not None else None
        if not success and self.workflow.answer is None:
            return success, outcome, reason
        if (healed_steps or healed_answer) and self.options.save_heals:
            self._save_heals(healed_steps, healed_answer)
        # An answer read again and found on the page proves a workflow that changed nothing, as a run's grounded answer does.
        return True, "done", reason if success else "every value of the answer was found on the page"

    async def _answer(self, saved: Answer, snap: Snapshot) -> Answer | None:
        """The saved answer read again on the final page (healed by the executor when a value cannot
        be), grounded as a run's answer is; the answer as this page shows it when it was healed."""
        safe = self._safe(snap)
        got = await answer_again(saved, self.values, safe, self.redactor.text(await self._page_text()), task=self.task,
                                 step_index=len(self.workflow.steps), executor=self._executor_for_heal,
                                 attempts=self.options.heal_attempts, timeout=self.options.executor_call.timeout_s)
        self.tokens_in += got.tokens_in
        self.tokens_out += got.tokens_out
        self.model_calls += got.model_calls
        self.emit("answer", changed=got.changed, missing=got.missing, model_calls=got.model_calls, healed=got.data is not None and got.model_calls > 0)
        if got.missing:
            why = ("healing is off for this replay" if not self.options.heal else got.heal_problem or "no model is configured to heal it")
            raise ReplayFailed("failed", "every step was replayed but the answer could not be read again: " + "; ".join(got.missing) + f"; {why}")
        self.data, self.grounding = got.data, got.grounding
        if got.model_calls:
            self.heals.append({"step": "answer", "by": "model", "model_calls": got.model_calls, "changed": got.changed})
        missing = self.grounding.missing() if self.grounding else []
        if self.grounding is None or missing or not self.grounding.grounded:
            raise ReplayFailed("unproven", "the answer read again is not found on the page"
                               + (f": {self.grounding.line(missing)}" if self.grounding and missing else ""))
        return unbound(got.healed, self.values) if got.healed is not None else None

    def _save_heals(self, healed: dict[int, StepDone], answer: Answer | None) -> None:
        """Write the targets found by healing back to the workflow, so the next replay finds them by
        name, and a healed answer's places, so the next replay reads it there."""
        from waymark.host.workflows import store

        try:
            current = store.load(self.workflow.name)
        except (store.WorkflowNotFound, ValueError):
            return  # replayed from a file elsewhere, or deleted meanwhile: nothing to update
        steps = list(current.steps)
        for index, done in healed.items():
            if index < len(steps) and done.healed_target is not None:
                steps[index] = WorkflowStep.model_validate({**steps[index].model_dump(), **done.healed_target,
                                                            "healed": done.heal.model_dump() if done.heal else None})
        update: dict[str, Any] = {"steps": steps, "updated": now()}
        if answer is not None and current.answer is not None:
            update["answer"] = answer
        store.write(current.model_copy(update=update), replace=True)

    # ------------------------------------------------------------ one step

    async def _step(self, index: int, step: WorkflowStep, snap: Snapshot) -> StepDone:
        template = fill(step.action, self.values)
        checks = fill(step.checks, self.values)
        # The step's checks as they stand before it acts, split by the run's own step judge.
        judge = StepJudge(self.session, self._page_text, self.record.found, self.state, self.history, step.intent)
        await judge.begin(checks, snap)
        looked_for = described(step.target) if step.target else ""
        problem = ""
        for _ in range(STALE_TRIES):
            located: Located | None = None
            if step.target is not None:
                located = locate(snap, step.target)
                if located is None:
                    problem = f"no element matches the recorded {looked_for}"
                    break
            action, located_to = self._bind(template, step, snap, located)
            if action is None:
                problem = f"no element matches the recorded {described(step.to_target) if step.to_target else 'drop target'}"
                break
            outcome = await self._attempt(index, step, snap, action, judge, checks, by=located.by if located else None, attempt=1)
            if outcome.ok:
                heal = None
                if located is not None and located.by != "name":
                    heal = HealNote(at=now(), by=located.by, was=step.target)
                return self._done(index, step, outcome, heal, located, located_to)
            problem, snap = outcome.reason, outcome.snapshot
            # Found again on the fresh snapshot, as the agent decides again on one: after stale_ref
            # nothing was dispatched (the page re-rendered the element as the replay found it), and
            # an action that sets a state cannot do it twice (a form re-rendered over a select).
            if outcome.code != "stale_ref" and not (outcome.code == "" and action.type in SETS_STATE):
                break
        return await self._heal(index, step, snap, template, judge, checks, problem, looked_for)

    def _bind(self, template: dict[str, Any], step: WorkflowStep, snap: Snapshot,
              located: Located | None) -> tuple[ActionModel | None, Located | None]:
        """The recorded action on today's elements (ref and to_ref from what was located)."""
        data = dict(template)
        if data.get("type") in ("navigate", "new_tab") and isinstance(data.get("url"), str):
            data["url"] = rebase(data["url"], str(fill(self.workflow.start_url, self.values)), self.options.start_url)
        if located is not None:
            data["ref"] = located.element.ref
        located_to = None
        if step.to_target is not None:
            located_to = locate(snap, step.to_target)
            if located_to is None:
                return None, None
            data["to_ref"] = located_to.element.ref
        return parse_action(data), located_to

    def _done(self, index: int, step: WorkflowStep, outcome: "_Attempt", heal: HealNote | None, located: Located | None,
              located_to: Located | None) -> StepDone:
        healed_target: dict[str, Any] | None = None
        if heal is not None:
            healed_target = places_of(outcome.action, outcome.before)
            self.heals.append({"step": index + 1, "by": heal.by, "was": described(step.target) if step.target else "",
                               "now": outcome.line, "model_calls": heal.model_calls})
        assert outcome.outcome is not None
        return StepDone(outcome=outcome.outcome, snapshot=outcome.snapshot, heal=heal, healed_target=healed_target)

    def _secret_scope(self, step: WorkflowStep) -> SecretScope:
        """The secrets a step may type: the workflow's, pinned to the origin the saved run typed them on."""
        text = str(step.action.get("text", ""))
        pinned = {n: step.secret_origin for n in placeholders(text)} if step.secret_origin else {}
        return SecretScope(named=self.secret_names, client=self.options.secret_client, pinned=pinned)

    async def _attempt(self, index: int, step: WorkflowStep, snap: Snapshot, action: ActionModel, judge: StepJudge,
                       checks: list[dict[str, Any]], *, by: str | None, attempt: int, model: dict[str, Any] | None = None) -> "_Attempt":
        """Dispatch one action for a step and judge it with the step judge; traced as a step event."""
        safe = self._safe(snap)
        self.step_counter += 1
        record: dict[str, Any] = {"step": self.step_counter, "plan_index": index, "attempt": attempt, "intent": step.intent,
                                  "verify": checks, "required": True, "action": action_json(action),
                                  "action_line": action_line(action, safe), "located_by": by or "", **places_of(action, safe),
                                  **(model or {"tokens": 0, "model_calls": 0})}
        timing: dict[str, float] = {}

        def finish(judged: StepEvent) -> None:
            """The attempt's step event, emitted once with the verdict it was given."""
            record.update(verdict=judged.verdict, reason=judged.reason, timing={k: round(v, 1) for k, v in timing.items()}, **judged.extra)
            self.emit("step", **record)

        def judged(attempted: Judged) -> _Attempt:
            """The step judge's verdict as the replay goes on with it: a passed or unproven step is done."""
            finish(attempted.event)
            match attempted:
                case Ended(snapshot=latest, outcome=outcome) if outcome.verdict in ("passed", "unproven"):
                    ok, reason = True, outcome.reason
                case Ended(snapshot=latest, outcome=outcome):
                    ok, reason = False, outcome.reason
                case Retry(snapshot=latest, feedback=feedback):
                    ok, reason = False, feedback or ""
            return _Attempt(ok=ok, outcome=outcome if ok else None, reason=reason, snapshot=latest, action=action, before=safe,
                            line=record["action_line"])

        if isinstance(action, Wait) and action.until is not None:
            return judged(await judge.wait_until(action, snap, timing, open_ended=False))
        approved = "approved for this workflow" if index + 1 in self.workflow.approved else None
        try:
            admitted = await self.admission.admit(action, snap, safe=safe, record=record, secrets=self._secret_scope(step), approved=approved)
        except Refusal as refusal:
            # A replay has no model to choose otherwise: any refusal stops it, named as for a run.
            verdict = refusal.outcome if refusal.ends else "refused"
            finish(event(verdict, str(refusal), error={"code": refusal.code, "message": refusal.message}))
            raise ReplayFailed(refusal.outcome, f"step {index + 1} ({step.intent}): {refusal}") from None
        action = admitted.chosen
        t0 = time.perf_counter()
        result = await self.session.act(admitted, screenshot=self.options.screenshots)
        timing["dispatch_ms"] = (time.perf_counter() - t0) * 1000
        record.update(path=result.path, settle_ms=result.settle_ms, navigated=result.navigated)
        if result.secret_origin:
            record["secret_origin"] = result.secret_origin
        if result.error is not None and result.error.code == "secret_origin_refused":
            # The page is not where the secret belongs (a look-alike site): no heal may try elsewhere.
            finish(event("refused", f"{result.error.code}: {result.error.message}", error=result.error.model_dump()))
            raise ReplayFailed("blocked", f"step {index + 1} ({step.intent}): {result.error.code}: {result.error.message}")
        self.admission.dispatched(result)
        try:
            self.admission.arrived(result.url_after, record["action_line"])
        except Refusal as refusal:
            finish(event("blocked", refusal.message, error={"code": refusal.code, "message": refusal.message}))
            raise ReplayFailed("blocked", refusal.message) from None
        settled = result.snapshot or await self.session.snapshot()
        if not result.ok:
            code, message = (result.error.code, result.error.message) if result.error else ("failed", "the action failed")
            finish(event("retry", f"{code}: {message}", error={"code": code, "message": message}))
            return _Attempt(ok=False, reason=f"the action failed with {code}: {message}", snapshot=settled, action=action, before=safe,
                            line=record["action_line"], code=code)
        if isinstance(action, (Fill, Type)):
            # What the replay typed, kept as a run keeps it: a check that only its typing makes hold
            # proves the typing, and a password field's check is answered by what it filled in.
            self.state.typed_into(snap.url, snap.find(action.ref), action, str(admitted.action.get("text", action.text)),
                                  secret=admitted.secret_origins is not None)
        if isinstance(action, Extract) and result.text is not None:
            self.result = result.text[:4000]
        return judged(await judge.after(action, result, settled, safe, self._safe(settled), f"- did: {record['action_line']}", timing,
                                        record, open_ended=False))

    # ------------------------------------------------------------ healing

    async def _executor_for_heal(self) -> Executor | None:
        if not self.options.heal or self.executor_source is None:
            return None
        if self._executor is None:
            try:
                self._provider = await self.executor_source()
            except ProviderError as exc:
                log.info("no executor to heal with: %s", exc)
                return None
            self._executor = Executor(self._provider, timeout=self.options.executor_call.timeout_s,
                                      temperature=self.options.executor_call.temperature)
        return self._executor

    async def _heal(self, index: int, step: WorkflowStep, snap: Snapshot, template: dict[str, Any], judge: StepJudge,
                    checks: list[dict[str, Any]], problem: str, looked_for: str) -> StepDone:
        """The executor picks this one step's action; its result is proven like any replayed step."""
        what = f"step {index + 1} ({step.intent})"
        executor = await self._executor_for_heal()
        if executor is None:
            why = "healing is off for this replay" if not self.options.heal else "no model is configured to heal it"
            raise ReplayFailed("failed", f"{what}: {problem}; {why}" + (f" (it looked for {looked_for})" if looked_for and looked_for not in problem else ""))
        context = (f"This step belongs to a saved workflow being replayed. It was recorded as {template.get('type')} on "
                   f"{looked_for or 'the page'}; now {problem}. Act on the element of this page that does what the step intends.")
        feedback = context
        calls = 0
        for attempt in range(1, self.options.heal_attempts + 1):
            safe = self._safe(snap)
            turn = await executor.decide(
                task=self.task, intent=step.intent, verify=checks, history=[], feedback=feedback,
                page=snapshot_block(safe.url, safe.title, safe.text, None), snapshot=safe, step_index=index, attempt=attempt,
                reminders=2, timeout=self.options.executor_call.timeout_s, allowed=offered_on(safe, offered_actions(multi_tab=False)),
                guards=self.state,
            )
            self.tokens_in += turn.tokens_in
            self.tokens_out += turn.tokens_out
            self.model_calls += turn.calls
            calls += turn.calls
            model: dict[str, Any] = {"tokens": turn.tokens, "model_calls": turn.calls, "healing": True}
            # What the guards held back before the heal's action was sent, as a run's step records it.
            self.record.found(model, turn.findings)
            if turn.decision is None or turn.decision.action.type in ("done", "ask_user"):
                feedback = f"{context} Answer with one action on the page."
                continue
            chosen = turn.decision.action
            # The model picks the element; the recorded action keeps its values (parameters, secrets).
            if chosen.type == template.get("type") and isinstance(getattr(chosen, "ref", None), int):
                data = {**template, "ref": chosen.ref}
                if getattr(chosen, "to_ref", None) is not None:
                    data["to_ref"] = chosen.to_ref
                chosen = parse_action(data)
            outcome = await self._attempt(index, step, snap, chosen, judge, checks, by="model", attempt=attempt + 1,
                                          model=model)
            if outcome.ok:
                return self._done(index, step, outcome, HealNote(at=now(), by="model", was=step.target, model_calls=calls), None, None)
            snap = outcome.snapshot
            feedback = f"{context} Your last action did not do it: {outcome.reason}."
        raise ReplayFailed("failed", f"{what}: {problem}; the executor could not do it in {self.options.heal_attempts} turn(s)"
                           + (f" (it looked for {looked_for})" if looked_for and looked_for not in problem else ""))


class _Attempt(BaseModel):
    """One dispatched action of a replayed step and how it was judged."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    ok: bool
    #: The step judge's verdict when the step is done (passed or unproven).
    outcome: StepOutcome | None = None
    reason: str = ""
    #: The action's error code when it failed (stale_ref: nothing was dispatched).
    code: str = ""
    snapshot: Snapshot
    action: Any
    before: Snapshot
    line: str = ""

