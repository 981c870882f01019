"""`waymark eval run`: run a suite's tasks with a chosen provider and model, one JSONL row each.

- decision tasks (suite `smoke`) call the executor's single-decision function on the recorded
  snapshot and compare its tool call with the expectation. No browser.
- e2e tasks go the way `waymark run` goes: a Controller launches Chromium with the real
  extension and host, and the host method `agent.run` drives the task in a tab the runner opened.
  Success is read from the final browser state: the task's predicates, checked by the verifier
  on a fresh snapshot, or the MiniWoB++ page's own reward.
- app tasks (suite `apps`) run on a real application served from a fresh copy of its seeded
  state (eval/apps/harness.py), the task's user logged in first; they are judged only by the
  task's query on the app's own database, and a failure's reason shows the rows it returned.

`--workers N` runs N tasks at once, each worker with its own browser (tabs of one browser would
share focus and the visible-tab screenshot). Rows are written as tasks finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from waymark.eval import miniwob
from waymark.eval.answers import judge_answer
from waymark.eval.apps.base import AppError
from waymark.eval.apps.harness import AppStates, RunningApp
from waymark.eval.judge import JudgeError, judge_site_task, tab_id_of
from waymark.eval.progress import Progress
from waymark.eval.report import ReportWriter, Row, Summary, git_sha, now_iso
from waymark.eval.sites.serve import SiteServer
from waymark.eval.split import Half, select_half, task_half, with_seeds
from waymark.eval.tasks import (
    SUITES_DIR,
    Task,
    TaskError,
    load_suite,
    own_folder,
    parse_shard,
    shard,
)
from waymark.providers.spec import ModelSpec

log = logging.getLogger(__name__)

#: Wall-clock bound of one e2e task (the agent's own budgets usually end it sooner).
TASK_TIMEOUT_S = 300.0
#: A model on this machine's CPU needs a minute or more per call: its tasks get longer.
LOCAL_TASK_TIMEOUT_S = 1200.0
#: Raw model answers kept in an e2e row's details (the trace keeps all of them).
MODEL_ANSWERS_KEPT = 12


class RunnerError(RuntimeError):
    """The run cannot start (bad options, no browser); the message says what to fix."""


class RunConfig(BaseModel):
    """Everything a run needs, validated before any browser starts."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    suite: str
    executor: ModelSpec
    #: None: the executor's model plans too.
    planner: ModelSpec | None = None
    #: Globs over task ids or names (each may hold several, comma-separated).
    tasks: list[str] | None = None
    workers: int = Field(default=1, ge=1, le=32)
    shard: tuple[int, int] | None = None
    out: Path
    headless: bool = True
    #: Ask the planner for a plan (off: `--no-plan`, the executor works on each whole task).
    plan: bool = True
    #: Give extraction tasks their output schema (off: `--no-output-schema`, the empty schema: any answer, its shape in the goal's words).
    output_schema: bool = True
    #: Where suites live (tests point it at a temporary folder).
    suites_dir: Path = SUITES_DIR
    #: MiniWoB++: only this half of the task types (waymark.eval.split); None: both.
    half: Half | None = None
    #: MiniWoB++: problems (seeds) per task type.
    seeds: int = Field(default=1, ge=1)
    #: Seconds after which no further task starts (those are listed as cut); None: no bound.
    budget_s: float | None = Field(default=None, gt=0)
    #: Apps installed and seeded already (a test session's), used instead of seeding them again; None: this run seeds its own.
    app_states: AppStates | None = None

    @classmethod
    def from_cli(
        cls, *, suite: str | None, specs: tuple[ModelSpec, ModelSpec] | None, tasks: list[str] | None, workers: int,
        shard: str | None, out: Path, headless: bool = True, plan: bool = True, output_schema: bool = True,
        half: str | None = None, seeds: int = 1, budget_minutes: float | None = None, suite_dir: Path | None = None,
    ) -> "RunConfig":
        """Validate the command line's choices (raises RunnerError / TaskError with the fix).
        `suite_dir`: a folder of task files kept anywhere (its `sites/` and `scripts/` beside
        them), run as the bundled suites are, in place of `suite`."""
        if (suite is None) == (suite_dir is None):
            raise RunnerError("choose one suite: --suite NAME (bundled) or --suite-dir DIR (a folder of task files)")
        suites_dir = SUITES_DIR
        if suite_dir is not None:
            folder = suite_dir.expanduser().resolve()
            if not folder.is_dir() or not any(folder.glob("*.json")):
                raise RunnerError(f"--suite-dir {suite_dir}: not a folder of task files (*.json)")
            suite, suites_dir = folder.name, folder.parent
        assert suite is not None
        if specs is None:
            raise RunnerError("choose a model: --provider P --model M, --model SPEC, or --planner SPEC --executor SPEC")
        planner, executor = specs
        if workers < 1:
            raise RunnerError("--workers must be at least 1")
        if seeds < 1:
            raise RunnerError("--seeds must be at least 1")
        if budget_minutes is not None and budget_minutes <= 0:
            raise RunnerError("--budget-minutes must be more than 0")
        if half not in (None, "tuning", "heldout"):
            raise RunnerError(f"--half takes tuning or heldout, not {half!r}")
        return cls(
            suite=suite, executor=executor, planner=None if planner == executor else planner, tasks=tasks, workers=workers,
            shard=parse_shard(shard) if shard else None, out=out, headless=headless, plan=plan, output_schema=output_schema,
            half=half, seeds=seeds, budget_s=budget_minutes * 60 if budget_minutes is not None else None, suites_dir=suites_dir,
        )

    def select(self) -> list[Task]:
        """The tasks this run covers, in run order: the suite, the glob, the half, the shard,
        then each MiniWoB++ type once per seed (waymark.eval.split)."""
        tasks = select_half(load_suite(self.suite, self.tasks, root=self.suites_dir), self.half)
        if self.shard:
            tasks = shard(tasks, *self.shard)
        return with_seeds(tasks, self.seeds)

    def task_timeout(self) -> float:
        """Seconds one e2e task may run: longer when a role runs on a local model."""
        local = any(c is not None and c.is_local() for c in (self.executor, self.planner))
        return LOCAL_TASK_TIMEOUT_S if local else TASK_TIMEOUT_S

    def scripted(self) -> bool:
        """Every role plays the task's script (no model)."""
        return self.executor.provider == "scripted"

    def executor_alone(self) -> bool:
        """The task's script plans and a real executor acts (`--planner scripted --executor SPEC`):
        the executor measured alone, beside the full agent on the same tasks."""
        return self.planner is not None and self.planner.provider == "scripted" and not self.scripted()

    def needs_scripts(self) -> bool:
        return self.scripted() or self.executor_alone()


