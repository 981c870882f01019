"""Downloads and PDFs, through the scripted provider, the real host, extension and Chromium, on the
loopback reports site (tests/reports_site.py). The authorities: Chrome's own downloads API
(`chrome.downloads.search` in the extension's worker), the file on disk, and pypdf and Chrome's
PDF viewer for the PDF (the viewer shows it: the tab's document is `application/pdf`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.agent_calls import start_run, trace_events
from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, open_page, ref
from tests.e2e.perception_helpers import snapshot
from tests.e2e.worker_helpers import stop_service_worker, until
from tests.reports_site import APRIL_CSV, MARCH_CSV, PDF_LINES
from waymark.host.core.documents import pdf_text

_LINK = {"role": "link", "name": "Download the March report"}


async def _scripted(sw: Any, task: str, start_url: str, steps: list[dict[str, Any]]) -> Any:
    return await start_run(sw, {"task": task, "start_url": start_url, "script": {"steps": steps}, "screenshots": False})


async def _chrome_download(sw: Any, download_id: int) -> dict[str, Any]:
    """Chrome's own record of a download."""
    found = await sw.evaluate("async (id) => chrome.downloads.search({id})", download_id)
    assert found, f"Chrome has no download {download_id}"
    return found[0]


async def _next_download_id(sw: Any) -> int:
    """The id Chrome gives the next download (its ids only grow)."""
    return int(await sw.evaluate("async () => Math.max(0, ...(await chrome.downloads.search({})).map((d) => d.id))")) + 1


