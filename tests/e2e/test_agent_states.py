"""Checks that say what a widget did, through the scripted provider, the real host, extension and
Chromium: a `state` check proves a step by the value a slider of a widget library (noUiSlider,
from its npm dist file) moved to; a `select` on a listbox of ARIA options is proven by the option's
own selected state; a `text_present` check reads a toast outside the page's main content."""

from __future__ import annotations

from typing import Any

from tests.agent_calls import start_run, trace_events


async def _scripted(sw: Any, task: str, start_url: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    run = await start_run(sw, {"task": task, "start_url": start_url, "script": {"steps": steps}, "screenshots": False,
                               "policy": {"destructive": "allow"}})
    return await run.summary()


def _verdicts(summary: dict[str, Any]) -> list[tuple[str, int]]:
    return [(s["verdict"], s["attempt"]) for s in trace_events(summary["trace_dir"], "step")]


async def test_a_state_check_proves_a_step_by_the_value_a_library_slider_moved_to(sw, widgets):
    handle = {"role": "slider", "name": "Lowest price"}
    summary = await _scripted(sw, "Raise the lowest price to 26", f"{widgets}/pages/states_nouislider.html", [
        {"intent": "Press ArrowRight on the Lowest price slider", "action": {"type": "press", "key": "ArrowRight", "target": handle},
         "verify": [{"state": {"target": handle, "value": "26"}}]},
    ])
    assert summary["success"] is True, summary
    assert _verdicts(summary) == [("passed", 1)]


async def test_a_select_on_a_listbox_of_aria_options_is_proven_by_the_option_it_selected(sw, site_url):
    # The step's only check held before it acted: only the option's own selected state can prove it.
    summary = await _scripted(sw, "Choose the size Large", f"{site_url}/agent/size_listbox.html", [
        {"intent": "Select Large in the Size listbox", "action": {"type": "select", "target": {"role": "listbox", "name": "Size"}, "value": "Large"},
         "verify": [{"exists": {"role": "listbox", "name": "Size"}}]},
    ])
    steps = trace_events(summary["trace_dir"], "step")
    assert [s["verdict"] for s in steps] == ["passed"], steps
    assert steps[0]["target_state"] == 'option "Large" selected false -> true'


async def test_a_toast_outside_the_main_content_proves_an_add_to_basket_step(sw, site_url):
    summary = await _scripted(sw, "Add the wool scarf to the basket", f"{site_url}/agent/basket_toast.html", [
        {"intent": "Click Add to basket", "action": {"type": "click", "target": {"role": "button", "name": "Add to basket"}},
         "verify": [{"text_present": "has been added to your basket"}]},
    ])
    assert summary["success"] is True, summary
    assert _verdicts(summary) == [("passed", 1)]
