"""What "Use this page" adds to a chat turn, measured on the saved corpus pages: the page block
with the readable text (host.rpc.chat.wrap_page) against the block with the elements alone, in
characters and estimated tokens (host.agent.budgets.CHARS_PER_TOKEN).

    .venv/bin/python tools/chat_page_cost.py [CORPUS_PAGES_DIR]

Real Chromium, the real extension and host; the pages are served on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import statistics
import sys
import tempfile
import threading
from pathlib import Path

from playwright.async_api import async_playwright

from waymark.eval.sw_handle import diagnostic_extension
from waymark.host.agent.budgets import CHARS_PER_TOKEN
from waymark.host.core.snapshot import Snapshot
from waymark.host.launch import launch_browser
from waymark.host.rpc.chat import PAGE_BUDGET_CHARS, READABLE_CHARS, wrap_page

DEFAULT_PAGES = Path("/work/shared/corpus/pages")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


def _serve(root: Path) -> str:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


async def measure(root: Path) -> list[tuple[str, int, int, bool]]:
    """(page, characters of the block without the text, with it, text cut at the budget) per page."""
    base = _serve(root)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        env = {f"WAYMARK_{k}_DIR": str(Path(scratch, k.lower())) for k in ("STATE", "CONFIG", "RUNS")}
        async with async_playwright() as p:
            launched = await launch_browser(p, Path(scratch, "profile"), host_env=env, extension=diagnostic_extension(Path(scratch, "ext")))
            sw = launched.service_worker
            try:
                for name in sorted(d.name for d in root.iterdir() if (d / "index.html").exists()):
                    page = await launched.context.new_page()
                    try:
                        await page.goto(f"{base}/{name}/index.html", wait_until="load", timeout=30_000)
                        tab = await sw.evaluate("async (u) => (await chrome.tabs.query({})).find((t) => t.url === u).id", page.url)
                        snap = Snapshot.model_validate(await sw.evaluate(
                            "(t) => globalThis.waymark.call('snapshot', {tab_id: t, max_chars: %d})" % PAGE_BUDGET_CHARS, tab))
                        read = await sw.evaluate(
                            "(t) => globalThis.waymark.call('act', {tab_id: t, action: {type: 'extract', max_chars: %d}, snapshot: null, settle_timeout_ms: 0})"
                            % READABLE_CHARS, tab)
                        text = read.get("text") or ""
                        rows.append((name, len(wrap_page(snap)), len(wrap_page(snap, text)), bool(read.get("truncated"))))
                    except Exception as exc:  # a page that cannot be read is reported, not fatal
                        print(f"{name}: not measured: {exc}".splitlines()[0], file=sys.stderr)
                    finally:
                        await page.close()
            finally:
                await launched.close()
    return rows


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PAGES
    rows = asyncio.run(measure(root))
    added = sorted((w - wo) / CHARS_PER_TOKEN for _, wo, w, _ in rows)
    total = sorted(w / CHARS_PER_TOKEN for _, _, w, _ in rows)
    before = sorted(wo / CHARS_PER_TOKEN for _, wo, _, _ in rows)
    cut = sum(1 for *_, t in rows if t)
    empty = sum(1 for _, wo, w, _ in rows if w == wo)

    def q(values: list[float], f: float) -> int:
        return round(values[min(len(values) - 1, int(f * len(values)))])

    print(f"pages measured: {len(rows)}; text cut at the budget: {cut}; no readable text: {empty}")
    for label, values in (("elements only", before), ("added by the text", added), ("page block with text", total)):
        print(f"{label:22} tokens: median {round(statistics.median(values))}, p90 {q(values, 0.9)}, max {round(max(values))}")


if __name__ == "__main__":
    main()
