"""Snapshot benchmark: our snapshot beside the peer (Playwright's AI snapshot,
`page.aria_snapshot(mode="ai")`, the format Playwright MCP gives models) on every page of the
shared corpus, served on loopback, in one browser run.

Per page: wall time of one snapshot as the agent takes it (host method `snapshot` with default
options, through the real host and extension), the first after the page loaded (cold) and the
next one of the unchanged page (warm: what the agent's next step pays), characters and tokens of the whole paginated
snapshot, and recall of visible interactive elements against an independent count made in
the page by a separate script (`BASELINE_JS`). The peer's characters, tokens and time are
measured on the same page in the same run.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import Bound, SectionCut, bound_of
from waymark.eval.bench.markdown import pair, ratio, table
from waymark.eval.sites.serve import SiteServer
from waymark.host.core.stats import spread

DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
DEFAULT_TOKENIZER = DEFAULT_CORPUS / "tokenizer" / "claude-legacy-tokenizer.json"
MARK_ATTRIBUTE = "data-wm-bench-ref"

#: The independent count, run in the page's main world: links, buttons, inputs, selects,
#: textareas, summary, [onclick], contenteditable and ARIA widget roles, through open shadow
#: roots and same-origin iframes, visible by checkVisibility (display, visibility, opacity)
#: and of non-zero size. Returns how many of them carry the mark our snapshot's refs left
#: (recall), and how many marked elements in the same documents it does not count (extra:
#: what precision is measured by).
#: What the independent count counts, as JavaScript declaring SELECTOR (shared with the tests'
#: count in every frame, tests/e2e/visible_count.py).
COUNTED_SELECTOR_JS = r"""
  const ROLES = ["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "combobox", "textbox", "searchbox", "slider", "spinbutton", "listbox",
    "treeitem", "gridcell", "scrollbar"];
  const SELECTOR = ["a[href]", "area[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary",
    "[onclick]", "[contenteditable]:not([contenteditable=false])", ...ROLES.map((r) => `[role=${r}]`)].join(",");
"""
BASELINE_JS = r"""
(attr) => {""" + COUNTED_SELECTOR_JS + r"""
  const found = new Set();
  const ours = [];
  const visitRoot = (root) => {
    for (const el of root.querySelectorAll(SELECTOR)) found.add(el);
    for (const el of root.querySelectorAll(`[${attr}]`)) ours.push(el);
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) visitRoot(el.shadowRoot);
      if (el.localName === "iframe") {
        try { if (el.contentDocument) visitRoot(el.contentDocument); } catch (e) { /* cross-origin */ }
      }
    }
  };
  visitRoot(document);
  let total = 0, marked = 0;
  const missed = [];
  const counted = new Set();
  for (const el of found) {
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) continue;
    total++;
    counted.add(el);
    if (el.hasAttribute(attr)) marked++;
    else if (missed.length < 5) missed.push(el.outerHTML.slice(0, 160));
  }
  const extras = ours.filter((el) => !counted.has(el));
  return {total, marked, missed, listed: ours.length, extra: extras.length, extras: extras.slice(0, 5).map((el) => el.outerHTML.slice(0, 160))};
}
"""


def _precision(row: dict[str, Any]) -> float:
    """The share of a page's listed elements that the independent count counts too."""
    return 1 - row["extra"] / row["listed"]


async def _paginated(controller: Any) -> tuple[list[str], list[int], int, float]:
    """Every page of the snapshot with default options: texts, refs, the tab, and the ms of the
    first call (a warm snapshot: the page was snapshotted before and has not changed)."""
    texts: list[str] = []
    refs: list[int] = []
    offset: int | None = 0
    tab_id = None
    warm_ms = 0.0
    while offset is not None:
        started = time.perf_counter()
        snap = await controller.call("snapshot", {"offset": offset}, timeout=120)
        if not texts:
            warm_ms = (time.perf_counter() - started) * 1000
        texts.append(snap["text"])
        refs += [e["ref"] for e in snap["elements"]]
        tab_id = snap["tab_id"]
        if snap["page_overflow"] or len(texts) > 500:
            break
        offset = snap["next_offset"]
    return texts, refs, tab_id, warm_ms


