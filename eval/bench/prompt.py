"""Prompt tokens per decision: the real executor and planner requests, built by the agent's own
prompt code for every corpus page's first snapshot (the page as the agent first sees it), and
counted with the bench tokenizer. The executor is counted in both answer modes: native tools
(the tool schemas the provider sends) and JSON in text (the
answer format in the user message). Goal: a median executor call of at most 2,500 tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import SectionCut, bound_of
from waymark.eval.bench.markdown import pair, table
from waymark.eval.bench.snapshot import DEFAULT_TOKENIZER
from waymark.host.core.stats import spread

#: The task every request is built for: generic, so the page is what varies.
TASK = "Find the contact page and open it"
GOAL_MEDIAN_EXECUTOR_TOKENS = 2500


def requests_for(snapshot: Any) -> dict[str, str]:
    """The text each request puts before a model for this snapshot, by kind."""
    from waymark.host.agent import prompts
    from waymark.host.agent.grammar import executor_tools
    from waymark.host.core.actions import SINGLE_TAB_ACTIONS

    page = prompts.snapshot_block(snapshot.url, snapshot.title, snapshot.text, None)
    system = prompts.executor_system(secrets=False)
    tools = [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
             for t in executor_tools(SINGLE_TAB_ACTIONS)]
    args = (TASK, TASK, [], [], None, page)
    return {
        "executor_native": "\n".join([system, prompts.executor_user(*args, text_mode=False), json.dumps(tools)]),
        "executor_text": "\n".join([system, prompts.executor_user(*args, text_mode=True, allowed=SINGLE_TAB_ACTIONS)]),
        "planner": "\n".join([prompts.planner_system(secrets=False), prompts.planner_user(TASK, page)]),
    }


def _stat(values: list[int]) -> dict[str, float]:
    return spread(values)


async def run(options: dict[str, Any]) -> dict[str, Any]:
    """Count every kind of request on every corpus page (bounded per page like every section)."""
    from tokenizers import Tokenizer

    from waymark.eval.sites.serve import SiteServer
    from waymark.host.control_client import Controller
    from waymark.host.core.snapshot import Snapshot

    tokenizer = Tokenizer.from_file(str(options.get("tokenizer") or DEFAULT_TOKENIZER))
    pages_dir = Path(options["corpus"])
    names = sorted(p.parent.name for p in pages_dir.glob("*/index.html"))[: options.get("limit") or None]
    timeout = float(options.get("page_timeout") or 60.0)
    bound = bound_of(options, "prompt")
    counts: dict[str, list[int]] = {"executor_native": [], "executor_text": [], "planner": []}
    errors: dict[str, str] = {}
    server = SiteServer(pages_dir).start()
    try:
        async with Controller(viewport=(1280, 800)) as controller:
            assert controller.browser is not None
            page = await controller.browser.context.new_page()
            for name in bound.each(names, "pages"):
                try:
                    await bound.within(page.goto(f"{server.site}/{name}/index.html", wait_until="load"), timeout)
                    await page.bring_to_front()
                    snap = Snapshot.model_validate(await bound.within(controller.call("snapshot", {}, timeout=timeout), timeout))
                except SectionCut:
                    break
                except Exception as exc:  # a broken page is an error row, never the end of the section
                    errors[name] = f"no snapshot within {timeout:g} s" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {str(exc)[:200]}"
                    continue
                for kind, text in requests_for(snap).items():
                    counts[kind].append(len(tokenizer.encode(text).ids))
    finally:
        server.close()
    measured = {kind: _stat(values) for kind, values in counts.items() if values}
    native = measured.get("executor_native", {}).get("median")
    return {"pages": len(counts["planner"]), "tokens": measured, "errors": errors,
            "targets": {f"median executor call <= {GOAL_MEDIAN_EXECUTOR_TOKENS} tokens": native is not None and native <= GOAL_MEDIAN_EXECUTOR_TOKENS}}


def format_table(result: dict[str, Any]) -> str:
    """The section's numbers as a plain-text table."""
    lines = [f"prompt tokens per decision on {result['pages']} corpus pages (median / p90)"]
    for kind, label in (("executor_native", "executor, native tools"), ("executor_text", "executor, JSON in text"), ("planner", "planner")):
        stat = result["tokens"].get(kind)
        if stat:
            lines.append(f"  {label:<24} {stat['median']:>8.0f} / {stat['p90']:>8.0f}")
    lines.append("  targets: " + ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in result["targets"].items()))
    if result["errors"]:
        lines.append(f"  pages that failed: {len(result['errors'])}")
    return "\n".join(lines)


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    labels = {"executor_native": "executor, native tools", "executor_text": "executor, JSON in text", "planner": "planner"}
    rows = [[label, pair(r["tokens"].get(kind), digits=0)] for kind, label in labels.items() if kind in r["tokens"]]
    return table([f"prompt tokens per decision, {r['pages']} corpus pages", "median / p90"], rows)
