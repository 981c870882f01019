"""Scheduled workflows in real Chromium with the real extension and host, "time" moved by the
clock the test gives the host's `schedule.tick` (what the extension's alarm calls), never by
waiting: a due schedule replays its workflow in a background tab that is closed afterwards, the
user's own tab untouched; an answer that changed is notified, one that did not is not; a step that
needs a confirmation stops the run and notifies; missed slots run once."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import expect

from tests.conftest import wait_connected
from tests.e2e.test_sidepanel import Panel, configure
from tests.e2e.worker_helpers import stop_service_worker, until
from waymark.eval.sites.serve import SITES_DIR, SiteServer

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
TASK_FILE = json.loads((ROOT / "eval" / "suites" / "sites" / "orders-total-number.json").read_text())
TOTAL = "€ 1,249.00"
SHOP = {"steps": [
    {"intent": "Add the tea to the cart", "action": {"type": "click", "target": {"role": "button", "name": "Add to cart"}},
     "verify": [{"exists": {"role": "button", "name": "In cart (1)"}}]},
    {"intent": "Place the order", "action": {"type": "click", "target": {"role": "button", "name": "Place order"}},
     "verify": [{"exists": {"role": "link", "name": "View order 1"}}]},
]}


def waymark(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          env=dict(os.environ))


@pytest.fixture(scope="module")
def orders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A copy of the orders site served on loopback whose page the test edits (a total that changes): its file and URL."""
    base = tmp_path_factory.mktemp("scheduled-orders")
    shutil.copytree(SITES_DIR / "orders", base / "orders")
    server = SiteServer(base).start()
    yield base / "orders" / "index.html", f"{server.site}/orders/index.html"
    server.close()


def _set_total(page: Path, total: str) -> None:
    html = page.read_text(encoding="utf-8")
    current = next(t for t in (TOTAL, "€ 1,312.50") if t in html)
    page.write_text(html.replace(current, total), encoding="utf-8")