async def _measure_page(controller: Any, page: Any, url: str, count_tokens: Any) -> dict[str, Any]:
    await page.goto(url, wait_until="load", timeout=30000)
    await page.bring_to_front()
    t = time.perf_counter()
    first = await controller.call("snapshot", {}, timeout=120)
    ours_ms = (time.perf_counter() - t) * 1000
    texts, refs, tab_id, warm_ms = await _paginated(controller)
    ours_text = "\n".join(texts)
    t = time.perf_counter()
    peer_text = await page.aria_snapshot(mode="ai", timeout=60000)
    peer_ms = (time.perf_counter() - t) * 1000
    worker = controller.browser.service_worker
    await worker.evaluate("([t, r, a]) => globalThis.waymark.snapshot.markRefs(t, r, a)", [tab_id, refs, MARK_ATTRIBUTE])
    baseline = await page.evaluate(BASELINE_JS, MARK_ATTRIBUTE)
    return {
        "ours": {"ms": ours_ms, "warm_ms": warm_ms, "sw_ms": first["stats"].get("ms"), "chars": len(ours_text), "tokens": count_tokens(ours_text), "pages": len(texts)},
        "peer": {"ms": peer_ms, "chars": len(peer_text), "tokens": count_tokens(peer_text)},
        "baseline": baseline["total"], "recalled": baseline["marked"], "missed": baseline["missed"],
        "listed": baseline["listed"], "extra": baseline["extra"], "extras": baseline["extras"],
        "occluded": first["stats"].get("occluded", 0),
    }


async def run_async(pages_dir: Path | str = DEFAULT_CORPUS / "pages", tokenizer_file: Path | str = DEFAULT_TOKENIZER,
                    limit: int | None = None, page_timeout: float = 60.0, bound: Bound | None = None) -> dict[str, Any]:
    """Measure every page of `pages_dir` (NAME/index.html); see the module docstring. `limit`
    caps the number of pages; a page that takes longer than `page_timeout` seconds, or fails,
    is an error row naming it, and the next page gets a fresh tab. When the section's `bound`
    runs out, the pages measured so far are summarised."""
    bound = bound or Bound("snapshot")
    from tokenizers import Tokenizer

    from waymark.eval.sw_handle import diagnostic_extension
    from waymark.host.control_client import Controller

    tokenizer = Tokenizer.from_file(str(tokenizer_file))

    def count_tokens(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    names = sorted(p.parent.name for p in Path(pages_dir).glob("*/index.html"))[:limit]
    server = SiteServer(Path(pages_dir)).start()
    base = server.site
    rows: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="wm-ext-") as tmp:
            extension = diagnostic_extension(Path(tmp) / "extension")
            async with Controller(viewport=(1280, 800), extension=extension) as controller:
                assert controller.browser is not None
                context = controller.browser.context
                page = context.pages[0] if context.pages else await context.new_page()
                for name in bound.each(names, "pages"):
                    try:
                        row = await bound.within(_measure_page(controller, page, f"{base}/{name}/index.html", count_tokens), page_timeout)
                    except SectionCut:
                        break
                    except Exception as exc:  # one broken or endless page must not sink the benchmark: report it
                        errors[name] = f"no result within {page_timeout:g} s" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {str(exc)[:200]}"
                        page = await context.new_page()
                        for other in context.pages:
                            if other is not page:
                                await other.close()
                        continue
                    rows.append({"page": name, **row})
    finally:
        server.close()
    return summarise(rows, errors)


async def run(options: dict[str, Any]) -> dict[str, Any]:
    """`waymark bench` entry point: options["corpus"] is the pages folder, options["tokenizer"]
    the tokenizer file, options["limit"] caps the pages (0 = all), options["page_timeout"]
    bounds each page."""
    return await run_async(Path(options["corpus"]), options.get("tokenizer") or DEFAULT_TOKENIZER, options.get("limit") or None,
                           float(options.get("page_timeout") or 60.0), bound_of(options, "snapshot"))


def summarise(rows: list[dict[str, Any]], errors: dict[str, str] | None = None) -> dict[str, Any]:
    """Medians, p90s, ratios ours/peer, overall recall and precision of per-page rows, and the
    pages worst at each."""
    if not rows:
        return {"pages": 0, "errors": errors or {}, "rows": []}

    ours = {k: spread([r["ours"][k] for r in rows]) for k in ("ms", "chars", "tokens")}
    # Rows written before warm snapshots were timed lack them.
    warm = spread([r["ours"]["warm_ms"] for r in rows]) if all("warm_ms" in r["ours"] for r in rows) else None
    peer = {k: spread([r["peer"][k] for r in rows]) for k in ("ms", "chars", "tokens")}
    baseline = sum(r["baseline"] for r in rows)
    recalled = sum(r["recalled"] for r in rows)
    per_page_recall = [r["recalled"] / r["baseline"] for r in rows if r["baseline"]]
    worst = min((r for r in rows if r["baseline"]), key=lambda r: r["recalled"] / r["baseline"], default=None)
    listed = sum(r["listed"] for r in rows)
    extra = sum(r["extra"] for r in rows)
    worst_precision = min((r for r in rows if r["listed"]), key=_precision, default=None)
    return {
        "pages": len(rows),
        "ours": ours,
        "peer": peer,
        "warm_ms": warm,
        "ratio_median": {k: round(ours[k]["median"] / peer[k]["median"], 3) if peer[k]["median"] else None for k in ours},
        "recall": round(recalled / baseline, 4) if baseline else None,
        "recall_page_median": round(statistics.median(per_page_recall), 4) if per_page_recall else None,
        "recall_page_min": round(min(per_page_recall), 4) if per_page_recall else None,
        "recall_worst_page": worst["page"] if worst else None,
        "precision": round(1 - extra / listed, 4) if listed else None,
        "precision_page_min": round(_precision(worst_precision), 4) if worst_precision else None,
        "precision_worst_page": worst_precision["page"] if worst_precision else None,
        "listed_elements": listed,
        "extra_elements": extra,
        "baseline_elements": baseline,
        "recalled_elements": recalled,
        "occluded_elements": sum(r["occluded"] for r in rows),
        "targets": {
            "recall>=0.98": bool(baseline) and recalled / baseline >= 0.98,
            "median size <= 50% of peer": ours["chars"]["median"] <= 0.5 * peer["chars"]["median"],
            "median ms <= 100": ours["ms"]["median"] <= 100,
            "p90 ms <= 300": ours["ms"]["p90"] <= 300,
        },
        "errors": errors or {},
        "rows": rows,
    }