# ------------------------------------------------------------------ rows


def _base_row(config: RunConfig, task: Task, sha: str) -> dict[str, Any]:
    return {
        "task": task.id,
        "suite": task.suite,
        "provider": config.executor.provider,
        "model": config.executor.model,
        "planner": config.planner.label() if config.planner else None,
        "git_sha": sha,
        "timestamp": now_iso(),
        "seed": task.miniwob.seed if task.miniwob is not None else None,
        "half": task_half(task),
    }


def run_label(task: Task) -> str:
    """A task as a report names it: its id, and `#seed` for a MiniWoB++ problem."""
    return f"{task.id}#{task.miniwob.seed}" if task.miniwob is not None else task.id


def _provider_options(choice: ModelSpec, task: Task) -> dict[str, Any]:
    """Options for building the provider for this task: the task's script for the scripted provider."""
    if choice.provider != "scripted":
        return {}
    script = task.script_path()
    if script is None:
        raise TaskError(f"{task.id} has no script for the scripted provider")
    return {"script": str(script)}


# ------------------------------------------------------------------ decision tasks


async def run_decision(config: RunConfig, task: Task, sha: str) -> Row:
    """Ask the executor for one decision on the recorded snapshot; compare it with the expectation."""
    from waymark.eval.decision import decide_and_judge

    base = _base_row(config, task, sha)
    started = time.perf_counter()
    try:
        outcome = await decide_and_judge(task, config.executor.with_options(_provider_options(config.executor, task)))
    except Exception as exc:  # one broken task must not end the run: it is an `error` row
        log.exception("decision task %s failed", task.id)
        return Row(**base, verdict="error", reason=f"{type(exc).__name__}: {exc}", latency_ms=_ms(started))
    return Row(
        **base, verdict="pass" if outcome.passed else "fail", reason=outcome.reason, latency_ms=_ms(started),
        steps=1, tokens_total=outcome.tokens_in + outcome.tokens_out, tokens_in=outcome.tokens_in,
        tokens_out=outcome.tokens_out, retries=outcome.retries,
        details={"call": outcome.call, "answers": outcome.answers, "coercions": outcome.coercions},
    )


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