@pytest.fixture(scope="module")
def total_workflow(orders: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """A scripted run of "what is the total of order PX-1042?" saved as the workflow scheduled-total."""
    schema = tmp_path_factory.mktemp("schema") / "schema.json"
    schema.write_text(json.dumps(TASK_FILE["output_schema"]))
    done = waymark("run", TASK_FILE["goal"], "--start-url", orders[1], "--output-schema", str(schema),
                   "--script", str(ROOT / "eval" / "scripts" / "sites" / "orders-total-number.json"), "--json")
    assert json.loads(done.stdout)["success"], done.stderr[-2000:]
    waymark("workflow", "delete", "scheduled-total")
    saved = waymark("workflow", "save", json.loads(done.stdout)["run_id"], "--name", "scheduled-total")
    assert saved.returncode == 0, saved.stderr
    return "scheduled-total"


def _schedule(name: str, *when: str) -> datetime:
    """Schedule the workflow as a user does; when the schedule was made."""
    from waymark.host.workflows import schedule

    done = waymark("workflow", "schedule", name, *when)
    assert done.returncode == 0, done.stderr
    return datetime.fromisoformat(schedule.get(name).created)


async def _tick(sw: Any, now: datetime) -> dict[str, Any]:
    return await sw.evaluate("(now) => globalThis.waymark.tickSchedules(now)", now.isoformat())


async def _notifications(sw: Any) -> list[dict[str, Any]]:
    return await sw.evaluate("() => chrome.notifications.getAll().then((all) => Object.keys(all))")


@pytest.fixture
async def clear_notifications(sw: Any) -> None:
    await sw.evaluate("() => chrome.notifications.getAll().then((all) => Promise.all(Object.keys(all).map((id) => chrome.notifications.clear(id))))")


async def test_a_due_schedule_replays_its_workflow_in_a_background_tab_closed_afterwards_and_the_users_tab_untouched(
        sw, page, site_url, total_workflow):
    await page.goto(f"{site_url}/sidepanel/shop.html")
    await page.bring_to_front()
    users_tab = await sw.evaluate("() => chrome.tabs.query({active: true, lastFocusedWindow: true}).then(([t]) => t.id)")
    await sw.evaluate("""() => {
        globalThis.seen = {created: [], activated: [], grouped: []};
        chrome.tabs.onCreated.addListener((t) => seen.created.push({id: t.id, active: t.active}));
        chrome.tabs.onActivated.addListener((a) => seen.activated.push(a.tabId));
        chrome.tabs.onUpdated.addListener((id, info) => { if (info.groupId !== undefined && info.groupId >= 0) seen.grouped.push(id); });
    }""")
    tabs_before = await sw.evaluate("() => chrome.tabs.query({}).then((all) => all.map((t) => t.id).sort())")
    made = _schedule(total_workflow, "--every", "1h")

    reply = await _tick(sw, made + timedelta(hours=1, minutes=1))

    (ran,) = reply["ran"]
    assert (ran["workflow"], ran["outcome"], ran["replay"], ran["model_calls"]) == (total_workflow, "done", "unchanged", 0)
    assert ran["answer"] == {"total": 1249}
    seen = await sw.evaluate("() => globalThis.seen")
    (opened,) = seen["created"]
    assert opened["active"] is False and opened["id"] in seen["grouped"] and seen["activated"] == []
    assert await sw.evaluate("() => chrome.tabs.query({}).then((all) => all.map((t) => t.id).sort())") == tabs_before
    assert await sw.evaluate("() => chrome.tabs.query({active: true, lastFocusedWindow: true}).then(([t]) => t.id)") == users_tab
    assert page.url == f"{site_url}/sidepanel/shop.html"
    assert Path(ran["trace"], "summary.json").exists()


async def test_an_answer_that_changed_notifies_and_one_that_did_not_does_not(sw, orders, total_workflow, clear_notifications):
    made = _schedule(total_workflow, "--every", "30m")
    first = await _tick(sw, made + timedelta(minutes=31))
    same = await _tick(sw, made + timedelta(minutes=61))
    assert [r["outcome"] for r in first["ran"] + same["ran"]] == ["done", "done"]
    assert first["notify"] == same["notify"] == [] and await _notifications(sw) == []
    _set_total(orders[0], "€ 1,312.50")
    try:
        changed = await _tick(sw, made + timedelta(minutes=91))
    finally:
        _set_total(orders[0], TOTAL)
    (news,) = changed["notify"]
    assert news["title"] == f"{total_workflow}: the answer changed" and news["message"] == "total: 1249 → 1312.5"
    assert changed["ran"][0]["changed"] == [{"field": "$.total", "was": 1249, "now": 1312.5}]
    assert await _notifications(sw) == [f"waymark-run:{news['trace']}"]


PLACED = "9 March 2026"


@pytest.fixture(scope="module")
def total_and_date_workflow(orders: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """A scripted run that read order PX-1042's total and the day it was placed, saved as the workflow scheduled-order."""
    folder = tmp_path_factory.mktemp("two-fields")
    schema = {"type": "object", "properties": {"total": {"type": "number"}, "placed": {"type": "string"}},
              "required": ["total", "placed"], "additionalProperties": False}
    (folder / "schema.json").write_text(json.dumps(schema))
    (folder / "script.json").write_text(json.dumps({"steps": [{"intent": "Read the page", "action": {"type": "extract"}}],
                                                    "result": f"Order PX-1042, placed {PLACED}, came to {TOTAL}",
                                                    "data": {"total": 1249, "placed": PLACED}}))
    done = waymark("run", "On Parcel, when was order PX-1042 placed and what was its total?", "--start-url", orders[1],
                   "--output-schema", str(folder / "schema.json"), "--script", str(folder / "script.json"), "--json")
    assert json.loads(done.stdout)["success"], done.stderr[-2000:]
    waymark("workflow", "delete", "scheduled-order")
    saved = waymark("workflow", "save", json.loads(done.stdout)["run_id"], "--name", "scheduled-order")
    assert saved.returncode == 0, saved.stderr
    return "scheduled-order"


@pytest.fixture
async def workflows_panel(browser: Any, sw: Any) -> AsyncIterator[Panel]:
    """The side panel's agent view, listing the saved workflows; the test fails if it logs a console error."""
    await configure(sw)
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 380, "height": 900})
    panel = Panel(page)
    await panel.open(browser.extension_id, None)
    await panel.connected()
    await page.locator("#tab-agent").click()
    yield panel
    errors = list(panel.errors)
    await page.close()
    assert errors == [], f"the side panel logged console errors: {errors}"