def format_table(result: dict[str, Any]) -> str:
    """The section's summary as a plain-text table."""
    if not result.get("pages"):
        return f"snapshot: no pages measured; errors: {result.get('errors')}"
    o, p, r = result["ours"], result["peer"], result["ratio_median"]
    lines = [
        f"snapshot vs Playwright aria_snapshot(mode='ai') on {result['pages']} corpus pages (median / p90)",
        f"  {'':<8} {'waymark':>20} {'peer':>20} {'ratio':>7}",
    ]
    for key, unit in (("ms", "ms"), ("chars", "chars"), ("tokens", "tokens")):
        lines.append(f"  {unit:<8} {o[key]['median']:>9.1f} / {o[key]['p90']:>8.1f} {p[key]['median']:>9.1f} / {p[key]['p90']:>8.1f} {r[key]:>7}")
        if key == "ms" and result.get("warm_ms"):
            w = result["warm_ms"]
            lines.append(f"  {'warm ms':<8} {w['median']:>9.1f} / {w['p90']:>8.1f}   (the next snapshot of the unchanged page)")
    lines.append(
        f"  recall {result['recall']:.2%} ({result['recalled_elements']}/{result['baseline_elements']} visible interactive elements;"
        f" per page median {result['recall_page_median']:.2%}, min {result['recall_page_min']:.2%} on {result['recall_worst_page']});"
        f" occluded {result['occluded_elements']}"
    )
    if result.get("precision") is not None:
        lines.append(
            f"  precision {result['precision']:.2%} ({result['extra_elements']} of {result['listed_elements']} listed elements are extra, not in the"
            f" independent count; per page min {result['precision_page_min']:.2%} on {result['precision_worst_page']})"
        )
    lines.append("  targets: " + ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in result["targets"].items()))
    if result.get("errors"):
        lines.append(f"  pages that failed: {len(result['errors'])}: " + "; ".join(f"{k}: {v}" for k, v in list(result["errors"].items())[:3]))
    return "\n".join(lines)



def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    if not r.get("pages"):
        return table(["snapshot"], [["no page measured"]])
    o, p, ratios = r["ours"], r["peer"], r["ratio_median"]
    rows = [
        ["snapshot ms, cold (median / p90)", pair(o["ms"]), pair(p["ms"]), ratio(ratios["ms"])],
        ["snapshot ms, warm (median / p90)", pair(r.get("warm_ms")), "–", "–"],
        ["characters (median / p90)", pair(o["chars"], digits=0), pair(p["chars"], digits=0), ratio(ratios["chars"])],
        ["tokens (median / p90)", pair(o["tokens"], digits=0), pair(p["tokens"], digits=0), ratio(ratios["tokens"])],
        ["recall of visible interactive elements", f"{r['recall']:.2%} ({r['recalled_elements']:,}/{r['baseline_elements']:,}); "
         f"page min {r['recall_page_min']:.2%} ({r['recall_worst_page']})", "–", "–"],
    ]
    if r.get("precision") is not None:
        rows.append(["precision (listed elements the independent count has)",
                     f"{r['precision']:.2%}; page min {r['precision_page_min']:.2%} ({r['precision_worst_page']})", "–", "–"])
    return table([f"{r['pages']} corpus pages", "Waymark", "Playwright `aria_snapshot(mode='ai')`", "ratio of medians"], rows)


if __name__ == "__main__":
    import json
    import sys

    # python -m waymark.eval.bench.snapshot [LIMIT [RESULT.json]]
    limit = int(sys.argv[1]) if len(sys.argv) > 1 and int(sys.argv[1]) > 0 else None
    outcome = asyncio.run(run_async(DEFAULT_CORPUS / "pages", DEFAULT_TOKENIZER, limit=limit))
    print(format_table(outcome))
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(json.dumps(outcome, indent=1), encoding="utf-8")
