"""Recording's cost to the user's own clicks: how long after a click its page's own handler runs,
while the side panel records the tab and while it does not, over a 10-step task (ten buttons
clicked with Playwright's mouse, at a person's pace: each click once the panel shows the step
before it recorded).

The delay is read in the page (`performance.now() - event.timeStamp` in the button's own click
listener), so it is what the page, and the person, wait for: the recorder's capture listener
(content/recorder.js) runs before the page's listener. Run it with
`python -m waymark.eval.bench.record [--rounds N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from waymark.eval.sites.serve import SiteServer

#: Buttons of the task: one recorded step each.
STEPS = 10
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ten steps</title></head><body>
<h1>Ten steps</h1><p id="done">0 done</p>
%s
<script>
window.delays = [];
let done = 0;
for (const b of document.querySelectorAll("button")) b.addEventListener("click", (e) => {
  window.delays.push(performance.now() - e.timeStamp);
  document.getElementById("done").textContent = `${++done} done`;
});
</script></body></html>""" % "\n".join(f'<button type="button" id="b{i}">Step {i + 1}</button>' for i in range(STEPS))


async def _clicks(page: Any, panel: Any | None) -> list[float]:
    """Click every button once; with `panel`, wait for each step to be recorded before the next."""
    await page.evaluate("() => { window.delays = []; }")
    for i in range(STEPS):
        await page.click(f"#b{i}")
        if panel is not None:
            await panel.locator("#record-status").filter(has_text=f"Recording: {i + 1} step(s)").wait_for(timeout=20000)
    return [float(d) for d in await page.evaluate("() => window.delays")]


async def run(options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Median and p90 of the click-to-handler delay, recorded and not, over `rounds` 10-step tasks."""
    from waymark.host.control_client import Controller

    rounds = max(1, int((options or {}).get("rounds", 5)))
    folder = Path(tempfile.mkdtemp(prefix="waymark-record-bench-"))
    (folder / "steps.html").write_text(PAGE, encoding="utf-8")
    server = SiteServer(folder).start()
    plain: list[float] = []
    recorded: list[float] = []
    try:
        async with Controller(viewport=(1280, 800)) as controller:
            browser = controller.browser
            assert browser is not None
            page = await browser.context.new_page()
            url = f"{server.site}/steps.html"
            await page.goto(url, wait_until="load")
            tab_id = await browser.service_worker.evaluate(
                "async (url) => (await chrome.tabs.query({})).find((t) => t.url === url)?.id ?? null", url)
            panel = await browser.context.new_page()
            await panel.goto(f"chrome-extension://{browser.extension_id}/sidepanel/sidepanel.html?tab={tab_id}")
            await panel.locator("#tab-agent").click()
            for _ in range(rounds):
                await page.reload(wait_until="load")
                plain += await _clicks(page, None)
                await panel.get_by_role("button", name="Record").click()
                await panel.locator("#record-status").filter(has_text="Recording: 0 step(s)").wait_for()
                recorded += await _clicks(page, panel)
                await panel.get_by_role("button", name="Stop").click()
                await panel.get_by_role("button", name="Record").wait_for()
    finally:
        server.close()

    def spread(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {"median_ms": round(statistics.median(ordered), 3), "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 3)}

    return {"clicks": len(recorded), "not_recorded": spread(plain), "recorded": spread(recorded),
            "added_median_ms": round(statistics.median(recorded) - statistics.median(plain), 3)}


def format_table(result: dict[str, Any]) -> str:
    """The numbers as a plain-text table."""
    n, r = result["not_recorded"], result["recorded"]
    return "\n".join([
        f"recording: click-to-handler delay in the page ({result['clicks']} clicks each; median / p90 ms)",
        f"  not recorded {n['median_ms']:>7.3f} / {n['p90_ms']:>7.3f}",
        f"  recorded     {r['median_ms']:>7.3f} / {r['p90_ms']:>7.3f}   added (median) {result['added_median_ms']:.3f} ms",
    ])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="10-step tasks per condition")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    measured = asyncio.run(run({"rounds": args.rounds}))
    print(json.dumps(measured) if args.json else format_table(measured))
