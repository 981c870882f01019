"""Workflows in the eval harness: each sites task is run fresh (`agent.run`, by its script or by a
model), saved as a workflow,
replayed on the same site, and replayed on a changed copy of it (eval.site_variants) to measure
healing. Per task: tokens, model calls and wall time of the fresh run and of each replay; over
the suite: replays that pass unchanged, heal (and with how many model calls), or fail.

The task's own success predicates join the workflow's success criteria, so a replay succeeds only
when the eval's judge would pass it: a replay that reports success with them failing is counted
as a false success (there must be none). Everything runs with its own config folder (workflows,
the secrets the tasks type), so the user's are never touched.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from waymark.eval.answers import judge_answer
from waymark.eval.runner import LOCAL_TASK_TIMEOUT_S
from waymark.eval.site_variants import make_variant
from waymark.eval.sites.serve import SiteServer
from waymark.eval.tasks import Task, load_suite

log = logging.getLogger(__name__)


#: `heal_model` {"script": SCRIPT_HEAL}: each task heals with its own script.
SCRIPT_HEAL = "<the task's script>"


class Attempt(BaseModel):
    """One fresh run or replay of a task."""

    success: bool = False
    run_id: str = ""
    outcome: str = ""
    reason: str = ""
    #: Wall time of the call, as the caller saw it (browser tab opening included).
    wall_ms: float = 0.0
    duration_ms: float = 0.0
    tokens_total: int = 0
    model_calls: int = 0
    #: Replays: unchanged | healed | failed; heals: {step, by, was, now, model_calls}.
    replay: str = ""
    heals: list[dict[str, Any]] = Field(default_factory=list)
    #: The answer given (`data`) and where each value of it was found, as the run's summary says.
    data: Any = None
    grounding: dict[str, Any] | None = None


class WorkflowRow(BaseModel):
    """A task's fresh run, its replay, and its replay on the changed site."""

    task: str
    fresh: Attempt
    saved: bool = False
    save_error: str = ""
    replay: Attempt | None = None
    variant: Attempt | None = None
    #: A replay reported success while the eval's judge (the task's success predicates on its final page) failed it.
    false_success: bool = False
    #: The judge's word on each replay that reported success.
    judged: dict[str, str] = Field(default_factory=dict)


class _Counter:
    """Counts the model calls a run streams: one per planner answer, the executor's per step."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, name: str, data: dict[str, Any]) -> None:
        if name in ("plan", "replan") and not data.get("fallback"):
            self.calls += 1
        elif name == "step":
            self.calls += int(data.get("model_calls") or 0)


async def _clean_storage(controller: Any, url: str) -> None:
    """The fixture sites keep state (a cart) in storage: every run starts from an empty one."""
    page = await controller.browser.context.new_page()
    try:
        await page.goto(url)
        await page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    finally:
        await page.close()


async def _attempt(controller: Any, method: str, params: dict[str, Any], timeout: float) -> Attempt:
    counter = _Counter()
    started = time.perf_counter()
    try:
        summary = await controller.call(method, params, on_notify=counter, timeout=timeout)
    except Exception as exc:  # the host or browser broke: an attempt that failed, with the reason
        return Attempt(outcome="error", reason=f"{type(exc).__name__}: {exc}", wall_ms=(time.perf_counter() - started) * 1000)
    return Attempt(success=bool(summary.get("success")), run_id=str(summary.get("run_id", "")), outcome=str(summary.get("outcome", "")), reason=str(summary.get("reason", "")),
                   wall_ms=round((time.perf_counter() - started) * 1000, 1), duration_ms=float(summary.get("duration_ms", 0.0)),
                   tokens_total=int(summary.get("tokens_total", 0)),
                   model_calls=int(summary.get("model_calls", counter.calls)), replay=str(summary.get("replay", "")),
                   heals=list(summary.get("heals", [])), data=summary.get("data"), grounding=summary.get("grounding"))


def _secrets_of(task: Task, workflow: Any) -> dict[str, str]:
    """The values the task's script typed into the steps the workflow keeps as secrets (the eval
    knows them: they are the task's own words)."""
    from waymark.host.agent.redaction import PLACEHOLDER

    path = task.script_path()
    script = json.loads(path.read_text(encoding="utf-8")) if path else {}
    by_intent = {s.get("intent"): (s.get("action") or {}).get("text") for s in script.get("steps", [])}
    out: dict[str, str] = {}
    for step in workflow.steps:
        found = PLACEHOLDER.fullmatch(str(step.action.get("text", "")).strip())
        if found and isinstance(by_intent.get(step.intent), str):
            out[found.group(1)] = str(by_intent[step.intent])
    return out


