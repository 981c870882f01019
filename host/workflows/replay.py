"""Replaying a workflow: each step's element found again by what a person sees, its action
dispatched with the usual settle, and the step proven by its recorded checks on a fresh snapshot
or, where they cannot tell, by the state of the element it acted on (host.agent.target_state).

No model is called while every step's element is found and its checks hold. When one is not found,
or its checks fail, the configured executor is asked for that step only (its intent and recorded
target as context), the step is proven as before, and the target it found is written back to the
workflow once the replay succeeds. Without a model the replay stops, naming the step and what it
looked for. Success needs what a normal run needs: every step done, the task's success criteria
holding on the final page, and something proving the replay did it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.agent.action_lines import action_line
from waymark.host.agent.admission import Admission, Refusal
from waymark.host.agent.answers import Grounding
from waymark.host.agent.confirm import Policy
from waymark.host.agent.executor import Executor
from waymark.host.agent.grammar import offered_on
from waymark.host.agent.host_actions import ended_unexpectedly
from waymark.host.agent.human import Human
from waymark.host.agent.loop import CallSettings
from waymark.host.agent.prompts import snapshot_block
from waymark.host.agent.redaction import (
    Redactor,
    SecretScope,
    placeholders,
    redact_url,
)
from waymark.host.agent.run_record import Emit, RunRecord
from waymark.host.agent.session import BrowserSession
from waymark.host.agent.target_state import PROVEN_BY_STATE, target_state
from waymark.host.agent.trace import RunSummary, new_run_id
from waymark.host.agent.verifier import (
    PAGE_TEXT,
    Expectation,
    PredicateError,
    VerifyContext,
    failures_line,
    key,
    names_page_left,
    parse_predicate,
    parse_predicates,
)
from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.core.actions import (
    ActionModel,
    Extract,
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

    proven: bool
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
                 executor_source: ExecutorSource | None = None, emit: Emit | None = None, run_id: str | None = None) -> None:
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
        self.steps_passed = self.steps_proven = self.steps_unproven = self.step_counter = 0
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

    async def _run(self) -> tuple[bool, str, str]:
        try:
            await self.session.open(await self.admission.admit_open(self.start_url))
        except Refusal as refusal:
            raise ReplayFailed("blocked", f"the start URL is not allowed: {refusal}") from None
        snap = await self.session.snapshot()
        self.admission.saw(snap)
        criteria = parse_predicates(fill(self.workflow.success_criteria, self.values))
        context = VerifyContext(url_before=snap.url)
        start_text = await self._page_text() if criteria else ""
        held_at_start = {key(r.predicate) for r in Expectation(criteria, VerifyContext(url_before=snap.url, page_text=start_text)).once(snap).results
                         if r.ok}
        self.emit("plan", steps=[{"intent": s.intent, "verify": fill(s.checks, self.values), "required": True} for s in self.workflow.steps],
                  success_criteria=fill(self.workflow.success_criteria, self.values), tokens=0, workflow=self.workflow.name)
        healed_steps: dict[int, StepDone] = {}
        for index, step in enumerate(self.workflow.steps):
            done = await self._step(index, step, snap)
            snap = done.snapshot
            self.steps_passed += 1
            self.steps_proven += done.proven
            self.steps_unproven += not done.proven and bool(step.checks)
            if done.heal is not None:
                healed_steps[index] = done
        changed: list[str] = []
        if criteria:
            verdict = await Expectation(criteria, context, page_text=self._page_text).eventually(snap, self.session.snapshot,
                                                                                                 timeout=2.0, max_tries=3)
            changed = [key(r.predicate) for r in verdict.results if key(r.predicate) not in held_at_start]
            self.emit("criteria", ok=verdict.ok, checks=[r.model_dump() for r in verdict.results], held_at_start=sorted(held_at_start))
            failed = [r for r in verdict.failed() if not names_page_left(r, held_at_start)]
            if failed:
                return False, "failed", "every step was replayed but the task's success criteria fail: " + failures_line(failed)
        healed_answer = await self._answer(self.workflow.answer, snap) if self.workflow.answer is not None else None
        if not self.steps_proven and not changed and self.workflow.answer is None:
            return False, "unproven", ("nothing proves the workflow did its task: no step was proven by a check that changed, "
                                       "and no success criterion changed from failing to holding")
        if (healed_steps or healed_answer) and self.options.save_heals:
            self._save_heals(healed_steps, healed_answer)
        return True, "done", f"every step replayed and proven ({self.model_calls} model call(s))"

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
        predicates = parse_predicates(fill(step.checks, self.values))
        context = VerifyContext(url_before=snap.url)
        before = await Expectation(predicates, context, page_text=self._page_text).judge(snap) if predicates else None
        held = {key(r.predicate) for r in before.results if r.ok} if before else set()
        judged = [p for p in predicates if key(p.to_json()) not in held]
        expectation = Expectation(judged, context, page_text=self._page_text)
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
            outcome = await self._attempt(index, step, snap, action, expectation, judged, predicates,
                                          by=located.by if located else None, attempt=1)
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
        return await self._heal(index, step, snap, template, expectation, judged, predicates, problem, looked_for)

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
        return StepDone(proven=outcome.proven, snapshot=outcome.snapshot, heal=heal, healed_target=healed_target)

    def _secret_scope(self, step: WorkflowStep) -> SecretScope:
        """The secrets a step may type: the workflow's, pinned to the origin the saved run typed them on."""
        text = str(step.action.get("text", ""))
        pinned = {n: step.secret_origin for n in placeholders(text)} if step.secret_origin else {}
        return SecretScope(named=self.secret_names, client=self.options.secret_client, pinned=pinned)

    async def _attempt(self, index: int, step: WorkflowStep, snap: Snapshot, action: ActionModel, expectation: Expectation,
                       judged: list[Any], predicates: list[Any], *, by: str | None, attempt: int,
                       model: dict[str, Any] | None = None) -> "_Attempt":
        """Dispatch one action for a step and judge it; traced as a step event."""
        safe = self._safe(snap)
        self.step_counter += 1
        record: dict[str, Any] = {"step": self.step_counter, "plan_index": index, "attempt": attempt, "intent": step.intent,
                                  "verify": [p.to_json() for p in predicates], "required": True, "action": action_json(action),
                                  "action_line": action_line(action, safe), "located_by": by or "", **places_of(action, safe),
                                  **(model or {"tokens": 0, "model_calls": 0})}
        timing: dict[str, float] = {}

        def finish(verdict: str, reason: str = "", **extra: Any) -> None:
            record.update(verdict=verdict, reason=reason, timing={k: round(v, 1) for k, v in timing.items()}, **extra)
            self.emit("step", **record)

        if isinstance(action, Wait) and action.until is not None:
            return await self._wait(action, snap, expectation, record, finish)
        approved = "approved for this workflow" if index + 1 in self.workflow.approved else None
        try:
            admitted = await self.admission.admit(action, snap, safe=safe, record=record, secrets=self._secret_scope(step), approved=approved)
        except Refusal as refusal:
            # A replay has no model to choose otherwise: any refusal stops it, named as for a run.
            verdict = refusal.outcome if refusal.ends else "refused"
            finish(verdict, str(refusal), error={"code": refusal.code, "message": refusal.message})
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
            finish("refused", f"{result.error.code}: {result.error.message}", error=result.error.model_dump())
            raise ReplayFailed("blocked", f"step {index + 1} ({step.intent}): {result.error.code}: {result.error.message}")
        try:
            self.admission.arrived(result.url_after, record["action_line"])
        except Refusal as refusal:
            finish("blocked", refusal.message, error={"code": refusal.code, "message": refusal.message})
            raise ReplayFailed("blocked", refusal.message) from None
        settled = result.snapshot or await self.session.snapshot()
        settled = settled.model_copy(update={"screenshot_b64": None, "thumbnail_b64": None})
        if not result.ok:
            code, message = (result.error.code, result.error.message) if result.error else ("failed", "the action failed")
            finish("retry", f"{code}: {message}", error={"code": code, "message": message})
            return _Attempt(ok=False, reason=f"the action failed with {code}: {message}", snapshot=settled, action=action, before=safe,
                            line=record["action_line"], code=code)
        if isinstance(action, Extract) and result.text is not None:
            self.result = result.text[:4000]
        # Where the checks cannot tell, the page's word on the element acted on can, as in a run.
        moved = target_state(action, snap, settled, step.intent) if not judged else ""
        if moved:
            finish("passed", PROVEN_BY_STATE, target_state=moved)
            return _Attempt(ok=True, proven=True, snapshot=settled, action=action, before=safe, line=record["action_line"])
        if not predicates:
            finish("passed", "the action succeeded (the step has no checks)")
            return _Attempt(ok=True, proven=False, snapshot=settled, action=action, before=safe, line=record["action_line"])
        if not judged:
            finish("unproven", "every check of this step already held before it acted, so none proves it")
            return _Attempt(ok=True, proven=False, snapshot=settled, action=action, before=safe, line=record["action_line"])
        t1 = time.perf_counter()
        verdict = await expectation.eventually(settled, self.session.snapshot)
        timing["verify_ms"] = (time.perf_counter() - t1) * 1000
        latest = verdict.snapshot or settled
        checks = [r.model_dump() for r in verdict.results]
        if verdict.ok:
            finish("passed", "", checks=checks, changed=[r.predicate for r in verdict.results])
            return _Attempt(ok=True, proven=True, snapshot=latest, action=action, before=safe, line=record["action_line"])
        feedback = "the step's checks failed: " + verdict.failed_line()
        finish("retry", feedback, checks=checks)
        return _Attempt(ok=False, reason=feedback, snapshot=latest, action=action, before=safe, line=record["action_line"])

    async def _wait(self, action: Wait, snap: Snapshot, expectation: Expectation, record: dict[str, Any],
                    finish: Callable[..., None]) -> "_Attempt":
        try:
            predicate = parse_predicate(action.until or {})
        except PredicateError as exc:
            finish("failed", f"bad wait predicate: {exc}")
            raise ReplayFailed("failed", f"the workflow's wait has a bad predicate: {exc}") from None
        waited = await Expectation([predicate], expectation.context, page_text=self._page_text).eventually(
            snap, self.session.snapshot, timeout=action.timeout_ms / 1000, max_tries=20)
        latest = waited.snapshot or snap
        finish("passed" if waited.ok else "retry", "" if waited.ok else "the condition never held",
               checks=[r.model_dump() for r in waited.results])
        safe = self._safe(snap)
        return _Attempt(ok=waited.ok, proven=False, reason="" if waited.ok else "the awaited condition never held", snapshot=latest,
                        action=action, before=safe, line=record["action_line"])

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

    async def _heal(self, index: int, step: WorkflowStep, snap: Snapshot, template: dict[str, Any], expectation: Expectation,
                    judged: list[Any], predicates: list[Any], problem: str, looked_for: str) -> StepDone:
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
                task=self.task, intent=step.intent, verify=[p.to_json() for p in predicates], history=[], feedback=feedback,
                page=snapshot_block(safe.url, safe.title, safe.text, None), snapshot=safe, step_index=index, attempt=attempt,
                reminders=2, timeout=self.options.executor_call.timeout_s, allowed=offered_on(safe, offered_actions(multi_tab=False)),
            )
            self.tokens_in += turn.tokens_in
            self.tokens_out += turn.tokens_out
            self.model_calls += turn.calls
            calls += turn.calls
            model = {"tokens": turn.tokens, "model_calls": turn.calls, "healing": True}
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
            outcome = await self._attempt(index, step, snap, chosen, expectation, judged, predicates, by="model", attempt=attempt + 1,
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
    proven: bool = False
    reason: str = ""
    #: The action's error code when it failed (stale_ref: nothing was dispatched).
    code: str = ""
    snapshot: Snapshot
    action: Any
    before: Snapshot
    line: str = ""

