"""`waymark install-host`: register (or remove) the native host for Chromium-family browsers.

install_host.sh runs this from the checkout's .venv after installing the package.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from waymark.host import registration
from waymark.host.extension import extension_dir, extension_id
from waymark.host.registration import LAUNCHER_NAME, installed_browsers, known_browsers


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("install-host", help="register the native host with every Chromium-family browser found")
    p.add_argument("--uninstall", action="store_true", help="remove the registrations and launcher this wrote")
    p.add_argument("--user-data-dir", type=Path, help="register into this one browser profile folder only")
    p.add_argument("--launcher-dir", type=Path, help="where to write the launcher (default: the checkout's .venv)")
    p.set_defaults(handler=_run)


def _launcher_path(args: argparse.Namespace) -> Path:
    folder = args.launcher_dir or Path(sys.prefix)
    return folder / LAUNCHER_NAME


def _targets(args: argparse.Namespace) -> list[tuple[str, Path]]:
    if args.user_data_dir:
        return [("profile", args.user_data_dir.resolve() / "NativeMessagingHosts")]
    found = installed_browsers()
    if not found:
        # No browser has run yet: register for Chrome and Chromium so the first start works.
        found = [b for b in known_browsers() if b.name in ("Chrome", "Chromium")]
    return [(b.name, b.hosts_dir) for b in found]


def _run(args: argparse.Namespace) -> int:
    launcher = _launcher_path(args)
    if args.uninstall:
        targets = [("profile", args.user_data_dir.resolve() / "NativeMessagingHosts")] if args.user_data_dir else [(b.name, b.hosts_dir) for b in known_browsers()]
        for name, hosts_dir in targets:
            if registration.unregister(hosts_dir):
                print(f"removed  {name:<14} {hosts_dir}")
        if launcher.exists():
            launcher.unlink()
            print(f"removed  launcher       {launcher}")
        return 0
    registration.write_launcher(launcher)
    print(f"launcher {launcher}")
    for name, hosts_dir in _targets(args):
        path = registration.register(hosts_dir, launcher)
        print(f"registered {name:<12} {path}")
    print()
    print(f"Extension ID: {extension_id()}")
    print("Load the extension in your browser:")
    print("  1. open chrome://extensions")
    print("  2. turn on Developer mode (top right)")
    print("  3. click Load unpacked and choose this folder:")
    print(f"     {extension_dir()}")
    print("Then check the install with: .venv/bin/waymark doctor")
    return 0
