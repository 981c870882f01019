"""Dispatch: click to settled snapshot on a static page, the settle time distribution, and
what each reliability piece buys, measured by turning it off (scroll-into-view, settle, the
snapshot attached inline to a stale_ref error); what typing costs per character, key by key
beside inserted; and the time to the first action on a page that never finishes loading.

Everything goes through the real host: the controller calls the host's `act` and `snapshot`
methods exactly as the agent does, the extension acts in real Chromium.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import SectionCut, bound_of
from waymark.eval.bench.markdown import cell, pair, table
from waymark.eval.sites.serve import SiteServer
from waymark.host.core.stats import spread

#: The fixture pages the section clicks on (static page, tall page, delayed effects, re-render).
PAGES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "dispatch"

#: Effects the settle ablation waits for: the button's label and when its result appears.
DELAYS = {"Show now": "synchronous", "Show after 30 ms": "30 ms timer", "Show after a fetch": "fetch", "Show after 120 ms": "120 ms timer"}


#: Lengths of the texts the typing part types, key by key and inserted.
TYPING_LENGTHS = (10, 100, 400)


def stats(values: list[float]) -> dict[str, float]:
    """n, median, p90, min and max of timings in ms."""
    return spread(values, suffix="_ms", count=True, bounds=True) if values else {"n": 0}


class Bench:
    """One browser, one host, one fixture server; helpers to open pages and act through the host."""

    def __init__(self, controller: Any, site: str) -> None:
        self.controller = controller
        self.site = site
        self.worker = controller.browser.service_worker
        self.context = controller.browser.context

    async def open(self, name: str) -> tuple[Any, int]:
        page = await self.context.new_page()
        await page.goto(f"{self.site}/{name}")
        ids = await self.worker.evaluate("async (url) => (await chrome.tabs.query({})).filter(t => t.url === url).map(t => t.id)", page.url)
        return page, max(ids)

    async def snapshot(self, tab: int) -> dict[str, Any]:
        return await self.controller.call("snapshot", {"tab_id": tab})

    async def act(self, tab: int, action: dict[str, Any], **request: Any) -> tuple[dict[str, Any], float]:
        started = time.perf_counter()
        result = await self.controller.call("act", {"tab_id": tab, "action": action, **request})
        return result, (time.perf_counter() - started) * 1000


def _ref(snapshot: dict[str, Any], name: str) -> int:
    for element in snapshot["elements"]:
        if element["name"] == name:
            return element["ref"]
    raise LookupError(f"no element named {name!r}")


def _has(snapshot: dict[str, Any] | None, name: str) -> bool:
    return bool(snapshot) and any(e["name"] == name for e in snapshot["elements"])


async def click_to_snapshot(b: Bench, rounds: int) -> dict[str, Any]:
    """Clicks on a static page through the host: to the settled snapshot, its phases, and without a snapshot."""
    page, tab = await b.open("bench.html")
    ref = _ref(await b.snapshot(tab), "Add to cart")
    first, first_ms = await b.act(tab, {"type": "click", "ref": ref})  # attaches the debugger
    total, settle, snap, bare, prepare, sent = [], [], [], [], [], []
    for _ in range(rounds):
        result, ms = await b.act(tab, {"type": "click", "ref": ref})
        assert result["ok"], result["error"]
        total.append(ms)
        settle.append(result["settle_ms"])
        snap.append(result["snapshot"]["stats"]["ms"])
        prepare.append(result["timings_ms"]["prepare"])
        sent.append(result["timings_ms"]["input"])
    for _ in range(rounds):
        result, ms = await b.act(tab, {"type": "click", "ref": ref}, snapshot=None)
        assert result["ok"], result["error"]
        bare.append(ms)
    clicks = int(await page.text_content("#cart") or 0)
    await page.close()
    return {
        "path": first["path"], "first_click_ms": round(first_ms, 1), "clicks_landed": clicks, "clicks_sent": 2 * rounds + 1,
        "elements": len(first["snapshot"]["elements"]) if first.get("snapshot") else 0,
        "click_to_settled_snapshot": stats(total), "prepare": stats(prepare), "input": stats(sent), "settle": stats(settle),
        "snapshot_in_browser": stats(snap),
        "click_without_snapshot": stats(bare),
    }


async def _scroll_ablation(b: Bench) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for scroll in (True, False):
        landed, codes = 0, {}
        for n in range(1, 13):
            page, tab = await b.open("tall.html")
            ref = _ref(await b.snapshot(tab), f"Target {n}")
            result, _ = await b.act(tab, {"type": "click", "ref": ref}, snapshot=None, scroll_into_view=scroll)
            clicked = (await page.text_content("#clicked") or "").split()
            if result["ok"] and clicked == [str(n)]:
                landed += 1
            elif not result["ok"]:
                codes[result["error"]["code"]] = codes.get(result["error"]["code"], 0) + 1
            await page.close()
        out["on" if scroll else "off"] = {"targets": 12, "landed": landed, "errors": codes}
    return out


async def _settle_ablation(b: Bench, rounds: int) -> dict[str, Any]:
    rows = []
    settle_all: list[float] = []
    for label, kind in DELAYS.items():
        row: dict[str, Any] = {"effect": kind}
        for mode, request in (("on", {}), ("off", {"settle_min_ms": 0, "settle_timeout_ms": 0})):
            page, tab = await b.open("delayed.html")
            ref = _ref(await b.snapshot(tab), label)
            seen, times = 0, []
            for i in range(1, rounds + 1):
                result, ms = await b.act(tab, {"type": "click", "ref": ref}, **request)
                assert result["ok"], result["error"]
                seen += _has(result["snapshot"], f"Result {i}")
                times.append(ms)
                if mode == "on":
                    settle_all.append(result["settle_ms"])
                # Let a late effect land before the next click so results stay numbered in order.
                await page.wait_for_function(f"() => document.querySelectorAll('#out button').length >= {i}")
            await page.close()
            row[mode] = {"effect_in_snapshot": seen, "rounds": rounds, **stats(times)}
        rows.append(row)
    return {"rows": rows, "settle_ms": stats(settle_all)}


async def _stale_ablation(b: Bench, rounds: int) -> dict[str, Any]:
    inline, separate = [], []
    for _ in range(rounds):
        page, tab = await b.open("buttons.html")
        ref = _ref(await b.snapshot(tab), "Save")
        await page.evaluate("() => window.rerenderSave()")
        result, ms = await b.act(tab, {"type": "click", "ref": ref})
        assert result["error"]["code"] == "stale_ref" and result["snapshot"], result
        inline.append(ms)
        # Without the inline snapshot the agent needs a second round trip for the new refs.
        started = time.perf_counter()
        await b.snapshot(tab)
        separate.append(ms - result["snapshot"]["stats"]["ms"] + (time.perf_counter() - started) * 1000)
        await page.close()
    return {"round_trips_inline": 1, "round_trips_without": 2, "inline": stats(inline), "without": stats(separate),
            "saved_median_ms": round(statistics.median(separate) - statistics.median(inline), 1)}


def _point(snapshot: dict[str, Any], name: str) -> dict[str, float]:
    """The centre of a named element as a point of the snapshot's screenshot (its pixels)."""
    x, y, w, h = next(e["bbox"] for e in snapshot["elements"] if e["name"] == name)
    scale = snapshot["screenshot_scale"]
    return {"x": (x + w / 2) * scale, "y": (y + h / 2) * scale}


