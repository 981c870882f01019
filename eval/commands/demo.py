"""`waymark demo`: a scripted agent run on the bundled demo shop, end to end, with no API key.

Search, open the first result, add it to the cart past the upsell drawer, open the cart, fill in
checkout, and stop at the confirmation before "Place order": the demo declines it automatically.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

TASK = "Buy Trail Runner 3 running shoes from the demo shop, up to the order confirmation"


#: The harness's agent scripts; the demo's is demo_shop.json.
SCRIPTS_DIR = Path(__file__).resolve().parents[1] / "scripts"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run a scripted agent task on a bundled demo shop (no API key needed)")
    p.add_argument("--headed", action="store_true", help="show the browser window (needs a display)")
    p.add_argument("--json", action="store_true", help="print only the summary, as one JSON object, on stdout")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from waymark.eval.sites.serve import SiteServer
    from waymark.host.agent.timeline import summary_lines
    from waymark.host.commands.run import Console, call_with_console
    from waymark.host.control_client import HostCallError, HostNotConnected

    script = json.loads((SCRIPTS_DIR / "demo_shop.json").read_text(encoding="utf-8"))
    out = sys.stderr if args.json else sys.stdout
    console = Console(out, confirm="decline", auto_note=" (the demo never places an order)")
    with SiteServer() as sites:
        start = f"{sites.site}/shop/index.html"
        console.print("Waymark demo: a scripted agent on a local demo shop (no model, no API key).")
        console.print(f"Shop: {start}\n")
        params = {"task": TASK, "start_url": start, "script": script, "policy": {"destructive": "ask"}}
        try:
            summary = asyncio.run(call_with_console("agent.run", params, console, headed=args.headed))
        except (HostCallError, HostNotConnected, OSError) as exc:
            print(f"waymark demo: {exc}", file=sys.stderr)
            return 1
    # The demo succeeds when every step before "Place order" was verified and that one was declined.
    reached = summary.get("outcome") == "declined" and summary.get("steps_passed") == summary.get("steps_total", 0) - 1
    if args.json:
        print(json.dumps({**summary, "demo_ok": reached}))
    else:
        console.print("")
        console.print(summary_lines(summary))
        if reached:
            console.print("Demo complete: checkout was reached and verified; the order was not placed.")
        console.print(f"See every step: waymark trace show {summary.get('run_id', '')}"
                      f"   (or: waymark trace html {summary.get('run_id', '')})")
    return 0 if reached else 1