def _save(task: Task, run_id: str) -> tuple[str, str]:
    """Save the fresh run as the task's workflow, the task's success predicates among its criteria; (name, error)."""
    from waymark.host.agent.trace import find_run
    from waymark.host.core.secrets_store import normalize_origin, set_secret
    from waymark.host.workflows import store
    from waymark.host.workflows.save import NotSaveable, recorded, workflow_from

    name = "eval-" + task.id.split("/", 1)[-1]
    try:
        workflow = workflow_from(recorded(find_run(run_id)), name)
    except (NotSaveable, FileNotFoundError) as exc:
        return name, str(exc)
    known = {json.dumps(c, sort_keys=True) for c in workflow.success_criteria}
    workflow.success_criteria += [c for c in task.success if json.dumps(c, sort_keys=True) not in known]
    # Bound where the saved run typed them (a workflow of before: the start page's origin).
    origins = sorted({s.secret_origin for s in workflow.steps if s.secret_origin} or {normalize_origin(workflow.start_url)})
    for secret, value in _secrets_of(task, workflow).items():
        set_secret(secret, value, origins)
    store.write(workflow, replace=True)
    return name, ""


async def run_task(controller: Any, task: Task, site: SiteServer, variant: SiteServer | None, heal_model: dict[str, Any],
                   timeout: float, fresh_model: str | None = None) -> WorkflowRow:
    """One task: fresh run (its script, or `fresh_model` as planner and executor), save, replay,
    replay on the changed site."""
    url = task.resolved_start_url(site.site, site.other)
    await _clean_storage(controller, url)
    fresh_params: dict[str, Any] = {"task": task.goal, "start_url": url, "policy": {"destructive": "allow"}, "screenshots": False,
                                    "budgets": {"max_steps": task.max_steps}}
    if task.output_schema is not None:
        fresh_params["output_schema"] = task.output_schema
    if fresh_model:
        fresh_params.update(planner=fresh_model, executor=fresh_model)
        fresh_params["budgets"]["wall_clock_s"] = LOCAL_TASK_TIMEOUT_S
    else:
        fresh_params["script"] = str(task.script_path())
    fresh = await _attempt(controller, "agent.run", fresh_params, LOCAL_TASK_TIMEOUT_S + 60 if fresh_model else timeout)
    row = WorkflowRow(task=task.id, fresh=fresh)
    await _judged_and_closed(controller, task, url)
    run_id = fresh.run_id
    if not fresh.success or not run_id:
        row.save_error = f"the fresh run did not succeed ({fresh.outcome}: {fresh.reason})"
        return row
    name, error = _save(task, run_id)
    row.saved, row.save_error = not error, error
    if error:
        return row
    await _clean_storage(controller, url)
    row.replay = await _attempt(controller, "workflow.run", {"name": name, "heal": False, "policy": {"destructive": "allow"}}, timeout)
    row.judged["replay"] = _with_answer(task, row.replay, await _judged_and_closed(controller, task, url))
    if variant is not None:
        changed = task.resolved_start_url(variant.site, variant.other)
        await _clean_storage(controller, changed)
        healer = {"script": str(task.script_path())} if heal_model.get("script") == SCRIPT_HEAL else heal_model
        row.variant = await _attempt(controller, "workflow.run", {"name": name, "start_url": changed, "heal": bool(healer),
                                                                  "policy": {"destructive": "allow"}, **healer}, timeout)
        row.judged["variant"] = _with_answer(task, row.variant, await _judged_and_closed(controller, task, changed))
    row.false_success = any(a is not None and a.success and not row.judged.get(kind, "").startswith("pass")
                            for kind, a in (("replay", row.replay), ("variant", row.variant)))
    return row


def _with_answer(task: Task, attempt: Attempt, page_verdict: str) -> str:
    """The judge's word with the task's expected answer judged too, as the eval judges a run's:
    the data must equal it, every required value found on a page."""
    if task.expect_data is None or not page_verdict.startswith("pass"):
        return page_verdict
    ok, why, _ = judge_answer(task.expect_data, {"data": attempt.data, "grounding": attempt.grounding})
    return page_verdict if ok else f"fail: {why}"


async def _judged_and_closed(controller: Any, task: Task, start_url: str) -> str:
    """The eval's judge on the tab the last run opened (the newest), which is then closed: `pass`,
    or `fail: ` and the failed predicates."""
    from waymark.eval.judge import judge_site_task

    tabs = (await controller.call("browser.request", {"method": "tabs.list"}))["data"]["tabs"]
    if not tabs:
        return "fail: no tab"
    newest = max(tabs, key=lambda t: int(t["tab_id"]))
    tab_id = int(newest["tab_id"])
    # The judge reads the tab's laid-out text through the eval's own browser driver: the page at the
    # tab's address, else the newest page (Chrome may spell an address differently, as %20 for +).
    pages = [p for p in controller.browser.context.pages if p.url == newest["url"]] or controller.browser.context.pages[-1:]
    try:
        if not pages:
            raise LookupError("the eval's browser shows no page")
        ok, reason, _ = await judge_site_task(controller, task, pages[-1], tab_id, [], start_url)
    except Exception as exc:  # a page nobody can read fails the judge
        ok, reason = False, f"{type(exc).__name__}: {exc}"
    with contextlib.suppress(Exception):
        await controller.call("browser.request", {"method": "tabs.close", "params": {"tab_id": tab_id}})
    return "pass" if ok else f"fail: {reason}"