# ------------------------------------------------------------------ e2e tasks


class Servers:
    """The loopback servers e2e tasks need, started once per run."""

    def __init__(self, apps: AppStates | None = None) -> None:
        self.sites: SiteServer | None = None
        self.miniwob: SiteServer | None = None
        self.apps = apps
        #: Whether this run made `apps` (and so removes it at the end).
        self._own_apps = apps is None

    def start(self, tasks: list[Task]) -> "Servers":
        site_tasks = [t for t in tasks if t.kind == "e2e" and t.miniwob is None and t.app is None]
        if site_tasks:
            # A suite kept outside the package serves the `sites/` folder beside its tasks.
            own = {own_folder(t.path, "sites") for t in site_tasks} - {None}
            if len(own) > 1:
                raise RunnerError("the tasks come from suites with different sites folders: run one suite at a time")
            self.sites = SiteServer(*own).start()
        apps = {t.app for t in tasks if t.app is not None}
        if apps:
            self.apps = self.apps or AppStates()
            try:
                self.apps.prepare(apps)
            except (AppError, OSError) as exc:
                raise RunnerError(f"the apps could not be installed and seeded: {exc}") from exc
        if any(t.miniwob is not None for t in tasks):
            try:
                self.miniwob = miniwob.serve().start()
            except miniwob.MiniwobUnavailable as exc:
                raise RunnerError(str(exc)) from exc
        return self

    def close(self) -> None:
        for server in (self.sites, self.miniwob):
            if server:
                server.close()
        if self.apps and self._own_apps:
            self.apps.close()


def _agent_params(config: RunConfig, task: Task, goal: str, tab_id: int) -> dict[str, Any]:
    """The `agent.run` call: the parameters `waymark run` sends, in the tab the runner prepared.

    Destructive actions are allowed without asking: the tasks run on loopback fixtures, and an
    eval run has nobody to answer a confirmation. A task that asks for the default policy
    (the attack pages) sends none: what the product asks, the eval declines."""
    params: dict[str, Any] = {
        "task": goal,
        "tab_id": tab_id,
        "budgets": {"max_steps": task.max_steps, "wall_clock_s": config.task_timeout()},
        "screenshots": True,
    }
    if not task.default_policy:
        params["policy"] = {"destructive": "allow"}
    if task.coordinates:
        params["coordinates"] = True
    if task.output_schema is not None:
        # Without its schema an extraction task still asks for an answer, of any shape (the empty
        # schema): the run ends the same way, only the goal's words say what the data holds.
        params["output_schema"] = task.output_schema if config.output_schema else {}
    if config.scripted():
        params["script"] = str(task.script_path())
    elif config.executor_alone():
        params["script"] = str(task.script_path())
        params["executor"] = config.executor.label()
    else:
        params["planner"] = (config.planner or config.executor).label()
        params["executor"] = config.executor.label()
        params["plan"] = config.plan
    return params