async def _tick_of(sw: Any, now: datetime, name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What one tick ran of workflow `name`, and what of it was worth a notification."""
    reply = await _tick(sw, now)
    return [r for r in reply["ran"] if r["workflow"] == name], [n for n in reply["notify"] if n["workflow"] == name]


async def test_the_answer_field_ticked_in_the_panels_schedule_form_is_the_only_one_whose_change_notifies(
        sw, orders, total_and_date_workflow, workflows_panel, clear_notifications):
    from waymark.host.workflows import schedule

    name = total_and_date_workflow
    if name in schedule.load_all():
        schedule.remove(name)
    item = workflows_panel.page.locator(f'#workflow-list li[data-name="{name}"]')
    await expect(item.get_by_role("checkbox", name="placed")).not_to_be_checked()
    await item.get_by_role("checkbox", name="total").check()
    await item.get_by_label("Schedule", exact=True).select_option("Every N minutes")
    await item.get_by_label("How many").fill("30")
    await item.get_by_role("button", name="Schedule").click()
    await expect(item.locator(".schedule-fields")).to_have_text("Notifies when total changes")
    made = datetime.fromisoformat(schedule.get(name).created)
    assert schedule.get(name).fields == ["$.total"]
    page = orders[0]
    html = page.read_text(encoding="utf-8")
    try:
        first, _ = await _tick_of(sw, made + timedelta(minutes=31), name)
        assert [(r["outcome"], r["answer"]["total"]) for r in first] == [("done", 1249)]
        page.write_text(html.replace(PLACED, "10 March 2026"), encoding="utf-8")
        redated, told = await _tick_of(sw, made + timedelta(minutes=61), name)
        assert [(r["outcome"], r["answer"]["total"], r["changed"]) for r in redated] == [("done", 1249, [])]
        assert redated[0]["answer"]["placed"] != first[0]["answer"]["placed"]
        assert told == [] and f"waymark-run:{redated[0]['trace']}" not in await _notifications(sw)
        page.write_text(html.replace(PLACED, "10 March 2026").replace(TOTAL, "€ 1,312.50"), encoding="utf-8")
        repriced, told = await _tick_of(sw, made + timedelta(minutes=91), name)
        assert [r["changed"] for r in repriced] == [[{"field": "$.total", "was": 1249, "now": 1312.5}]]
        assert [n["message"] for n in told] == ["total: 1249 → 1312.5"]
        assert f"waymark-run:{repriced[0]['trace']}" in await _notifications(sw)
    finally:
        page.write_text(html, encoding="utf-8")
        schedule.remove(name)


async def test_missed_slots_run_once_when_the_browser_opens_again(sw, total_workflow):
    made = _schedule(total_workflow, "--every", "1h")
    reopened = made + timedelta(hours=5, minutes=10)
    assert len((await _tick(sw, reopened))["ran"]) == 1
    assert (await _tick(sw, reopened + timedelta(minutes=1)))["ran"] == []


async def test_a_paused_schedule_does_not_run(sw, total_workflow):
    made = _schedule(total_workflow, "--every", "1h")
    assert waymark("workflow", "schedule", "pause", total_workflow).returncode == 0
    assert (await _tick(sw, made + timedelta(hours=2)))["ran"] == []


@pytest.fixture(scope="module")
def order_workflow(site_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A run that placed an order (approved on the command line) saved as the workflow tea-reorder,
    whose Place order step nobody approved for scheduled runs."""
    script = tmp_path_factory.mktemp("script") / "shop.json"
    script.write_text(json.dumps(SHOP))
    done = waymark("run", "Buy the green tea", "--start-url", f"{site_url}/sidepanel/shop.html", "--script", str(script),
                   "--confirm", "approve", "--json")
    assert done.returncode == 0, done.stderr
    waymark("workflow", "delete", "tea-reorder")
    assert waymark("workflow", "save", json.loads(done.stdout)["run_id"], "--name", "tea-reorder").returncode == 0
    return "tea-reorder"


async def test_a_step_that_needs_confirmation_stops_the_scheduled_run_and_notifies(sw, order_workflow, clear_notifications):
    from waymark.host.workflows import schedule
    from waymark.host.workflows.schedule import Schedule, every, stamp

    # Scheduled before its workflow was saved again with an order step (the command line refuses it now).
    made = datetime.now().astimezone() - timedelta(hours=2)
    schedule.put(Schedule(workflow=order_workflow, cadence=every("1h"), created=stamp(made)))

    reply = await _tick(sw, made + timedelta(hours=1, minutes=1))

    (ran,) = reply["ran"]
    assert ran["outcome"] == "declined" and 'button "Place order"' in ran["reason"]
    assert "a scheduled run never asks for confirmation" in ran["reason"]
    (news,) = reply["notify"]
    assert news["title"] == f"{order_workflow}: the scheduled run stopped"
    assert await _notifications(sw) == [f"waymark-run:{news['trace']}"]
    schedule.remove(order_workflow)


REPORT = """<!doctype html><title>Report</title><main><h1>Nightly report</h1>
<button type="button" onclick="start()">Wait for the report</button><p id="asked"></p><p id="status"></p></main>
<script>
function start() { document.getElementById("asked").textContent = "Waiting for the report"; poll(); }
async function poll() {
  const said = (await (await fetch("status.txt", {cache: "no-store"})).text()).trim();
  if (said === "ready") document.getElementById("status").textContent = "Report ready"; else setTimeout(poll, 200);
}
</script>"""


def _report_workflow(url: str) -> str:
    """A workflow that asks for a report and waits (up to a minute) until it says "Report ready": a
    report still being prepared holds the replay open."""
    from waymark.host.core.targets import ElementPlace
    from waymark.host.workflows import store
    from waymark.host.workflows.model import Workflow, WorkflowStep

    store.write(Workflow(name="nightly-report", task="Wait for the nightly report", start_url=url, steps=[
        WorkflowStep(intent="Ask for the report", action={"type": "click"},
                     target=ElementPlace(role="button", name="Wait for the report"),
                     checks=[{"text_present": "Waiting for the report"}]),
        WorkflowStep(intent="Wait until the report is ready",
                     action={"type": "wait", "until": {"text_present": "Report ready"}, "timeout_ms": 60_000},
                     checks=[{"text_present": "Report ready"}])]), replace=True)
    return "nightly-report"


async def test_a_worker_stopped_mid_run_ends_the_run_interrupted_with_its_reason_and_trace_and_the_next_tick_runs(
        own_browser, tmp_path):
    from waymark.host.launch import find_service_worker
    from waymark.host.workflows import schedule

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "report.html").write_text(REPORT, encoding="utf-8")
    status = tmp_path / "site" / "status.txt"
    status.write_text("preparing", encoding="utf-8")
    server = SiteServer(tmp_path / "site").start()
    try:
        schedule.save_all({})  # only this schedule is due in this browser
        name = _report_workflow(f"{server.site}/report.html")
        made = _schedule(name, "--every", "1h")
        mid_run = asyncio.create_task(_tick(own_browser.service_worker, made + timedelta(hours=1, minutes=1)))
        await until(lambda: [e.outcome for e in schedule.history(name)] == ["running"] or mid_run.done())
        await until(lambda: any(p.url.endswith("/report.html") for p in own_browser.context.pages))

        await stop_service_worker(own_browser)
        with pytest.raises(PlaywrightError):  # the worker that asked is gone
            await mid_run
        status.write_text("ready", encoding="utf-8")
        panel = await own_browser.context.new_page()  # any extension page wakes a fresh worker
        await panel.goto(f"chrome-extension://{own_browser.extension_id}/sidepanel/sidepanel.html")
        own_browser.service_worker = await find_service_worker(own_browser.context, own_browser.extension_id)
        await wait_connected(own_browser.service_worker)

        reply = await _tick(own_browser.service_worker, made + timedelta(hours=2, minutes=1))

        lost, again = schedule.history(name)
        assert lost.outcome == "interrupted", lost
        assert "service worker stopped while the run was in progress" in lost.reason
        assert Path(lost.trace).is_dir() and any(Path(lost.trace).iterdir())
        (ran,) = reply["ran"]
        assert (ran["run_id"], ran["outcome"], ran["replay"], ran["model_calls"]) == (again.run_id, "done", "unchanged", 0)
        assert not [p for p in own_browser.context.pages if p.url.endswith("/report.html")]
        await panel.close()
    finally:
        schedule.save_all({})
        server.close()