class WorkflowReport(BaseModel):
    """The suite's figures."""

    tasks: int = 0
    fresh_passed: int = 0
    saved: int = 0
    replay_passed: int = 0
    replay_model_calls: int = 0
    variant_unchanged: int = 0
    variant_healed: int = 0
    variant_heal_model_calls: int = 0
    variant_failed: int = 0
    false_successes: int = 0
    fresh_wall_ms: float = 0.0
    replay_wall_ms: float = 0.0
    fresh_tokens: int = 0
    replay_tokens: int = 0


def summarise(rows: list[WorkflowRow]) -> WorkflowReport:
    """Counts and totals over the rows."""
    report = WorkflowReport(tasks=len(rows))
    for row in rows:
        report.fresh_passed += row.fresh.success
        report.saved += row.saved
        report.false_successes += row.false_success
        if row.replay is not None:
            report.replay_passed += row.replay.success
            report.replay_model_calls += row.replay.model_calls
            report.fresh_wall_ms += row.fresh.wall_ms
            report.replay_wall_ms += row.replay.wall_ms
            report.fresh_tokens += row.fresh.tokens_total
            report.replay_tokens += row.replay.tokens_total
        if row.variant is not None:
            kind = row.variant.replay if row.variant.success else "failed"
            report.variant_unchanged += kind == "unchanged"
            report.variant_healed += kind == "healed"
            report.variant_failed += kind == "failed"
            report.variant_heal_model_calls += row.variant.model_calls
    return report


def format_rows(rows: list[WorkflowRow], report: WorkflowReport) -> str:
    """A plain table: per task the fresh run against its replays, then the totals."""
    lines = [f"{'task':<34} {'fresh':>16} {'replay':>16} {'changed site':>30}"]

    def cell(a: Attempt | None) -> str:
        if a is None:
            return "-"
        state = a.replay or ("pass" if a.success else "fail")
        if a.replay and not a.success:
            state = "failed"
        return f"{state} {a.wall_ms / 1000:.1f}s {a.model_calls}c {a.tokens_total}t"

    for row in rows:
        lines.append(f"{row.task:<34} {cell(row.fresh):>16} {cell(row.replay):>16} {cell(row.variant):>30}")
        if row.variant is not None and not row.variant.success:
            lines.append(f"    changed site: {row.variant.reason[:200]}")
        if row.save_error:
            lines.append(f"    not saved: {row.save_error[:200]}")
    lines.append(
        f"fresh runs passed {report.fresh_passed}/{report.tasks}; saved {report.saved}; replays passed {report.replay_passed}/{report.saved} "
        f"with {report.replay_model_calls} model calls; wall time fresh {report.fresh_wall_ms / 1000:.1f} s vs replay "
        f"{report.replay_wall_ms / 1000:.1f} s; tokens fresh {report.fresh_tokens} vs replay {report.replay_tokens}")
    lines.append(f"changed site: {report.variant_unchanged} unchanged, {report.variant_healed} healed "
                 f"({report.variant_heal_model_calls} model calls), {report.variant_failed} failed; false successes: {report.false_successes}")
    return "\n".join(lines)


async def run_suite(patterns: list[str] | None, out: Path | None, heal_model: dict[str, Any], variant: bool = True,
                    headless: bool = True, timeout: float = 180.0, fresh_model: str | None = None,
                    ) -> tuple[list[WorkflowRow], WorkflowReport]:
    """Every selected sites task through fresh run, save, replay and changed-site replay, in one
    browser; `fresh_model` (a model spec) runs the fresh runs instead of the tasks' scripts."""
    from waymark.host.control_client import Controller
    from waymark.host.core.paths import eval_runs_dir

    tasks = [t for t in load_suite("sites", patterns) if t.kind == "e2e" and t.script]
    rows: list[WorkflowRow] = []
    with tempfile.TemporaryDirectory(prefix="waymark-workflows-eval-") as scratch:
        saved_env = {k: os.environ.get(k) for k in ("WAYMARK_CONFIG_DIR", "WAYMARK_RUNS_DIR")}
        # Workflows and the secrets the tasks type live in a folder of this eval run, which the host it launches uses too;
        # its runs' traces are kept apart from the user's own.
        os.environ["WAYMARK_RUNS_DIR"] = str(eval_runs_dir())
        os.environ["WAYMARK_CONFIG_DIR"] = str(Path(scratch) / "config")
        site = SiteServer().start()
        changed = SiteServer(make_variant(Path(scratch) / "variant")).start() if variant else None
        try:
            async with Controller(headless=headless) as controller:
                for task in tasks:
                    row = await run_task(controller, task, site, changed, heal_model, timeout, fresh_model)
                    rows.append(row)
                    if out is not None:
                        with out.open("a", encoding="utf-8") as handle:
                            handle.write(row.model_dump_json() + "\n")
        finally:
            site.close()
            if changed is not None:
                changed.close()
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return rows, summarise(rows)
