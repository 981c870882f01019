"""MCP: what a client of `waymark mcp --launch` pays, measured through the official SDK's
ClientSession over stdio exactly as an MCP client runs it. A click's round trip (the answer
carries the settled snapshot) beside the same click through the control socket; the tokens of
the tool list; and the tokens of the snapshot answer on corpus pages beside Playwright's
`aria_snapshot(mode="ai")` (what Playwright MCP answers with) of the same pages.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from waymark.eval.bench.bound import Bound, SectionCut, bound_of
from waymark.eval.bench.dispatch import PAGES, Bench, click_to_snapshot, stats
from waymark.eval.bench.markdown import cell, pair, table
from waymark.eval.sites.serve import SiteServer

DEFAULT_PAGES = 20


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def _clicks(session: Any, site: str, rounds: int, count_tokens: Any) -> dict[str, Any]:
    answer = _text(await session.call_tool("browser_navigate", {"url": f"{site}/bench.html"}))
    ref = int(re.search(r'^\[(\d+)\] button "Add to cart"', answer, re.MULTILINE).group(1))
    await session.call_tool("browser_click", {"ref": ref})  # attaches the debugger
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        result = await session.call_tool("browser_click", {"ref": ref})
        times.append((time.perf_counter() - started) * 1000)
        assert not result.is_error, _text(result)
    # What the client reads after the click (only the change, when shorter) beside the whole page.
    whole = _text(await session.call_tool("browser_snapshot", {}))
    return {"click_with_snapshot": stats(times), "answer_chars": len(_text(result)), "answer_tokens": count_tokens(_text(result)),
            "whole_snapshot_tokens": count_tokens(whole)}


async def _snapshots(session: Any, corpus: Path, pages: list[Path], count_tokens: Any, bound: Bound) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    from waymark.host.launch import BASE_FLAGS, chromium_path

    rows = []
    server = SiteServer(corpus).start()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium_path(), args=BASE_FLAGS)
            page = await browser.new_page(viewport={"width": 1280, "height": 800})
            for folder in bound.each(pages, "pages", "snapshot answers"):
                url = f"{server.site}/{folder.name}/index.html"
                try:
                    ours = await bound.within(session.call_tool("browser_navigate", {"url": url}))
                    answer = _text(await bound.within(session.call_tool("browser_snapshot", {})))
                    if ours.is_error:
                        continue
                    await bound.within(page.goto(url, wait_until="load", timeout=30000))
                    peer = await bound.within(page.aria_snapshot(mode="ai", timeout=60000))
                except SectionCut:
                    break
                rows.append({"page": folder.name, "ours": count_tokens(answer), "peer": count_tokens(peer)})
            await browser.close()
    finally:
        server.close()
    ratios = [r["ours"] / r["peer"] for r in rows if r["peer"]]
    return {"pages": len(rows), "ours_median": statistics.median(r["ours"] for r in rows) if rows else 0,
            "peer_median": statistics.median(r["peer"] for r in rows) if rows else 0,
            "ratio_median": round(statistics.median(ratios), 2) if ratios else None, "rows": rows}


async def run(options: dict[str, Any]) -> dict[str, Any]:
    """`waymark bench --sections mcp`: options["rounds"], options["limit"] (corpus pages, default 20),
    options["corpus"] and options["tokenizer"] as for the snapshot section."""
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(options["tokenizer"]))

    def count_tokens(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    corpus = Path(options["corpus"])
    pages = sorted(p for p in corpus.iterdir() if (p / "index.html").is_file())[: options.get("limit") or DEFAULT_PAGES]
    params = StdioServerParameters(command=sys.executable, args=["-m", "waymark.host", "mcp", "--launch"], env=dict(os.environ))
    rounds = int(options.get("rounds", 20))
    bound = bound_of(options, "mcp")
    server = SiteServer(PAGES).start()
    try:
        from waymark.host.control_client import Controller

        async with Controller() as controller:
            direct = (await bound.within(click_to_snapshot(Bench(controller, server.site), rounds)))["click_to_settled_snapshot"]
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    listed = tools.model_dump_json(by_alias=True, exclude_none=True)
                    clicks = await bound.within(_clicks(session, server.site, rounds, count_tokens))
                    snapshots = await _snapshots(session, corpus, pages, count_tokens, bound)
    finally:
        server.close()
    return {"tools": len(tools.tools), "tool_list_tokens": count_tokens(listed), **clicks, "click_through_control_socket": direct,
            "snapshot": snapshots}


def format_table(result: dict[str, Any]) -> str:
    """The section's numbers as a plain-text table."""
    c, d, s = result["click_with_snapshot"], result["click_through_control_socket"], result["snapshot"]
    return "\n".join([
        "mcp (waymark mcp --launch through the SDK's ClientSession over stdio)",
        f"  tools listed: {result['tools']}, {result['tool_list_tokens']} tokens for the whole list",
        f"  browser_click -> result + settled snapshot   {c['median_ms']:>7.1f} / {c['p90_ms']:>7.1f} ms (median / p90)",
        f"  the same click through the control socket    {d['median_ms']:>7.1f} / {d['p90_ms']:>7.1f} ms",
        f"  a click's answer: {result['answer_tokens']:,} tokens (only what changed) vs {result['whole_snapshot_tokens']:,} for the whole snapshot",
        f"  snapshot answer tokens on {s['pages']} corpus pages: median {s['ours_median']:,.0f} vs Playwright aria_snapshot(mode='ai') "
        f"{s['peer_median']:,.0f} (ratio of medians per page {s['ratio_median']})",
    ])


def format_markdown(r: dict[str, Any]) -> str:
    """The section's numbers as a markdown table (the docs' tables and `waymark bench --markdown`)."""
    s = r["snapshot"]
    rows = [["tools listed (tokens of the whole list)", f"{r['tools']} ({r['tool_list_tokens']:,} tokens)", "–"],
            ["`browser_click` → result and settled snapshot, ms", pair(r["click_with_snapshot"], "_ms"), "–"],
            ["the same click through the control socket, ms", pair(r["click_through_control_socket"], "_ms"), "–"],
            ["a click's answer, tokens (only what changed / whole snapshot)", f"{r['answer_tokens']:,} / {r['whole_snapshot_tokens']:,}", "–"],
            [f"snapshot answer tokens, median of {s['pages']} corpus pages", cell(s["ours_median"], 0), cell(s["peer_median"], 0)]]
    return table(["`waymark mcp --launch` through the MCP SDK", "Waymark", "Playwright `aria_snapshot(mode='ai')`"], rows)