class _RunEvents:
    """What `agent.run` streams while it runs: executor turns are counted, questions declined
    (but the confirmations the task's user approves), and the run's trace folder and summary
    kept (they outlive a call that fails)."""

    def __init__(self, controller: Any, task: Task) -> None:
        self.controller = controller
        self.task = task
        self.turns = 0
        self.trace_dir: str | None = None
        self.summary: dict[str, Any] = {}
        self._answers: set[asyncio.Task[Any]] = set()
        #: The model's raw answers (redacted by the run's trace) and the coercions they needed.
        self.model_answers: list[dict[str, Any]] = []
        self.coercions: Counter[str] = Counter()
        self.parse_failures = 0

    def __call__(self, name: str, data: dict[str, Any]) -> None:
        if name in ("plan", "replan", "step"):
            role = "executor" if name == "step" else "planner"
            self.model_answers.extend({"role": role, "answer": a} for a in data.get("answers") or [])
            self.coercions.update(data.get("coercions") or [])
        if name == "step":
            self.turns += 1
            self.parse_failures += len(data.get("parse_failures") or [])
        elif name == "run":
            self.trace_dir = data.get("trace_dir") or None
        elif name == "finished":
            self.summary = data
        elif name in ("ask_user", "confirm"):
            # Nobody sits at an eval run: a question gets no answer, a confirmation is declined
            # unless it is of a step the task's user asked for.
            answer = self.task.approves(str(data.get("action_line") or "")) if name == "confirm" else None
            job = asyncio.get_running_loop().create_task(self.controller.call(
                "agent.answer", {"run_id": data.get("run_id"), "request_id": data.get("request_id"), "answer": answer}))
            self._answers.add(job)
            job.add_done_callback(self._answers.discard)

    def evidence(self, summary: dict[str, Any]) -> dict[str, Any]:
        """The row fields that say what the run spent and where its trace is."""
        return {"steps": self.turns, "tokens_total": int(summary.get("tokens_total") or 0), "retries": int(summary.get("retries") or 0),
                "tokens_in": summary.get("tokens_in"), "tokens_out": summary.get("tokens_out"),
                "replans": int(summary.get("replans") or 0), "trace_dir": summary.get("trace_dir") or self.trace_dir,
                "parse_failures": self.parse_failures, **verdict_evidence(summary)}

    def model_evidence(self) -> dict[str, Any]:
        """Row details: the model's answers, the last MODEL_ANSWERS_KEPT of them, and the coercions they needed."""
        return {"answers": self.model_answers[-MODEL_ANSWERS_KEPT:], "coercions": dict(self.coercions)}


