"""`waymark bench` sections: every table renders its result, and the host-overhead section
times the real agent loop over a replay without leaving its timers behind."""

import asyncio

import waymark.host.agent.executor as executor_module
from waymark.eval.bench import dispatch, frames, host_overhead, memory, native, snapshot
from waymark.host.agent.loop import AgentRun
from waymark.host.agent.planner import MAX_PLAN_STEPS
from waymark.host.agent.trace import TraceWriter
from waymark.providers.scripted import ScriptedProvider, load_script


def _stats(median, p90):
    return {"n": 10, "median_ms": median, "p90_ms": p90, "min_ms": median / 2, "max_ms": p90 * 2}


def _page_row(name, ours_ms, peer_ms, ours_chars, peer_chars, baseline, recalled, extra=0):
    return {"page": name, "ours": {"ms": ours_ms, "warm_ms": ours_ms / 2, "chars": ours_chars, "tokens": ours_chars // 4, "pages": 1},
            "peer": {"ms": peer_ms, "chars": peer_chars, "tokens": peer_chars // 4},
            "baseline": baseline, "recalled": recalled, "missed": [], "occluded": 0,
            "listed": recalled + extra, "extra": extra, "extras": []}


def test_snapshot_table_shows_medians_ratios_recall_and_precision_with_the_worst_pages():
    result = snapshot.summarise([_page_row("a", 40.0, 80.0, 2000, 8000, 50, 50, extra=10), _page_row("b", 60.0, 100.0, 4000, 10000, 50, 48)])
    table = snapshot.format_table(result)
    assert "2 corpus pages" in table
    assert "recall 98.00% (98/100" in table and "min 96.00% on b" in table
    assert "precision 90.74% (10 of 108 listed elements are extra" in table and "min 83.33% on a" in table
    assert str(result["ratio_median"]["chars"]) in table


def test_snapshot_table_shows_the_warm_snapshot_beside_the_cold_one():
    result = snapshot.summarise([_page_row("a", 40.0, 80.0, 2000, 8000, 50, 50), _page_row("b", 60.0, 100.0, 4000, 10000, 50, 48)])
    warm = next(line for line in snapshot.format_table(result).splitlines() if "warm ms" in line)
    assert warm.split()[2:5] == ["25.0", "/", f"{result['warm_ms']['p90']:.1f}"]


def test_native_table_shows_each_size_beside_the_echo_peer():
    row = {"rounds": 2, "waymark": {"median_ms": 2.5, "p90_ms": 3.0}, "peer_echo": {"median_ms": 1.25, "p90_ms": 1.5}, "ratio_median": 2.0}
    result = {"browser_to_host": [{"size": "1 KB", **row}, {"size": "10 MB", **row}],
              "host_to_browser": {"bytes": 5 * 1024 * 1024, "median_ms": 120.0, "p90_ms": 150.0}}
    table = native.format_table(result)
    assert "10 MB" in table and "2.0" in table and "5 MB through chunks: 120.0" in table


def test_host_overhead_table_shows_every_phase_and_the_total():
    phases = {p: {"median_us": 10.0 + i, "p90_us": 20.0 + i} for i, p in enumerate((*host_overhead.PHASES, "total"))}
    result = {"steps": 100, "phases": phases, "wall": phases, "model_excluded": {"median_us": 500.0, "p90_us": 900.0},
              "parse_json_text": {"median_us": 12.0, "p90_us": 15.0}, "recorded": {"page": "p", "chars": 6000, "elements": 120, "json_bytes": 1}}
    table = host_overhead.format_table(result)
    for phase in host_overhead.PHASES:
        assert phase in table
    assert "total (host)" in table and "100 steps" in table


def test_dispatch_table_shows_click_to_settled_snapshot_and_the_ablations():
    row = {"effect": "30 ms timer", "on": {"effect_in_snapshot": 3, "rounds": 3, **_stats(80.0, 90.0)},
           "off": {"effect_in_snapshot": 0, "rounds": 3, **_stats(20.0, 25.0)}}
    result = {
        "click": {"path": "cdp", "first_click_ms": 90.0, "clicks_landed": 21, "clicks_sent": 21, "elements": 93,
                  "click_to_settled_snapshot": _stats(70.0, 95.0), "settle": _stats(50.0, 60.0),
                  "snapshot_in_browser": _stats(15.0, 20.0), "click_without_snapshot": _stats(55.0, 65.0)},
        "scroll_into_view": {"on": {"targets": 12, "landed": 12, "errors": {}}, "off": {"targets": 12, "landed": 3, "errors": {"not_visible": 9}}},
        "settle": {"rows": [row], "settle_ms": _stats(50.0, 120.0)},
        "stale_ref_inline_snapshot": {"inline": {"median_ms": 30.0}, "without": {"median_ms": 55.0}, "saved_median_ms": 25.0},
    }
    table = dispatch.format_table(result)
    assert "click -> settled snapshot      70.0 /    95.0" in table
    assert "off: 3/12" in table and "saves 25.0 ms" in table
    assert "pointer action" not in table, "a report from before the pointer actions has no such table"


def test_dispatch_table_lists_the_latency_of_each_pointer_action_type():
    result = {
        "click": {"path": "cdp", "first_click_ms": 90.0, "clicks_landed": 21, "clicks_sent": 21, "elements": 93,
                  "click_to_settled_snapshot": _stats(70.0, 95.0), "settle": _stats(50.0, 60.0),
                  "snapshot_in_browser": _stats(15.0, 20.0), "click_without_snapshot": _stats(55.0, 65.0)},
        "scroll_into_view": {"on": {"targets": 12, "landed": 12, "errors": {}}, "off": {"targets": 12, "landed": 3, "errors": {}}},
        "settle": {"rows": [], "settle_ms": _stats(50.0, 120.0)},
        "stale_ref_inline_snapshot": {"inline": {"median_ms": 30.0}, "without": {"median_ms": 55.0}, "saved_median_ms": 25.0},
        "pointer_actions": {"drag (html5)": {"n": 5, **_stats(140.0, 180.0), "failed": 0},
                            "click_at": {"n": 4, **_stats(60.0, 70.0), "failed": 1}},
    }
    table = dispatch.format_table(result)
    assert "drag (html5)" in table and "140.0 /   180.0" in table
    assert "click_at" in table and "1 failed" in table


def test_memory_table_shows_peak_rss_and_registry_sizes():
    result = {
        "host": {"steps": 50, "runs": 2, "run_ms": 9000.0, "rss_before_kb": 40960, "hwm_before_kb": 40960,
                 "rss_during_median_kb": 41984, "rss_after_kb": 41984, "peak_rss_kb": 43008},
        "content": {"page": "big", "html_bytes": 1_000_000, "rows": [
            {"rerender": False, "snapshots": 100, "elements": 3000, "heap_first_bytes": 2**20, "heap_last_bytes": 2**20,
             "heap_growth_bytes": 0, "registry_first": 3000, "registry_last": 3000},
            {"rerender": True, "snapshots": 100, "elements": 3000, "heap_first_bytes": 2**20, "heap_last_bytes": 2 * 2**20,
             "heap_growth_bytes": 2**20, "registry_first": 3000, "registry_last": 3000}]},
    }
    table = memory.format_table(result)
    assert "peak (VmHWM) 42.0 MB" in table
    assert "static (3000 elements)" in table and "body replaced each time" in table


def test_memory_runs_are_valid_scripts_that_fit_in_one_plan():
    script = load_script(memory.run_script(memory.STEPS_PER_RUN))
    assert len(script.steps) == memory.STEPS_PER_RUN <= MAX_PLAN_STEPS


def _recorded():
    url = "http://127.0.0.1:9/shop/index.html"
    names = ["Docs", "Pricing", "Sign in", "Search"]
    elements = [{"ref": i + 1, "role": "link" if i < 3 else "button", "name": n, "in_viewport": True} for i, n in enumerate(names)]
    text = "\n".join(f'[{e["ref"]}] {e["role"]} "{e["name"]}"' for e in elements)
    snap = {"url": url, "title": "Shop", "elements": elements, "text": text, "tab_id": 7, "stats": {}}
    act = {"ok": True, "action": "scroll", "path": "cdp", "settle_ms": 50.0, "url_before": url, "url_after": url, "tab_id": 7, "snapshot": snap}
    return {"page": "shop", "snapshot": snap, "act": act}


def test_host_overhead_times_every_step_of_the_real_loop_over_a_replay(tmp_path, monkeypatch):
    monkeypatch.setenv("WAYMARK_RUNS_DIR", str(tmp_path))
    result = asyncio.run(host_overhead.measure(_recorded(), MAX_PLAN_STEPS + 2))
    assert result["steps"] == MAX_PLAN_STEPS + 2
    assert all(result["phases"][p]["median_us"] > 0 for p in ("decode", "prompt", "parse", "validate", "predicates", "trace"))


def test_host_overhead_leaves_the_loop_unwrapped_afterwards(tmp_path, monkeypatch):
    monkeypatch.setenv("WAYMARK_RUNS_DIR", str(tmp_path))
    before = (AgentRun._attempt, ScriptedProvider.complete, TraceWriter.event, executor_module.validate_decision)
    asyncio.run(host_overhead.measure(_recorded(), 2))
    assert (AgentRun._attempt, ScriptedProvider.complete, TraceWriter.event, executor_module.validate_decision) == before


def test_frames_table_shows_cold_and_warm_snapshots_beside_the_peer():
    result = {"rounds": 5, "frames": 34, "unreadable_frames": 0, "elements": 240, "cold": {"median_ms": 120.0, "p90_ms": 180.0},
              "warm": {"median_ms": 60.0, "p90_ms": 90.0}, "peer": {"median_ms": 900.0, "p90_ms": 1200.0}, "ratio_cold_median": 0.133}
    table = frames.format_table(result)
    assert "34 frames" in table and "cold snapshot" in table and "warm snapshot" in table and "0.133" in table
