"""Host overhead per agent step, model and browser excluded.

The real agent loop (`host.agent.loop.AgentRun`) runs a task with the scripted provider
against a replay of what the real browser answered on a corpus page of median size: the
`snapshot` and `act` replies are recorded once through the real extension and host, then
served back instantly, so every microsecond left is the host's own work. The loop marks its
phases itself (`@timed`, host.core.phases) and this section listens for the run:

- decode: the browser's reply into typed models (`host.browser.snapshot` / `act`)
- prompt: the redacted snapshot, the page block, the executor message, the step's tools
- parse: the model's tool call into a decision (`decision_from_tool_call`)
- validate: the decision against the grammar and the snapshot's refs (`validate_decision`)
- predicates: the step's checks on the settled snapshot (`parse_predicates`, `Expectation.once`)
- trace: the step's trace event, redacted and appended to trace.jsonl (`TraceWriter.event`)
- other: the rest of the step (budgets, gating, history, bookkeeping)

The model's time (the scripted provider's `complete`) is measured and left out of the total.
Each phase is timed twice: the thread's CPU time, which a busy machine barely disturbs (the
work is single-threaded and never waits), and wall time, which is what a user waits for.
Parsing the same decisions from JSON text (the path of providers without native tools) is
timed beside them.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import Bound, SectionCut, bound_of
from waymark.eval.bench.markdown import pair, table
from waymark.host.agent.human import NobodyHome
from waymark.host.agent.loop import AgentRun, RunOptions
from waymark.host.agent.parsing import parse_decision
from waymark.host.agent.planner import MAX_PLAN_STEPS
from waymark.host.core.phases import listening
from waymark.host.core.stats import spread
from waymark.providers.scripted import ScriptedProvider

#: Phases in table order; "model" is measured but not part of the host's total.
PHASES = ("decode", "prompt", "parse", "validate", "predicates", "trace", "other")


def median_page(pages_dir: Path) -> Path:
    """The corpus page of median HTML size: a realistic page to record."""
    pages = sorted((p.stat().st_size, p.parent.name, p) for p in pages_dir.glob("*/index.html"))
    if not pages:
        raise FileNotFoundError(f"no NAME/index.html pages under {pages_dir}")
    return pages[len(pages) // 2][2]


async def record(pages_dir: Path) -> dict[str, Any]:
    """Record the real browser's `snapshot` and `act` (scroll, settled snapshot) replies on the
    median corpus page, through the real host and extension."""
    from waymark.eval.sites.serve import SiteServer
    from waymark.host.control_client import Controller

    page_file = median_page(pages_dir)
    server = SiteServer(pages_dir).start()
    try:
        async with Controller() as controller:
            assert controller.browser is not None
            page = await controller.browser.context.new_page()
            await page.goto(f"{server.site}/{page_file.parent.name}/index.html", wait_until="load", timeout=30000)
            await page.bring_to_front()
            snap = await controller.call("snapshot", {}, timeout=120)
            acted = await controller.call("act", {"tab_id": snap["tab_id"], "action": {"type": "scroll", "direction": "down"},
                                                  "snapshot": {"tab_id": snap["tab_id"]}}, timeout=120)
    finally:
        server.close()
    if not acted.get("ok") or not acted.get("snapshot"):
        raise RuntimeError(f"recording the act reply failed: {acted.get('error')}")
    return {"page": page_file.parent.name, "snapshot": snap, "act": acted}


#: The element the replay adds to and takes from the page at each action, so that every step has
#: a check its action changes (a check that held before a step does not judge it).
MARKER = {"role": "button", "name": "Replay marker"}


class ReplayBridge:
    """Answers the agent's browser requests with the recorded replies, at once; each action
    shows or hides the marker element."""

    def __init__(self, recorded: dict[str, Any]) -> None:
        self.recorded = recorded["snapshot"]
        self.act = recorded["act"]
        self.tab_id = recorded["snapshot"]["tab_id"]
        self.marked = False

    def snapshot(self) -> dict[str, Any]:
        """The recorded page, with the marker while it is shown."""
        if not self.marked:
            return self.recorded
        ref = max((e["ref"] for e in self.recorded["elements"]), default=0) + 1
        marker = {"ref": ref, **MARKER, "in_viewport": True}
        return {**self.recorded, "elements": [*self.recorded["elements"], marker],
                "text": self.recorded["text"] + f'\n[{ref}] button "{MARKER["name"]}"'}

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> dict[str, Any]:
        if method == "snapshot":
            return self.snapshot()
        if method == "act":
            kind = (params or {}).get("action", {}).get("type", self.act["action"])
            if kind != "extract":
                self.marked = not self.marked
            return {**self.act, "action": kind, "snapshot": self.snapshot()}
        if method in ("tabs.active", "tabs.open"):
            return {"tab_id": self.tab_id}
        if method == "act.detach":
            # A finished run detaches the debugger from its tabs.
            return {"detached": True}
        raise ValueError(f"the replay has no answer for {method!r}")


def script_for(snapshot: dict[str, Any], steps: int) -> dict[str, Any]:
    """`steps` plan steps, each clicking a named link or button of the snapshot, checked by the
    marker the click shows or hides (so every step passes on its first try, proven) and by two
    predicates that hold on the recorded page throughout (judged before the step acts)."""
    targets = [e for e in snapshot["elements"] if e["role"] in ("link", "button") and e["name"].strip()]
    if not targets:
        raise ValueError("the recorded snapshot has no named link or button to click")
    path = snapshot["url"].split("://", 1)[-1].split("/", 1)[-1].split("?")[0][:40]
    plan = []
    for i in range(steps):
        element = targets[i % len(targets)]
        target = {"role": element["role"], "name": element["name"]}
        plan.append({
            "intent": f"open {element['role']} {element['name'][:40]}",
            "action": {"type": "click", "target": target},
            "verify": [{"exists" if i % 2 == 0 else "absent": MARKER}, {"text_present": element["name"][:30]}, {"url_contains": path}],
        })
    return {"steps": plan, "result": "replayed"}


class _Clock:
    """Microseconds per phase of the step that is running (CPU and wall); one dict per finished
    step. It listens to the phases the agent marks (host.core.phases): nothing is patched."""

    def __init__(self) -> None:
        self.current: dict[str, dict[str, float]] | None = None
        self.steps: list[dict[str, dict[str, float]]] = []

    def begin(self, phase: str) -> None:
        if phase == "step":
            self.current = {}

    def end(self, phase: str, cpu_s: float, wall_s: float) -> None:
        if self.current is None:
            return
        spent = self.current.setdefault(phase, {"cpu": 0.0, "wall": 0.0})
        spent["cpu"] += cpu_s * 1e6
        spent["wall"] += wall_s * 1e6
        if phase == "step":
            self.steps.append(self.current)
            self.current = None


def _stat(values: list[float]) -> dict[str, float]:
    return spread(values, suffix="_us")


def _step_rows(steps: list[dict[str, dict[str, float]]], kind: str) -> list[dict[str, float]]:
    """Per step, microseconds of `kind` (cpu or wall) per phase; "other" is the step's remainder."""
    rows = []
    for phases in steps:
        spent = {p: v[kind] for p, v in phases.items()}
        host = spent["step"] - spent.get("model", 0.0)
        accounted = sum(spent.get(p, 0.0) for p in PHASES if p != "other")
        rows.append({**{p: spent.get(p, 0.0) for p in PHASES if p != "other"}, "other": host - accounted,
                     "model": spent.get("model", 0.0), "total": host})
    return rows


