"""Settling after an action: the settled snapshot shows the action's effect, however it arrives
(at once, from a timer, after a request), and a page that never rests does not hold the agent."""

import pytest

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, ref, snapshot, tab_id_of


async def click_delayed(sw, page, site_url, label: str, **request):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/delayed.html")
    tab = await tab_id_of(sw, page)
    snap = await snapshot(sw, tab)
    return await act(sw, tab, {"type": "click", "ref": ref(snap, label)}, **request)


@pytest.mark.parametrize("label", ["Show now", "Show after 120 ms", "Show after two timers", "Show after a fetch", "Show after two frames"],
                         ids=["synchronous", "120 ms timer", "timer set by a timer", "after a fetch", "frame callback set by a frame callback"])
async def test_the_clicks_effect_is_in_the_settled_snapshot(sw, page, site_url, label):
    result = await click_delayed(sw, page, site_url, label)
    assert result.ok, result.error
    assert result.settled is True
    assert "Result 1" in result.snapshot.text


# The page clicks its own button (the click's input is not what is tested), and settle starts
# while the long task it queued holds the page: its question reaches the page 400 ms late.
SETTLE_BEHIND_A_LONG_TASK = """async ({tab, label}) => {
  const watcher = globalThis.waymark.watch(tab);
  const began = performance.now();
  await chrome.scripting.executeScript({target: {tabId: tab}, world: "MAIN", args: [label],
    func: (name) => [...document.querySelectorAll("button")].find((b) => b.textContent === name).click()});
  const settled = await watcher.settle({startedAt: performance.now(), beganAt: began, minMs: 0, timeoutMs: 3000});
  watcher.stop();
  const [{result: out}] = await chrome.scripting.executeScript({target: {tabId: tab}, func: () => document.getElementById("out").textContent});
  return {sent: settled.sent, out};
}"""


async def settle_behind_a_long_task(sw, page, site_url, label: str) -> dict:
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/delayed.html")
    return await sw.evaluate(SETTLE_BEHIND_A_LONG_TASK, {"tab": await tab_id_of(sw, page), "label": label})


async def test_a_timer_the_action_set_is_waited_for_when_a_long_task_delays_settle_reaching_the_page(sw, page, site_url):
    settled = await settle_behind_a_long_task(sw, page, site_url, "Show after 600 ms behind a long task")
    assert settled["out"] == "Result 1"


async def test_a_request_the_action_sent_is_seen_when_a_long_task_delays_settle_reaching_the_page(sw, page, site_url):
    settled = await settle_behind_a_long_task(sw, page, site_url, "Send behind a long task")
    assert settled["sent"] is True


async def test_a_polling_loop_the_click_started_does_not_hold_settle_to_its_deadline(sw, page, site_url):
    result = await click_delayed(sw, page, site_url, "Start polling", settle_timeout_ms=20_000)
    assert result.ok, result.error
    assert result.settled is True, "settle ended at its deadline: the poll held it"
    assert await page.text_content("#polls") != "0"


async def test_the_page_sees_its_own_timer_functions_unchanged(page, site_url):
    await page.goto(f"{site_url}/dispatch/delayed.html")
    faces = await page.evaluate("() => [setTimeout, clearTimeout, requestAnimationFrame, cancelAnimationFrame, fetch,"
                                " XMLHttpRequest.prototype.send].map(String)")
    assert all("[native code]" in face for face in faces), faces


async def test_a_polling_loop_is_not_pending_work_once_it_has_gone_round_twice(page, site_url):
    await page.goto(f"{site_url}/dispatch/delayed.html")
    await page.click("#poll")
    await page.wait_for_function("() => Number(document.getElementById('polls').textContent) >= 3")
    # Ask the page-world tracker (as settle does) over three rounds of the 100 ms poll.
    busy = await page.evaluate("""async () => {
      let busy = 0;
      for (let i = 0; i < 30; i++) {
        const ask = new CustomEvent("__waymark_busy", { cancelable: true, detail: 0 });
        document.dispatchEvent(ask);
        busy += ask.defaultPrevented ? 1 : 0;
        await new Promise((r) => setTimeout(r, 10));
      }
      return busy;
    }""")
    assert busy == 0, f"the poll was pending work in {busy} of 30 looks"
