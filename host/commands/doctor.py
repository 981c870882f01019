"""`waymark doctor`: is the host registered, does it answer, which providers are configured."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from waymark.host.browsers import running
from waymark.host.core import __version__
from waymark.host.extension import extension_origin
from waymark.host.registration import known_browsers, read_manifest


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check the install: registrations, host handshake, Python, providers")
    p.add_argument("--user-data-dir", type=Path, help="check one browser profile folder instead of the user-level ones")
    p.set_defaults(handler=_run)


@dataclass
class Row:
    browser: str
    status: str
    detail: str
    broken: bool


def probe_launcher(path: str, timeout: float = 15.0) -> tuple[bool, str]:
    """Start the registered launcher as Chrome would and complete a handshake with it."""
    from waymark.host.core.protocol import ProtocolError
    from waymark.host.framing import FrameDecodeError, FramingError
    from waymark.host.pipe_client import HostProcess

    if not os.path.isabs(path):
        return False, f"path is not absolute: {path}"
    if not os.access(path, os.X_OK):
        return False, f"launcher is missing or not executable: {path}"
    try:
        with HostProcess([path, extension_origin()]) as host:
            reply = host.request({"v": 1, "type": "hello", "id": "doctor", "extension_version": "doctor"}, timeout)
            code = host.wait(timeout)
    except (OSError, TimeoutError, FramingError, FrameDecodeError, ProtocolError) as exc:
        return False, f"launcher did not answer: {exc}"
    if not reply or reply.get("type") != "hello":
        return False, f"unexpected handshake reply: {reply!r}"[:200]
    if code != 0:
        return False, f"host exited with status {code}"
    return True, f"host {reply.get('host_version')} answered (protocol {reply.get('protocol')})"


def check_manifest(name: str, manifest_path: Path) -> Row:
    """One table row for one browser's registration."""
    if not manifest_path.exists():
        return Row(name, "not registered", str(manifest_path.parent), broken=False)
    manifest = read_manifest(manifest_path)
    if manifest is None:
        return Row(name, "BROKEN", f"unreadable manifest {manifest_path}", broken=True)
    if extension_origin() not in manifest.allowed_origins:
        return Row(name, "BROKEN", f"allows {manifest.allowed_origins}, not {extension_origin()}", broken=True)
    ok, detail = probe_launcher(manifest.path)
    return Row(name, "ok" if ok else "BROKEN", f"{detail}; allows {extension_origin()}", broken=not ok)


def _providers_summary() -> list[str]:
    try:
        from waymark.providers.choices import configured_summary
    except ImportError:
        return ["(provider configuration is not available in this build)"]
    return configured_summary()


def _run(args: argparse.Namespace) -> int:
    if args.user_data_dir:
        rows = [check_manifest("profile", args.user_data_dir / "NativeMessagingHosts" / "dev.waymark.host.json")]
    else:
        rows = [check_manifest(b.name, b.manifest_path) for b in known_browsers()]
    width = max(len(r.browser) for r in rows)
    print(f"waymark {__version__} · Python {sys.version.split()[0]} ({sys.executable})")
    print(f"extension origin: {extension_origin()}")
    print()
    print(f"{'browser':<{width}}  {'status':<15} detail")
    for row in rows:
        print(f"{row.browser:<{width}}  {row.status:<15} {row.detail}")
    print()
    print("providers:")
    for line in _providers_summary():
        print(f"  {line}")
    for browser in running():
        if browser.file_access:
            print(f"\nWARNING: the extension in {browser.label()} may read local files: turn off \"Allow access to file URLs\" "
                  "on its card in chrome://extensions (the agent opens file: URLs only in the folders the settings list)", file=sys.stderr)
    registered = [r for r in rows if r.status != "not registered"]
    if any(r.broken for r in rows):
        print("\nBROKEN: re-run ./install_host.sh", file=sys.stderr)
        return 1
    if not registered:
        print("\nthe host is not registered with any browser: run ./install_host.sh", file=sys.stderr)
        return 1
    print("\nhealthy")
    return 0