async def _replayed_run(recorded: dict[str, Any], steps: int, clock: _Clock, decisions: list[dict[str, Any]]) -> None:
    """One run of the real loop over the replay, `steps` plan steps, timed into `clock`."""
    provider = ScriptedProvider(script=script_for(recorded["snapshot"], steps))
    options = RunOptions(task="open each link of the page in turn", screenshots=False,
                         budgets={"max_steps": steps + 5, "wall_clock_s": 3600}, policy={"destructive": "allow"})

    def keep(kind: str, record: dict[str, Any]) -> None:
        if kind == "step" and "action" in record:
            decisions.append({"thought": record.get("thought") or "", "action": record["action"]})

    run = AgentRun(options, ReplayBridge(recorded), provider, provider, NobodyHome(), emit=keep)  # type: ignore[arg-type]
    with listening(clock):
        summary = await run.run()
    # Each step acts, its marker check changes and the step passes (the loop's full path, no retry).
    if summary.steps_passed != steps:
        raise RuntimeError(f"the replayed run did not act on every step: {summary.outcome}: {summary.reason}")


async def measure(recorded: dict[str, Any], steps: int, bound: Bound | None = None) -> dict[str, Any]:
    """Run the real loop over the replay for `steps` steps (in runs of at most a plan's length,
    while the section's `bound` has time) and return per-phase medians in microseconds."""
    bound = bound or Bound("host")
    clock = _Clock()
    decisions: list[dict[str, Any]] = []
    previous = os.environ.get("WAYMARK_RUNS_DIR")
    with tempfile.TemporaryDirectory(prefix="wm-bench-runs-") as runs:
        os.environ["WAYMARK_RUNS_DIR"] = runs  # traces of the benchmark go to a throwaway folder
        try:
            runs = [min(MAX_PLAN_STEPS, steps - first) for first in range(0, steps, MAX_PLAN_STEPS)]
            for count in bound.each(runs, "runs", "agent loop"):
                try:
                    await bound.within(_replayed_run(recorded, count, clock, decisions))
                except SectionCut:
                    break
        finally:
            if previous is None:
                os.environ.pop("WAYMARK_RUNS_DIR", None)
            else:
                os.environ["WAYMARK_RUNS_DIR"] = previous
    cpu, wall = _step_rows(clock.steps, "cpu"), _step_rows(clock.steps, "wall")
    if not cpu:
        return {"steps": 0}
    text_parse = []
    for decision in decisions:
        text = json.dumps(decision)
        started = time.thread_time()
        parse_decision(text)
        text_parse.append((time.thread_time() - started) * 1e6)
    return {
        "steps": len(cpu),
        "phases": {p: _stat([r[p] for r in cpu]) for p in (*PHASES, "total")},
        "wall": {p: _stat([r[p] for r in wall]) for p in (*PHASES, "total")},
        "model_excluded": _stat([r["model"] for r in cpu]),
        "parse_json_text": _stat(text_parse),
    }


