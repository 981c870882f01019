"""Registering the native host with Chromium-family browsers: one authority for
install_host.sh, `waymark doctor` and the test rig."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

import waymark
from waymark.host.core import HOST_NAME
from waymark.host.extension import extension_origin

LAUNCHER_NAME = "waymark-native-host"


@dataclass(frozen=True)
class BrowserProfileRoot:
    """A browser's user-level config folder, where NativeMessagingHosts/ lives."""

    name: str
    root: Path

    @property
    def hosts_dir(self) -> Path:
        return self.root / "NativeMessagingHosts"

    @property
    def manifest_path(self) -> Path:
        return self.hosts_dir / f"{HOST_NAME}.json"


def known_browsers(home: Path | None = None) -> list[BrowserProfileRoot]:
    """Every Chromium-family browser's user-level folder on this platform."""
    home = home or Path.home()
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
        pairs = [
            ("Chrome", "Google/Chrome"),
            ("Chrome Beta", "Google/Chrome Beta"),
            ("Chrome Canary", "Google/Chrome Canary"),
            ("Chromium", "Chromium"),
            ("Brave", "BraveSoftware/Brave-Browser"),
            ("Edge", "Microsoft Edge"),
            ("Vivaldi", "Vivaldi"),
        ]
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        pairs = [
            ("Chrome", "google-chrome"),
            ("Chrome Beta", "google-chrome-beta"),
            ("Chrome Canary", "google-chrome-unstable"),
            ("Chromium", "chromium"),
            ("Brave", "BraveSoftware/Brave-Browser"),
            ("Edge", "microsoft-edge"),
            ("Vivaldi", "vivaldi"),
        ]
    return [BrowserProfileRoot(name, base / rel) for name, rel in pairs]


def installed_browsers(home: Path | None = None) -> list[BrowserProfileRoot]:
    """The browsers whose config folder exists (they have been run at least once)."""
    return [b for b in known_browsers(home) if b.root.is_dir()]


class HostManifest(BaseModel):
    """Chrome's native messaging host manifest."""

    model_config = ConfigDict(extra="allow")

    name: str
    description: str
    path: str
    type: str
    allowed_origins: list[str]


def source_root() -> Path:
    """The folder holding the `waymark` package this process runs (the checkout, or site-packages)."""
    return Path(waymark.__file__).resolve().parent.parent


def write_launcher(path: Path, python: str | None = None, env: dict[str, str] | None = None) -> Path:
    """Write the executable script Chrome starts: it runs `waymark host` with this Python and
    this source tree, so the host Chrome starts is exactly the code that registered it."""
    python = python or sys.executable
    lines = ["#!/bin/sh", "# Written by Waymark: starts the native-messaging host."]
    env = {"PYTHONPATH": str(source_root()), **(env or {})}
    for key, value in sorted(env.items()):
        lines.append(f"export {key}={shlex.quote(value)}")
    lines.append(f'exec {shlex.quote(python)} -m waymark.host host "$@"')
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def host_manifest(launcher: Path) -> HostManifest:
    """The manifest that points Chrome at `launcher` and allows only our extension."""
    return HostManifest(
        name=HOST_NAME,
        description="Waymark native-messaging host",
        path=str(launcher.resolve()),
        type="stdio",
        allowed_origins=[extension_origin()],
    )


def register(hosts_dir: Path, launcher: Path) -> Path:
    """Write the host manifest into one NativeMessagingHosts folder; returns its path."""
    hosts_dir.mkdir(parents=True, exist_ok=True)
    target = hosts_dir / f"{HOST_NAME}.json"
    target.write_text(host_manifest(launcher).model_dump_json(indent=2) + "\n", encoding="utf-8")
    return target


def unregister(hosts_dir: Path) -> bool:
    """Remove our manifest from one folder; True when there was one."""
    target = hosts_dir / f"{HOST_NAME}.json"
    if target.exists():
        target.unlink()
        return True
    return False


def read_manifest(path: Path) -> HostManifest | None:
    """Parse a registered manifest, or None when it is missing or unreadable."""
    try:
        return HostManifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def register_profile(user_data_dir: Path, env: dict[str, str] | None = None) -> Path:
    """Register the host inside one browser profile folder (what the tests and CLI use)."""
    hosts_dir = user_data_dir / "NativeMessagingHosts"
    launcher = write_launcher(hosts_dir / LAUNCHER_NAME, env=env)
    return register(hosts_dir, launcher)