async def pointer_actions(b: Bench, rounds: int) -> dict[str, Any]:
    """Latency of each pointer action type (to settled, without a snapshot) on one page, a click
    beside them for scale: drag (mouse-driven list, HTML5 drop zone, slider by offset),
    right_click, and the coordinate actions at points of the page's screenshot."""
    page, tab = await b.open("pointer.html")
    snap = await b.controller.call("snapshot", {"tab_id": tab, "screenshot": True})
    refs = {e["name"]: e["ref"] for e in snap["elements"]}
    card, column = _point(snap, "Write report"), _point(snap, "Done column")
    actions: dict[str, Any] = {
        "click": lambda i: {"type": "click", "ref": refs["Left target"]},
        "drag (mouse list)": lambda i: {"type": "drag", "ref": refs["Apple"], "to_ref": refs["Cherry"]},
        "drag (html5)": lambda i: {"type": "drag", "ref": refs["Write report"], "to_ref": refs["Done column"]},
        "drag (slider dx)": lambda i: {"type": "drag", "ref": refs["Volume"], "dx": 40 if i % 2 else -40},
        "right_click": lambda i: {"type": "right_click", "ref": refs["report.pdf"]},
        "click_at": lambda i: {"type": "click_at", **_point(snap, "Right target")},
        "double_click_at": lambda i: {"type": "double_click_at", **_point(snap, "Twice target")},
        "move_to": lambda i: {"type": "move_to", **_point(snap, "Hover here")},
        "drag_at": lambda i: {"type": "drag_at", "x": card["x"], "y": card["y"], "to_x": column["x"], "to_y": column["y"]},
        "scroll_at": lambda i: {"type": "scroll_at", **_point(snap, "Left target"), "direction": "down" if i % 2 else "up", "amount": 100},
    }
    out: dict[str, Any] = {}
    for label, make in actions.items():
        if label == "drag_at":
            # The HTML5 rounds moved the card into the column: put it back where the screenshot shows it.
            await page.evaluate("() => document.getElementById('done').before(document.getElementById('card'))")
        times, failed = [], 0
        for i in range(rounds):
            if label == "right_click":
                # The menu the last right click opened covers the file: close it as a person would have.
                await page.evaluate("() => { document.getElementById('menu').style.display = 'none'; }")
            result, ms = await b.act(tab, make(i), snapshot=None)
            if result["ok"]:
                times.append(ms)
            else:
                failed += 1
        out[label] = {**stats(times), "failed": failed}
    await page.close()
    return out


