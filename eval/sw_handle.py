"""The diagnostic build of the extension: a copy whose service worker also installs
`globalThis.waymark`, the handle tests and benchmarks evaluate code through. The extension
folder users load stays free of it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from waymark.host.extension import extension_dir

HANDLE_JS = Path(__file__).resolve().parent / "sw_handle.js"
ENTRY = "sw/diagnostic_main.js"


def diagnostic_extension(dest: Path) -> Path:
    """Copy the extension to `dest` with the handle-installing worker entry; returns `dest`.

    The copy keeps the manifest's key, so its ID (and the host's allowed origin) is unchanged.
    """
    shutil.copytree(extension_dir(), dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("tsconfig.json"))
    shutil.copyfile(HANDLE_JS, dest / ENTRY)
    manifest_path = dest / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["background"]["service_worker"] = ENTRY
    manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return dest
