"""`waymark mcp`: serve Waymark's browser tools to an MCP client over stdio."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from waymark.host.commands._model_args import add_model_arguments, models_from_args

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

#: --confirm -> the policy for destructive actions (ask: the client asks its user through elicitation).
CONFIRM_POLICIES = {"ask": "ask", "approve": "allow", "decline": "block"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the browser to an MCP client over stdio (attach to your Chrome, or --launch one)")
    p.add_argument("--launch", action="store_true", help="launch Chromium with the extension instead of attaching to your Chrome")
    p.add_argument("--headed", action="store_true", help="with --launch: show the browser window (needs a display)")
    p.add_argument("--user-data-dir", metavar="DIR", type=Path, help="with --launch: the browser profile folder (default: a fresh one)")
    p.add_argument("--socket", metavar="PATH", type=Path, help="attach through this control socket (default: the running browser's)")
    p.add_argument("--browser", metavar="WORD", help="with several browsers running: attach to the one whose profile folder "
                   "(or host pid) contains WORD")
    p.add_argument("--confirm", choices=sorted(CONFIRM_POLICIES),
                   help="destructive actions: ask the client's user, approve or decline them (default: the side panel's setting)")
    add_model_arguments(p)
    p.add_argument("--script", metavar="FILE", help="browser_run_task drives both roles with the scripted provider and this script")
    p.set_defaults(handler=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    from waymark.host.agent.confirm import Policy
    from waymark.host.core.paths import control_socket_override
    from waymark.host.logs import configure_logging
    from waymark.host.mcp.link import AttachedLink, LaunchedLink
    from waymark.host.mcp.server import serve
    from waymark.host.mcp.session import McpSession
    from waymark.host.settings import load_settings

    if (args.headed or args.user_data_dir) and not args.launch:
        print("waymark mcp: --headed and --user-data-dir go with --launch", file=sys.stderr)
        return EXIT_USAGE
    if args.browser and (args.launch or args.socket):
        print("waymark mcp: --browser chooses among running browsers: not with --launch or --socket", file=sys.stderr)
        return EXIT_USAGE
    try:
        models = models_from_args(args)
    except ValueError as exc:
        print(f"waymark mcp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not args.launch and set(models) - {"plan"}:
        # Attached to the user's browser, the host refuses a client's model choice (param_not_allowed): say so at once.
        print("waymark mcp: --script and the model options go with --launch; attached, tasks run with the models "
              "saved in Waymark's settings", file=sys.stderr)
        return EXIT_USAGE
    # stdout is the MCP channel from here on: everything else goes to mcp.log.
    configure_logging(file_name="mcp.log")
    settings = load_settings()
    policy = Policy(destructive=CONFIRM_POLICIES[args.confirm] if args.confirm else settings.confirm_policy,
                    allow_domains=settings.allow_domains, block_domains=settings.block_domains)
    if args.launch:
        link: LaunchedLink | AttachedLink = LaunchedLink(headed=args.headed, user_data_dir=args.user_data_dir)
        session = McpSession(link.get, policy)
    else:
        link = AttachedLink(args.socket or control_socket_override(), args.browser)
        session = McpSession(link.get, policy, attached=True)
    try:
        asyncio.run(serve(link, session, models))
    except KeyboardInterrupt:
        return EXIT_OK
    except Exception:
        logging.getLogger(__name__).exception("the MCP server failed")
        return EXIT_FAILED
    return EXIT_OK