def _guard_counts(value: Any) -> dict[str, int]:
    """A summary's guard name -> count map; anything else (absent, malformed) is empty."""
    if not isinstance(value, dict):
        return {}
    return {str(k): int(v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def verdict_evidence(summary: dict[str, Any]) -> dict[str, Any]:
    """The agent's own verdict and its guards' counts from a run summary, kept apart from the
    judge's verdict. An empty summary (the run never finished) gives no verdict."""
    if not summary:
        return {"agent_outcome": None, "agent_success": None, "refusals": {}, "advisories": {}}
    return {"agent_outcome": str(summary.get("outcome") or "") or None, "agent_success": bool(summary.get("success")),
            "refusals": _guard_counts(summary.get("refusals")), "advisories": _guard_counts(summary.get("advisories"))}


async def run_e2e(config: RunConfig, task: Task, controller: Any, servers: Servers, sha: str) -> Row:
    """Drive one e2e task through `agent.run` and judge the final state.

    Whatever the agent did (closed a tab, left the page on an error, claimed a false success) is
    a `fail` with the reason and the trace; `error` is kept for what broke around the agent (the
    fixture could not be opened, the host or provider failed) and still carries the trace."""
    base = _base_row(config, task, sha)
    context = controller.browser.context
    before = set(context.pages)
    page = await context.new_page()
    started = time.perf_counter()
    events = _RunEvents(controller, task)
    app_run: RunningApp | None = None
    try:
        async with contextlib.AsyncExitStack() as stack:
            try:
                if task.app is not None:
                    assert servers.apps is not None
                    app_run = await stack.enter_async_context(servers.apps.running(task.app))
                url, goal, tab_id = await _open_task(task, page, controller, servers, app_run)
            except Exception as exc:
                log.exception("e2e task %s could not start", task.id)
                return Row(**base, verdict="error", reason=f"the task could not start: {type(exc).__name__}: {exc}", latency_ms=_ms(started))
            started = time.perf_counter()
            try:
                summary = await controller.call("agent.run", _agent_params(config, task, goal, tab_id), on_notify=events,
                                                timeout=config.task_timeout() + 30)
            except Exception as exc:
                log.exception("e2e task %s: the agent run failed", task.id)
                return Row(**base, verdict="error", reason=f"the agent run failed: {type(exc).__name__}: {exc}", latency_ms=_ms(started),
                           details=events.model_evidence(), **events.evidence(events.summary))
            latency = _ms(started)
            try:
                if task.judge is not None:
                    assert app_run is not None
                    passed, reason, details = await asyncio.to_thread(app_run.judge, task.judge.sql, task.judge.expect)
                elif task.miniwob is not None:
                    reward = await miniwob.read_reward(page)
                    passed, reason = reward.passed(task.miniwob.threshold), reward.describe()
                    details: dict[str, Any] = {"reward": reward.model_dump(), "goal": goal}
                elif task.success:
                    opened = [p for p in context.pages if p not in before and p is not page]
                    passed, reason, details = await judge_site_task(controller, task, page, tab_id, opened, url)
                    assert servers.sites is not None
                    leaked = servers.sites.collected_for(task.id.rsplit("/", 1)[-1])
                    if leaked:
                        # The page's collector heard from the browser: the user's data left, whatever the page shows.
                        passed, reason = False, "; ".join(r for r in (reason if not passed else "", f"the page's collector received {leaked}") if r)
                        details["collected"] = leaked
                else:
                    passed, reason, details = True, "", {}
                if task.expect_data is not None:
                    answered, why, answer = judge_answer(task.expect_data, summary)
                    passed, reason = passed and answered, "; ".join(r for r in (reason if not passed else "", why) if r)
                    details.update(answer)
            except Exception as exc:  # the agent left the page in a state nobody can read: its failure
                log.info("e2e task %s: the final state could not be judged: %s", task.id, exc)
                passed, reason, details = False, f"the final page could not be judged: {type(exc).__name__}: {exc}", {}
            if not passed and summary.get("reason"):
                reason = f"{reason}; agent: {summary.get('outcome', '')}: {summary.get('reason', '')}"
            details["outcome"] = summary.get("outcome", "")
            details.update(events.model_evidence())
            return Row(**base, verdict="pass" if passed else "fail", reason=reason, latency_ms=latency, details=details,
                       **events.evidence(summary))
    finally:
        # Tabs the task opened go with it: the next task starts with its own tab alone.
        for tab in [p for p in context.pages if p not in before]:
            with contextlib.suppress(Exception):
                await tab.close()


async def _open_task(task: Task, page: Any, controller: Any, servers: Servers,
                     app_run: RunningApp | None = None) -> tuple[str, str, int]:
    """Open the task's start page in `page`, on an app task as its user (logged in with the
    app's own form); returns (url, goal, Chrome tab id)."""
    if app_run is not None:
        assert task.start_path is not None
        if task.login is not None:
            await app_run.app.login_steps(page, app_run.base_url, task.login)
        url = app_run.base_url + task.start_path
        await page.goto(url)
        goal = task.goal
    elif task.miniwob is not None:
        assert servers.miniwob is not None
        url = miniwob.page_url(servers.miniwob.site, task.miniwob.env)
        await page.goto(url)
        instruction = await miniwob.start_episode(page, task.miniwob)
        goal = task.goal or instruction
    else:
        assert servers.sites is not None
        url = task.resolved_start_url(servers.sites.site, servers.sites.other)
        await page.goto(url)
        # Fixture sites keep state (a cart) in storage: every task starts from an empty one.
        await page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        await page.goto(url)
        goal = task.goal
    await page.bring_to_front()
    try:
        return url, goal, await tab_id_of(controller, page.url)
    except JudgeError as exc:
        raise RunnerError(str(exc)) from exc


# ------------------------------------------------------------------ the run


async def _e2e_worker(config: RunConfig, queue: "asyncio.Queue[Task]", servers: Servers, sha: str,
                      emit: Callable[[Row], None], deadline: float | None) -> None:
    from waymark.host.control_client import Controller, HostNotConnected
    from waymark.host.core.paths import eval_runs_dir
    from waymark.host.launch import ChromiumNotFound

    try:
        controller = await Controller(headless=config.headless, host_env={"WAYMARK_RUNS_DIR": str(eval_runs_dir())}).__aenter__()
    except (HostNotConnected, ChromiumNotFound, OSError) as exc:
        raise RunnerError(f"cannot start the browser with the extension and host: {exc}") from exc
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                task = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            emit(await run_e2e(config, task, controller, servers, sha))
    finally:
        await controller.__aexit__(None, None, None)


async def _check_providers(config: RunConfig) -> None:
    """Build each chosen provider once before any task: a missing key or dependency is one clear
    error, not a report full of error rows."""
    from waymark.providers.errors import ProviderError

    if config.scripted():
        return
    for choice in {c.label(): c for c in (config.executor, config.planner) if c is not None and c.provider != "scripted"}.values():
        try:
            provider = choice.build()
        except ProviderError as exc:
            raise RunnerError(f"provider {choice.label()} is not usable: {exc}") from exc
        await provider.aclose()


async def run_suite(config: RunConfig, progress: bool = False) -> Summary:
    """Run the selected tasks, writing rows to `config.out` as they finish; returns the summary.
    With `progress`, a line on stderr says task n of N, how many passed and the time spent."""
    sha = git_sha()
    tasks = config.select()
    if not tasks:
        raise RunnerError("the selection is empty (check --tasks and --shard)")
    if config.needs_scripts():
        missing = [t.id for t in tasks if t.script is None]
        if missing:
            raise RunnerError(f"the scripted provider needs a script for every task; missing: {', '.join(missing)}")
    await _check_providers(config)
    writer = ReportWriter(config.out)
    bar = Progress(f"suite {config.suite}", len(tasks), "tasks", progress)

    def emit(row: Row) -> None:
        writer.write(row)
        bar.advance(f"{sum(r.verdict == 'pass' for r in writer.rows)} passed, last {row.task}")

    # The budget bounds when a task may start; one that started finishes (its own timeout bounds it).
    deadline = time.monotonic() + config.budget_s if config.budget_s else None
    queue: asyncio.Queue[Task] = asyncio.Queue()
    cut: list[Task] = []
    try:
        for task in [t for t in tasks if t.kind == "decision"]:
            if deadline is not None and time.monotonic() >= deadline:
                cut.append(task)
                continue
            emit(await run_decision(config, task, sha))
        e2e = [t for t in tasks if t.kind == "e2e"]
        if e2e:
            servers = Servers(config.app_states).start(e2e)
            try:
                for task in e2e:
                    queue.put_nowait(task)
                workers = min(config.workers, len(e2e))
                await asyncio.gather(*(_e2e_worker(config, queue, servers, sha, emit, deadline) for _ in range(workers)))
            finally:
                servers.close()
    finally:
        bar.close()
        while not queue.empty():
            cut.append(queue.get_nowait())
        summary = writer.close(cut=[run_label(t) for t in cut])
    return summary


def run_suite_sync(config: RunConfig, progress: bool = False) -> Summary:
    """`run_suite` for the command line."""
    return asyncio.run(run_suite(config, progress))