async def run(options: dict[str, Any]) -> dict[str, Any]:
    """Record the median corpus page once, then run the loop over it; see the module docstring."""
    pages_dir = Path(options["corpus"])
    bound = bound_of(options, "host")
    recorded = await bound.within(record(pages_dir))
    steps = max(20, 5 * int(options.get("rounds", 20)))
    # A short first run fills the grammar's schema caches and imports lazily loaded modules.
    await measure(recorded, 3, Bound("host warm-up"))
    result = await measure(recorded, steps, bound)
    snap = recorded["snapshot"]
    result["recorded"] = {"page": recorded["page"], "chars": len(snap["text"]), "elements": len(snap["elements"]),
                          "json_bytes": len(json.dumps(recorded["act"]))}
    return result


def format_table(result: dict[str, Any]) -> str:
    """The section's numbers as a plain-text table."""
    rec = result["recorded"]
    if not result["steps"]:
        return f"host overhead per agent step: no step measured on {rec['page']} within the section's bound"
    lines = [f"host overhead per agent step, model excluded ({result['steps']} steps of the real loop over a replay of "
             f"{rec['page']}: {rec['chars']} chars, {rec['elements']} elements; median / p90 µs)",
             f"  {'phase':<14} {'CPU time':>21} {'wall time':>21}"]
    for phase in (*PHASES, "total"):
        s, w = result["phases"][phase], result["wall"][phase]
        label = "total (host)" if phase == "total" else phase
        lines.append(f"  {label:<14} {s['median_us']:>9.1f} / {s['p90_us']:>9.1f} {w['median_us']:>9.1f} / {w['p90_us']:>9.1f}")
    m, t = result["model_excluded"], result["parse_json_text"]
    lines.append(f"  (scripted model, excluded: {m['median_us']:.1f} / {m['p90_us']:.1f}; parse from JSON text instead of a tool call: "
                 f"{t['median_us']:.1f} / {t['p90_us']:.1f})")
    return "\n".join(lines)


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    if not r.get("steps"):
        return table(["host overhead"], [["no step measured"]])
    rows = [["total (host)" if phase == "total" else phase, pair(r["phases"][phase], "_us"), pair(r["wall"][phase], "_us")]
            for phase in r["phases"]]
    rows.append(["model (scripted, excluded)", pair(r["model_excluded"], "_us"), "–"])
    rows.append(["parse from JSON text instead", pair(r["parse_json_text"], "_us"), "–"])
    rec = r["recorded"]
    return table([f"µs per agent step, {r['steps']} steps over a replay of {rec['page']} ({rec['elements']} elements)", "CPU (median / p90)",
             "wall (median / p90)"], rows)