def _steps(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return trace_events(summary["trace_dir"], "step")


async def test_a_click_that_downloads_the_report_is_proven_by_the_download(sw, reports_site):
    run = await _scripted(sw, "Download the March report", f"{reports_site.url}/reports.html", [
        {"intent": "Click Download the March report", "action": {"type": "click", "target": _LINK},
         "verify": [{"downloaded": {"name": "march"}}]},
    ])
    summary = await run.summary()
    assert summary["success"] is True, summary
    assert [s["verdict"] for s in _steps(summary)] == ["passed"], _steps(summary)


async def test_a_link_the_server_answers_with_an_attachment_is_proven_by_the_download(sw, reports_site):
    run = await _scripted(sw, "Export the March report", f"{reports_site.url}/reports.html", [
        {"intent": "Click Export March as CSV", "action": {"type": "click", "target": {"role": "link", "name": "Export March as CSV"}},
         "verify": [{"downloaded": {"name": "march-export"}}]},
    ])
    summary = await run.summary()
    assert summary["success"] is True, summary
    steps = _steps(summary)
    assert [s["verdict"] for s in steps] == ["passed"], steps
    assert steps[0]["navigated"] is False  # the tab stayed on the reports page


async def test_the_download_is_recorded_as_chrome_reports_it_where_the_chosen_folder_holds_it(sw, browser, reports_site):
    run = await _scripted(sw, "Download the March report", f"{reports_site.url}/reports.html", [
        {"intent": "Click Download the March report", "action": {"type": "click", "target": _LINK},
         "verify": [{"downloaded": {"name": "march"}}]},
    ])
    summary = await run.summary()
    recorded = [d for s in _steps(summary) for d in s.get("downloads", [])]
    assert len(recorded) == 1, recorded
    chrome = await _chrome_download(sw, recorded[0]["id"])
    landed = Path(chrome["filename"])
    assert (recorded[0]["name"], recorded[0]["mime"], recorded[0]["size"]) == (landed.name, chrome["mime"], chrome["fileSize"])
    assert chrome["state"] == "complete" and chrome["mime"] == "text/csv" and landed.name.startswith("march")
    # Where it landed: the profile's chosen folder, under the name the page gave (not a name Playwright made up).
    assert landed.parent == browser.downloads_dir.resolve()
    assert landed.read_bytes() == MARCH_CSV


async def test_a_download_the_user_starts_in_another_tab_is_not_the_runs(sw, page, reports_site):
    await page.goto(f"{reports_site.url}/mine.html")
    april = await _next_download_id(sw)
    run = await _scripted(sw, "Read the April report", f"{reports_site.url}/reports.html", [
        {"intent": "Wait a moment", "action": {"type": "wait", "ms": 2500}, "verify": []},
        {"intent": "Click Download the March report", "action": {"type": "click", "target": _LINK},
         "verify": [{"downloaded": {"name": "march"}}]},
        # With a download of its own, read_download is offered: the user's file is still not the run's.
        {"intent": "Read the April report", "action": {"type": "read_download", "download": april}, "verify": []},
    ])
    await asyncio.sleep(0.8)
    await page.click("text=Download the April report")  # the user's own tab, during the run
    summary = await run.summary()
    chrome = await _chrome_download(sw, april)
    assert chrome["id"] == april and chrome["state"] == "complete" and Path(chrome["filename"]).read_bytes() == APRIL_CSV
    steps = _steps(summary)
    recorded = {d["id"]: d["name"] for s in steps for d in s.get("downloads", [])}
    assert recorded and april not in recorded and all(name.startswith("march") for name in recorded.values()), recorded
    refused = [s for s in steps if s.get("action", {}).get("type") == "read_download"]
    assert refused and all(s["verdict"] == "refused" and s["error"]["code"] == "unknown_download" for s in refused), refused


async def test_read_download_gives_the_model_the_csv_text_as_page_data(sw, reports_site):
    march = await _next_download_id(sw)
    run = await _scripted(sw, "What was the North region's March revenue?", f"{reports_site.url}/reports.html", [
        {"intent": "Click Download the March report", "action": {"type": "click", "target": _LINK},
         "verify": [{"downloaded": {"name": "march"}}]},
        {"intent": "Read the March report", "action": {"type": "read_download", "download": march}, "verify": []},
    ])
    summary = await run.summary()
    steps = _steps(summary)
    assert [s["verdict"] for s in steps] == ["passed", "passed"], steps
    assert steps[1]["read"] == {"download": march, "chars": len(MARCH_CSV), "truncated": False}
    assert summary["success"] is True, summary


async def test_a_pdf_open_in_the_viewer_is_read_with_the_pages_cookie(sw, reports_site):
    run = await _scripted(sw, "Open the quarterly report and find the March revenue", f"{reports_site.url}/reports.html", [
        {"intent": "Click Open the quarterly report", "action": {"type": "click", "target": {"role": "link", "name": "Open the quarterly report"}},
         "verify": [{"text_present": PDF_LINES[1]}]},
        {"intent": "Read the report", "action": {"type": "extract"}, "verify": []},
    ])
    summary = await run.summary()
    steps = _steps(summary)
    assert steps[0]["verdict"] == "passed", steps
    assert summary["success"] is True, summary
    # The viewer's load and the extension's fetch of the same file both carried the site's cookie.
    assert reports_site.pdf_requests and all(reports_site.pdf_requests)


async def test_a_downloaded_pdf_is_read_with_the_pdf_library(sw, reports_site):
    quarterly = await _next_download_id(sw)
    run = await _scripted(sw, "Download the quarterly report and read it", f"{reports_site.url}/reports.html", [
        {"intent": "Click Download the quarterly report", "action": {"type": "click", "target": {"role": "link", "name": "Download the quarterly report"}},
         "verify": [{"downloaded": {"pattern": r"^quarterly.*\.pdf$"}}]},
        {"intent": "Read the report", "action": {"type": "read_download", "download": quarterly}, "verify": []},
    ])
    summary = await run.summary()
    steps = _steps(summary)
    assert [s["verdict"] for s in steps] == ["passed", "passed"], steps
    # pypdf on the site's own bytes reads what the host read from the file Chrome wrote.
    assert steps[1]["read"]["chars"] == len(pdf_text(reports_site.pdf)) > 0


async def test_the_snapshot_of_a_pdf_in_the_viewer_says_extract_reads_it(sw, page, reports_site):
    await page.goto(f"{reports_site.url}/reports.html")  # the site's cookie, as a signed-in user has it
    await page.goto(f"{reports_site.url}/report.pdf")
    assert await page.evaluate("document.contentType") == "application/pdf"  # Chrome's viewer shows it
    snap = await snapshot(sw, page)
    assert "this tab shows a PDF in the browser's viewer: extract (without a ref) reads its text" in snap["text"].splitlines()


async def test_a_download_the_page_starts_after_the_debugger_left_its_tab_is_still_the_tabs(sw, page, reports_site):
    tab, snap = await open_page(sw, page, f"{reports_site.url}/prepare.html")
    prepared = await _next_download_id(sw)
    await sw.evaluate("() => globalThis.waymark.setIdleDetachMs(200)")
    try:
        await act(sw, tab, {"type": "click", "ref": ref(snap, "Prepare the March export", "button")})
        await until(lambda: sw.evaluate("(t) => !globalThis.waymark.debuggerTabs().includes(t)", tab), timeout_s=10)
        await until(lambda: sw.evaluate("async (id) => (await chrome.downloads.search({id}))[0]?.state === 'complete'", prepared), timeout_s=10)
    finally:
        await sw.evaluate("() => globalThis.waymark.setIdleDetachMs(30000)")
    shown = await snapshot(sw, page)
    assert [(d["id"], d["name"]) for d in shown["downloads"]] == [(prepared, "march-prepared.csv")], shown["downloads"]


async def test_a_download_the_user_starts_in_a_tab_waymark_never_acted_in_is_not_claimed_by_its_page(sw, page, reports_site):
    await page.goto(f"{reports_site.url}/mine.html")
    april = await _next_download_id(sw)
    await page.click("text=Download the April report")
    await until(lambda: sw.evaluate("async (id) => (await chrome.downloads.search({id}))[0]?.state === 'complete'", april), timeout_s=10)
    await asyncio.sleep(2)  # past the wait for an announcement, after which a page may claim its download
    shown = await snapshot(sw, page)
    assert shown["downloads"] == []


async def test_the_downloads_of_a_tab_outlive_a_service_worker_chrome_stopped(own_browser, reports_site):
    from waymark.host.launch import find_service_worker

    sw = own_browser.service_worker
    run = await _scripted(sw, "Download the March report", f"{reports_site.url}/reports.html", [
        {"intent": "Click Download the March report", "action": {"type": "click", "target": _LINK},
         "verify": [{"downloaded": {"name": "march"}}]},
    ])
    summary = await run.summary()
    assert summary["success"] is True, summary
    reports = next(p for p in own_browser.context.pages if p.url.endswith("/reports.html"))
    recorded = [d["id"] for d in (await snapshot(sw, reports))["downloads"]]
    assert len(recorded) == 1, recorded

    await stop_service_worker(own_browser)
    panel = await own_browser.context.new_page()  # any extension page wakes a fresh worker
    await panel.goto(f"chrome-extension://{own_browser.extension_id}/sidepanel/sidepanel.html")
    fresh = await find_service_worker(own_browser.context, own_browser.extension_id)
    own_browser.service_worker = fresh
    await wait_connected(fresh)
    shown = await snapshot(fresh, reports)
    assert [d["id"] for d in shown["downloads"]] == recorded, shown["downloads"]
    await panel.close()
