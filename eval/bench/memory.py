"""Memory: the host's peak RSS during a 50-step agent run, and the content script's heap and
ref registry over 100 snapshots of a large page.

- Host: 50 scripted agent steps (fill a field, click a button, each checked by a predicate)
  on a static fixture page, through the real browser, extension and host, in consecutive
  runs of 25 (a plan holds at most 30 steps). The
  host's pid comes from `host.info`; its RSS is sampled from /proc/<pid>/status while the run
  goes, and VmHWM (the kernel's high-water mark) is read before and after.
- Content script: the largest corpus page, snapshotted 100 times through the host; the
  page's V8 heap (CDP `Runtime.getHeapUsage` after `HeapProfiler.collectGarbage`; the content
  script's isolated world lives in that heap) and the live entries of the per-frame ref
  registry (`__waymark.registrySize()` in every frame) after the 1st and the 100th snapshot.
  Then the same with the page's body replaced by a fresh copy before every snapshot, so each
  snapshot meets new elements: the registry must not keep the detached ones. That runs 20
  times, not 100: each round makes the browser lay out and paint a new copy of the page before
  the snapshot walks it cold (on the 1 MB corpus page, about 4 s of layout and 4 s of walk on a
  busy 2-core machine), so 100 rounds alone took a quarter of an hour on a 183-page corpus,
  whose largest page is the largest of all; a registry that kept detached elements would
  grow by the page's elements every round, which 20 rounds show as well as 100.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import Bound, SectionCut, bound_of
from waymark.eval.bench.markdown import table
from waymark.eval.sites.serve import SiteServer

#: The static page of the host run (the dispatch benchmark's shop page).
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "dispatch"
RUN_PAGE = "bench.html"
RUN_STEPS = 50
#: Steps per run: plans are capped (host.agent.planner.MAX_PLAN_STEPS).
STEPS_PER_RUN = 25
SNAPSHOTS = 100
SNAPSHOTS_RERENDERED = 20

_REGISTRY_JS = """async (tabId) => {
  const results = await chrome.scripting.executeScript({
    target: {tabId, allFrames: true},
    func: () => { const w = /** @type {any} */ (globalThis).__waymark; return w ? w.registrySize() : 0; },
  });
  return results.reduce((n, r) => n + (r.result || 0), 0);
}"""

_TAB_JS = "async (url) => (await chrome.tabs.query({})).filter(t => t.url === url).map(t => t.id)"


def read_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields


def run_script(steps: int) -> dict[str, Any]:
    """A scripted plan of `steps` steps: set a quantity field, then add to the cart, in turn; each
    add is proven by the cart's count (a filled field proves only the typing)."""
    plan = []
    adds = 0
    for i in range(steps):
        if i % 2 == 0:
            nth = (i // 2) % 40
            target = {"role": "spinbutton", "name": "Qty", "nth": nth}
            plan.append({"intent": f"set quantity {nth + 1} to {i + 2}", "action": {"type": "fill", "target": target, "text": str(i + 2)},
                         "verify": [{"value_equals": {"target": target, "value": str(i + 2)}}]})
        else:
            adds += 1
            plan.append({"intent": "add to the cart", "action": {"type": "click", "target": {"role": "button", "name": "Add to cart"}},
                         "verify": [{"text_present": f"In cart: {adds}"}]})
    return {"steps": plan, "result": "quantities set"}


async def host_run(steps: int = RUN_STEPS, bound: Bound | None = None) -> dict[str, Any]:
    """The host's RSS before, during and after a `steps`-step scripted run (in runs of a plan's
    length, while the section's `bound` has time)."""
    from waymark.host.control_client import Controller

    bound = bound or Bound("memory")
    server = SiteServer(FIXTURES).start()
    try:
        with tempfile.TemporaryDirectory(prefix="wm-bench-runs-") as runs:
            async with Controller(host_env={"WAYMARK_RUNS_DIR": runs}) as controller:
                pid = (await controller.call("host.info", {}))["pid"]
                before = read_status(pid)
                samples: list[int] = []

                async def sample() -> None:
                    while True:
                        samples.append(read_status(pid)["VmRSS"])
                        await asyncio.sleep(0.05)

                sampler = asyncio.create_task(sample())
                summaries = []
                try:
                    for first in bound.each(range(0, steps, STEPS_PER_RUN), "runs", "host agent runs"):
                        summaries.append(await bound.within(controller.call("agent.run", {
                            "task": "set the quantities and add to the cart", "start_url": f"{server.site}/{RUN_PAGE}",
                            "script": run_script(min(STEPS_PER_RUN, steps - first)),
                            "budgets": {"max_steps": STEPS_PER_RUN + 10, "wall_clock_s": 900}, "policy": {"destructive": "allow"},
                        }, timeout=900)))
                except SectionCut:
                    pass
                finally:
                    sampler.cancel()
                after = read_status(pid)
    finally:
        server.close()
    failed = [s for s in summaries if not s["success"]]
    if failed:
        raise RuntimeError(f"a scripted run did not pass: {failed[0]['outcome']}: {failed[0]['reason']}")
    if not summaries:
        return {"steps": 0, "runs": 0}
    return {
        "steps": sum(s["steps_passed"] for s in summaries), "runs": len(summaries),
        "run_ms": round(sum(s["duration_ms"] for s in summaries), 1),
        "rss_before_kb": before["VmRSS"], "hwm_before_kb": before["VmHWM"],
        "rss_during_median_kb": int(statistics.median(samples)) if samples else None,
        "rss_after_kb": after["VmRSS"], "peak_rss_kb": after["VmHWM"],
    }


async def _heap(cdp: Any) -> int:
    await cdp.send("HeapProfiler.collectGarbage")
    return int((await cdp.send("Runtime.getHeapUsage"))["usedSize"])


async def _repeated_snapshots(controller: Any, url: str, rerender: bool, count: int, call_timeout: float = 120.0,
                              bound: Bound | None = None) -> dict[str, Any]:
    bound = bound or Bound("memory")
    context = controller.browser.context
    page = await context.new_page()
    try:
        await page.goto(url, wait_until="load", timeout=60000)
        await page.bring_to_front()
        worker = controller.browser.service_worker
        tab = max(await worker.evaluate(_TAB_JS, page.url))
        cdp = await context.new_cdp_session(page)
        first = await bound.within(controller.call("snapshot", {"tab_id": tab}, timeout=call_timeout), call_timeout)
        taken = 1
        heap_first, registry_first = await _heap(cdp), await worker.evaluate(_REGISTRY_JS, tab)
        for _ in bound.each(range(count - 1), "snapshots", "page heap, body replaced" if rerender else "page heap, static"):
            if rerender:
                await page.evaluate("() => document.body.replaceWith(document.body.cloneNode(true))")
            try:
                await bound.within(controller.call("snapshot", {"tab_id": tab}, timeout=call_timeout), call_timeout)
            except SectionCut:
                break
            taken += 1
        heap_last, registry_last = await _heap(cdp), await worker.evaluate(_REGISTRY_JS, tab)
        await cdp.detach()
    finally:
        await page.close()
    return {
        "rerender": rerender, "snapshots": taken, "elements": first["stats"].get("elements_total", len(first["elements"])),
        "heap_first_bytes": heap_first, "heap_last_bytes": heap_last, "heap_growth_bytes": heap_last - heap_first,
        "registry_first": registry_first, "registry_last": registry_last,
    }


async def content_heap(pages_dir: Path, count: int = SNAPSHOTS, rerendered: int = SNAPSHOTS_RERENDERED, page_timeout: float = 60.0,
                       bound: Bound | None = None) -> dict[str, Any]:
    """Heap and ref registry over `count` snapshots of the largest corpus page, and over
    `rerendered` snapshots each after replacing its body; each snapshot is bounded by
    `page_timeout`, and a page that fails is reported under `errors` instead of ending the section."""
    from waymark.host.control_client import Controller

    bound = bound or Bound("memory")
    largest = max(pages_dir.glob("*/index.html"), key=lambda p: p.stat().st_size)
    server = SiteServer(pages_dir).start()
    try:
        async with Controller() as controller:
            url = f"{server.site}/{largest.parent.name}/index.html"
            rows = []
            errors: dict[str, str] = {}
            for rerender in (False, True):
                if bound.expired():
                    break
                try:
                    rows.append(await _repeated_snapshots(controller, url, rerender, rerendered if rerender else count, page_timeout, bound))
                except SectionCut:
                    break
                except Exception as exc:
                    errors[f"{largest.parent.name} ({'re-rendered' if rerender else 'static'})"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        server.close()
    return {"page": largest.parent.name, "html_bytes": largest.stat().st_size, "rows": rows, "errors": errors}


async def run(options: dict[str, Any]) -> dict[str, Any]:
    """Both measurements; see the module docstring."""
    rounds = int(options.get("rounds", 20))
    # The defaults at 20 rounds; fewer rounds, a shorter run (the CI test runs one).
    steps, snapshots = max(2, RUN_STEPS * rounds // 20), max(3, SNAPSHOTS * rounds // 20)
    rerendered = max(3, SNAPSHOTS_RERENDERED * rounds // 20)
    bound = bound_of(options, "memory")
    content = await content_heap(Path(options["corpus"]), snapshots, rerendered, float(options.get("page_timeout") or 60.0), bound)
    return {"host": await host_run(steps, bound), "content": content, "errors": content["errors"]}


def format_table(result: dict[str, Any]) -> str:
    """The section's numbers as a plain-text table."""
    h, c = result["host"], result["content"]
    mb = 1024.0
    lines = [
        f"memory: host during {h['steps']} scripted agent steps ({h['runs']} runs, {h['run_ms'] / 1000:.1f} s)",
        f"  host RSS before {h['rss_before_kb'] / mb:.1f} MB, median during {h['rss_during_median_kb'] / mb:.1f} MB, "
        f"after {h['rss_after_kb'] / mb:.1f} MB; peak (VmHWM) {h['peak_rss_kb'] / mb:.1f} MB (before the run {h['hwm_before_kb'] / mb:.1f} MB)",
    ] if h["runs"] else ["memory: no host agent run within the section's bound"]
    lines += [
        f"memory: page heap and ref registry over repeated snapshots of {c['page']} ({c['html_bytes'] // 1024} KB HTML)",
        f"  {'':<24} {'snapshots':>9} {'heap 1st':>10} {'heap last':>10} {'growth':>9} {'registry 1st':>13} {'registry last':>14}",
    ]
    for row in c["rows"]:
        label = "body replaced each time" if row["rerender"] else f"static ({row['elements']} elements)"
        lines.append(f"  {label:<24} {row['snapshots']:>9} {row['heap_first_bytes'] / 2**20:>8.1f}MB {row['heap_last_bytes'] / 2**20:>8.1f}MB "
                     f"{row['heap_growth_bytes'] / 2**20:>+7.2f}MB {row['registry_first']:>13} {row['registry_last']:>14}")
    return "\n".join(lines)


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    rows = []
    h = r["host"]
    if h.get("runs"):
        rows += [[f"host RSS during {h['steps']} scripted agent steps (median)", f"{h['rss_during_median_kb'] / 1024:.1f} MB"],
                 ["host peak RSS (VmHWM)", f"{h['peak_rss_kb'] / 1024:.1f} MB"]]
    c = r["content"]
    for row in c["rows"]:
        label = "body replaced before each snapshot" if row["rerender"] else "static page"
        rows.append([f"{c['page']}, {label}: page heap growth over {row['snapshots']} snapshots",
                     f"{row['heap_growth_bytes'] / 2**20:+.2f} MB (from {row['heap_first_bytes'] / 2**20:.1f} MB)"])
        rows.append([f"{c['page']}, {label}: ref registry first / last", f"{row['registry_first']:,} / {row['registry_last']:,}"])
    return table(["memory", "measured"], rows)