async def typing_cost(b: Bench, rounds: int) -> dict[str, Any]:
    """What typing costs per character: the input phase of a fill of N letters into a textarea
    (each a key: a keyDown and a keyUp) beside N characters no key types (one insertText), for
    each length of TYPING_LENGTHS. Both include the same click to focus and Backspace to clear,
    which the cost per key leaves out."""
    page, tab = await b.open("keys.html")
    ref = _ref(await b.snapshot(tab), "Notes")
    await b.act(tab, {"type": "click", "ref": ref}, snapshot=None)  # attaches the debugger
    rows = []
    for n in TYPING_LENGTHS:
        row: dict[str, Any] = {"chars": n}
        for mode, text in (("keys", "a" * n), ("inserted", "é" * n)):
            times = []
            for _ in range(rounds):
                result, _ms = await b.act(tab, {"type": "fill", "ref": ref, "text": text}, snapshot=None)
                assert result["ok"], result["error"]
                assert result["typed"] == ({"keys": n, "inserted": 0} if mode == "keys" else {"keys": 0, "inserted": n}), result["typed"]
                times.append(result["timings_ms"]["input"])
            row[mode] = stats(times)
        # Per character beyond what both share (the click that focuses, the Backspace that clears).
        row["keys_ms_per_char"] = round((row["keys"]["median_ms"] - row["inserted"]["median_ms"]) / n, 2)
        row["keys_chars_per_s"] = round(1000 / row["keys_ms_per_char"]) if row["keys_ms_per_char"] else None
        row["ratio"] = round(row["keys"]["median_ms"] / row["inserted"]["median_ms"], 1) if row["inserted"]["median_ms"] else None
        rows.append(row)
    await page.close()
    return {"rows": rows}


