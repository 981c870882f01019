"""`waymark snapshot URL`: launch headless Chromium with the real extension and host, load the
page, print the snapshot exactly as the model sees it (or, with --json, as programs see it)."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import re
import sys
from pathlib import Path
from typing import Any

#: The keys of the documented --json object, and of each element in it.
JSON_KEYS = ("url", "title", "viewport", "elements", "next_offset", "page_overflow", "stats")
ELEMENT_KEYS = ("ref", "role", "name", "value", "states", "bbox", "frame", "in_viewport")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("snapshot", help="print the snapshot of a page as the model sees it")
    p.add_argument("url", help="the page to load (http, https or file URL)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the model text")
    p.add_argument("--max-chars", type=int, default=20_000, help="budget of the model text (default 20000, at least 200)")
    p.add_argument("--offset", type=int, default=0, help="first item of the page (a previous next_offset)")
    p.add_argument("--viewport", type=_viewport, default=(1280, 800), metavar="WxH", help="viewport size (default 1280x800)")
    p.add_argument("--screenshot", type=Path, metavar="FILE", help="also write the numbered-overlay screenshot (JPEG) here")
    p.set_defaults(handler=_run)


def _viewport(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d{2,5})x(\d{2,5})", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT like 1280x800, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def documented_json(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The --json object: the documented keys of the snapshot, and of each element."""
    out = {key: snapshot.get(key) for key in JSON_KEYS}
    out["elements"] = [{key: e.get(key) for key in ELEMENT_KEYS} for e in snapshot.get("elements", [])]
    return out


async def take(url: str, *, viewport: tuple[int, int], max_chars: int, offset: int, screenshot: bool) -> dict[str, Any]:
    """Launch the browser, load `url` in its tab and return the host's `snapshot` answer."""
    from waymark.host.control_client import Controller

    async with Controller(viewport=viewport) as controller:
        assert controller.browser is not None
        context = controller.browser.context
        page = context.pages[0] if context.pages else await context.new_page()
        for other in context.pages[1:]:
            await other.close()
        await page.goto(url, wait_until="load")
        await page.bring_to_front()
        return await controller.call(
            "snapshot", {"max_chars": max_chars, "offset": offset, "screenshot": screenshot}, timeout=120
        )


def _run(args: argparse.Namespace) -> int:
    from waymark.host.control_client import HostCallError

    if args.max_chars < 200:
        print("waymark snapshot: --max-chars must be at least 200", file=sys.stderr)
        return 2
    if args.offset < 0:
        print("waymark snapshot: --offset must not be negative", file=sys.stderr)
        return 2
    try:
        snap = asyncio.run(take(args.url, viewport=args.viewport, max_chars=args.max_chars, offset=args.offset,
                                screenshot=args.screenshot is not None))
    except HostCallError as exc:
        print(f"waymark snapshot: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    except Exception as exc:  # a browser that cannot start, a page that cannot load: say which
        print(f"waymark snapshot: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if args.screenshot is not None:
        if snap.get("screenshot_b64"):
            args.screenshot.write_bytes(base64.b64decode(snap["screenshot_b64"]))
        else:
            print(f"waymark snapshot: no screenshot: {snap.get('stats', {}).get('screenshot_error', 'unknown reason')}", file=sys.stderr)
    if args.json:
        print(json.dumps(documented_json(snap), ensure_ascii=False))
    else:
        # The model reads the title and URL beside the text (host.agent.prompts.snapshot_block).
        print(f"page {json.dumps(snap.get('title', ''), ensure_ascii=False)} {snap.get('url', '')}")
        print(snap.get("text", ""))
    return 0