async def first_action_never_loading(b: Bench, rounds: int) -> dict[str, Any]:
    """Time to the first action on a page that never finishes loading (a frame whose response
    stays open, a fetch long poll beside it): open it as a run opens its start page (`tabs.open`),
    snapshot, click; a static page the same way for scale."""
    from waymark.host.control_client import HostCallError

    out: dict[str, Any] = {}
    for label, name, button in (("never loading", "never_loading.html", "Send a message"), ("static", "bench.html", "Add to cart")):
        opened_ms, snapshot_ms, first_ms, landed, unopened = [], [], [], 0, []
        for _ in range(rounds):
            started = time.perf_counter()
            try:
                tab = (await b.controller.call("browser.request", {"method": "tabs.open", "params": {"url": f"{b.site}/{name}"}}))["data"]["tab_id"]
            except HostCallError as exc:
                # The open gave up waiting for the page (a version that waits for its load). Its
                # tab goes too: the connections it holds open count against Chrome's six per host.
                unopened.append({"code": exc.code, "after_ms": round((time.perf_counter() - started) * 1000)})
                for page in [p for p in b.context.pages if p.url.endswith(f"/{name}")]:
                    await page.close()
                continue
            opened = time.perf_counter()
            ref = _ref(await b.snapshot(tab), button)
            snapped = time.perf_counter()
            result, _ms = await b.act(tab, {"type": "click", "ref": ref}, snapshot=None)
            done = time.perf_counter()
            landed += bool(result["ok"])
            opened_ms.append((opened - started) * 1000)
            snapshot_ms.append((snapped - opened) * 1000)
            first_ms.append((done - started) * 1000)
            await b.controller.call("browser.request", {"method": "tabs.close", "params": {"tab_id": tab}})
        out[label] = {"open": stats(opened_ms), "snapshot": stats(snapshot_ms), "first_action": stats(first_ms), "landed": landed, "rounds": rounds,
                      "not_opened": unopened}
    return out


async def action_after_navigation_never_loading(b: Bench, rounds: int) -> dict[str, Any]:
    """Time from a `navigate` during a run to the next action having landed, on a page that never
    finishes loading (first_action_never_loading's) and on a static page: the navigation's settle
    and its inline snapshot, then a click on the page."""
    out: dict[str, Any] = {}
    for label, name, button in (("never loading", "never_loading.html", "Send a message"), ("static", "bench.html", "Add to cart")):
        navigate_ms, settle_ms, next_ms, landed = [], [], [], 0
        for i in range(rounds):
            tab = (await b.controller.call("browser.request", {"method": "tabs.open", "params": {"url": f"{b.site}/bench.html"}}))["data"]["tab_id"]
            started = time.perf_counter()
            went, went_ms = await b.act(tab, {"type": "navigate", "url": f"{b.site}/{name}?round={i}"})
            result, _ms = await b.act(tab, {"type": "click", "ref": _ref(went["snapshot"], button)}, snapshot=None)
            done = time.perf_counter()
            landed += bool(went["ok"] and result["ok"])
            navigate_ms.append(went_ms)
            settle_ms.append(float(went.get("settle_ms") or 0))
            next_ms.append((done - started) * 1000)
            await b.controller.call("browser.request", {"method": "tabs.close", "params": {"tab_id": tab}})
        out[label] = {"navigate": stats(navigate_ms), "settle": stats(settle_ms), "next_action": stats(next_ms), "landed": landed, "rounds": rounds}
    return out


async def run(options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Measure the dispatch path, part by part while the section's bound has time; returns the
    section's numbers (the parts measured)."""
    from waymark.host.control_client import Controller

    rounds = int((options or {}).get("rounds", 20))
    bound = bound_of(options, "dispatch")
    out: dict[str, Any] = {}
    server = SiteServer(PAGES).start()
    try:
        async with Controller() as controller:
            b = Bench(controller, server.site)
            parts = {
                "click": lambda: click_to_snapshot(b, max(rounds, 10)),
                "scroll_into_view": lambda: _scroll_ablation(b),
                "settle": lambda: _settle_ablation(b, max(3, rounds // 4)),
                "stale_ref_inline_snapshot": lambda: _stale_ablation(b, max(3, rounds // 4)),
                "pointer_actions": lambda: pointer_actions(b, max(3, rounds // 2)),
                "typing": lambda: typing_cost(b, max(3, rounds // 4)),
                "first_action_never_loading": lambda: first_action_never_loading(b, 3),
                "action_after_navigation_never_loading": lambda: action_after_navigation_never_loading(b, 3),
            }
            for key in bound.each(parts, "parts"):
                try:
                    out[key] = await bound.within(parts[key]())
                except SectionCut:
                    break
    finally:
        server.close()
    return out


def format_table(result: dict[str, Any]) -> str:
    """The section's numbers as a plain-text table (the parts measured)."""
    lines = []
    if "click" in result:
        c = result["click"]
        t, s, sn, bare = c["click_to_settled_snapshot"], c["settle"], c["snapshot_in_browser"], c["click_without_snapshot"]
        lines += [
            f"dispatch (static page, {c['elements']} elements, path {c['path']}; median / p90 ms)",
            f"  click -> settled snapshot   {t['median_ms']:>7.1f} / {t['p90_ms']:>7.1f}   (target: median < 150)",
        ]
        # Reports written before the per-phase timings existed lack these two rows.
        if "prepare" in c and "input" in c:
            pr, inp = c["prepare"], c["input"]
            lines.append(f"  of which ref, scroll, checks {pr['median_ms']:>6.1f} / {pr['p90_ms']:>7.1f}")
            lines.append(f"  of which CDP input          {inp['median_ms']:>7.1f} / {inp['p90_ms']:>7.1f}")
        lines += [
            f"  of which settle             {s['median_ms']:>7.1f} / {s['p90_ms']:>7.1f}",
            f"  of which snapshot (browser) {sn['median_ms']:>7.1f} / {sn['p90_ms']:>7.1f}",
            f"  click, no snapshot          {bare['median_ms']:>7.1f} / {bare['p90_ms']:>7.1f}",
            f"  first click (attach)        {c['first_click_ms']:>7.1f}        clicks landed {c['clicks_landed']}/{c['clicks_sent']}",
        ]
    else:
        lines.append("dispatch: the click rounds were not measured")
    if "scroll_into_view" in result:
        sc = result["scroll_into_view"]
        lines.append(f"  scroll-into-view on: {sc['on']['landed']}/{sc['on']['targets']} targets clicked; off: {sc['off']['landed']}/{sc['off']['targets']} {sc['off']['errors']}")
    if "settle" in result:
        st = result["settle"]
        lines.append(f"  settle_ms over delayed effects: {st['settle_ms']['median_ms']} / {st['settle_ms']['p90_ms']} (min {st['settle_ms']['min_ms']}, max {st['settle_ms']['max_ms']})")
        lines.append(f"  {'effect':<14} {'settle on: seen, median ms':>28} {'settle off: seen, median ms':>29}")
        for row in st["rows"]:
            on, off = row["on"], row["off"]
            lines.append(f"  {row['effect']:<14} {on['effect_in_snapshot']:>13}/{on['rounds']} {on['median_ms']:>10.1f} {off['effect_in_snapshot']:>15}/{off['rounds']} {off['median_ms']:>10.1f}")
    if "stale_ref_inline_snapshot" in result:
        stale = result["stale_ref_inline_snapshot"]
        lines.append(f"  stale_ref: inline snapshot {stale['inline']['median_ms']} ms in 1 round trip; without it {stale['without']['median_ms']} ms in 2 (saves {stale['saved_median_ms']} ms and one model turn)")
    if "pointer_actions" in result:
        lines.append(f"  {'pointer action (to settled, no snapshot)':<42} {'median / p90 ms':>16}")
        for label, row in result["pointer_actions"].items():
            said = f"{row['median_ms']:>7.1f} / {row['p90_ms']:>7.1f}" if row.get("n") else "      -"
            lines.append(f"  {label:<42} {said}" + (f"   {row['failed']} failed" if row.get("failed") else ""))
    if "typing" in result:
        lines.append(f"  {'typing (fill, input phase; median ms)':<42} {'keys':>8} {'inserted':>9} {'ms/char':>8} {'ratio':>6}")
        for row in result["typing"]["rows"]:
            lines.append(f"  {str(row['chars']) + ' characters':<42} {row['keys']['median_ms']:>8.1f} {row['inserted']['median_ms']:>9.1f} {row['keys_ms_per_char']:>8.2f} {row['ratio']:>6}")
    if "first_action_never_loading" in result:
        for label, row in result["first_action_never_loading"].items():
            lines.append(f"  first action, {label} page: {pair(row['first_action'], '_ms')} ms (open {pair(row['open'], '_ms')}, snapshot {pair(row['snapshot'], '_ms')};"
                         f" {row['landed']}/{row['rounds']} landed, not opened: {row['not_opened']})")
    for label, row in (result.get("action_after_navigation_never_loading") or {}).items():
        lines.append(f"  navigate to a {label} page, then an action: {pair(row['next_action'], '_ms')} ms (navigate {pair(row['navigate'], '_ms')},"
                     f" of which settle {pair(row['settle'], '_ms')}; {row['landed']}/{row['rounds']} landed)")
    return "\n".join(lines)


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    rows = []
    c = r.get("click")
    if c:
        rows += [["click → settled snapshot", pair(c["click_to_settled_snapshot"], "_ms")],
                 ["of which settle", pair(c["settle"], "_ms")],
                 ["of which snapshot (in the browser)", pair(c["snapshot_in_browser"], "_ms")],
                 ["click without a snapshot", pair(c["click_without_snapshot"], "_ms")],
                 ["first click (attaches the debugger)", cell(c["first_click_ms"])],
                 ["clicks landed", f"{c['clicks_landed']}/{c['clicks_sent']}"]]
    sc = r.get("scroll_into_view")
    if sc:
        rows.append(["scroll-into-view on / off: targets clicked",
                     f"{sc['on']['landed']}/{sc['on']['targets']} / {sc['off']['landed']}/{sc['off']['targets']}"])
    for row in (r.get("settle") or {}).get("rows", []):
        on, off = row["on"], row["off"]
        rows.append([f"effect after {row['effect']}: seen with settle / without",
                     f"{on['effect_in_snapshot']}/{on['rounds']} / {off['effect_in_snapshot']}/{off['rounds']}"])
    stale = r.get("stale_ref_inline_snapshot")
    if stale:
        rows.append(["stale ref, the new snapshot inline (1 round trip)", pair(stale["inline"], "_ms")])
        rows.append(["stale ref, the new snapshot asked for (2 round trips)", pair(stale["without"], "_ms")])
    for label, row in (r.get("pointer_actions") or {}).items():
        rows.append([f"pointer: {label}", pair(row, "_ms") + (f" ({row['failed']} failed)" if row.get("failed") else "")])
    for row in (r.get("typing") or {}).get("rows", []):
        rows.append([f"typing {row['chars']} characters (input phase)",
                     f"by key {pair(row['keys'], '_ms')}, inserted {pair(row['inserted'], '_ms')}: {row['keys_ms_per_char']} ms per key ({row['keys_chars_per_s']}/s), {row['ratio']}x"])
    for label, row in (r.get("first_action_never_loading") or {}).items():
        rows.append([f"first action on a {label} page (open, snapshot, click)",
                     f"{pair(row['first_action'], '_ms')} (open {pair(row['open'], '_ms')}, snapshot {pair(row['snapshot'], '_ms')}; {row['landed']}/{row['rounds']} landed"
                     + "".join(f"; not opened: {u['code']} after {u['after_ms']} ms" for u in row["not_opened"]) + ")"])
    for label, row in (r.get("action_after_navigation_never_loading") or {}).items():
        rows.append([f"navigate to a {label} page, then an action",
                     f"{pair(row['next_action'], '_ms')} (navigate {pair(row['navigate'], '_ms')}, of which settle {pair(row['settle'], '_ms')}; {row['landed']}/{row['rounds']} landed)"])
    return table(["dispatch through the real host and extension", "ms (median / p90) or count"], rows)
