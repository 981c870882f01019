"""The diagnostic build of the extension: a copy whose service worker also installs
`globalThis.waymark`, the handle tests and benchmarks evaluate code through, and whose side panel
installs `globalThis.waymarkPanel`. The extension folder users load stays free of both."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from waymark.host.extension import extension_dir

HANDLE_JS = Path(__file__).resolve().parent / "sw_handle.js"
ENTRY = "sw/diagnostic_main.js"
PANEL_HANDLE_JS = Path(__file__).resolve().parent / "panel_handle.js"
PANEL_ENTRY = "sidepanel/diagnostic_panel.js"
#: The panel page's module script, replaced by the handle-installing entry in the copy.
PANEL_SCRIPT = '<script type="module" src="sidepanel.js"></script>'


def diagnostic_extension(dest: Path) -> Path:
    """Copy the extension to `dest` with the handle-installing worker and panel entries; returns `dest`.

    The copy keeps the manifest's key, so its ID (and the host's allowed origin) is unchanged.
    """
    shutil.copytree(extension_dir(), dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("tsconfig.json"))
    shutil.copyfile(HANDLE_JS, dest / ENTRY)
    manifest_path = dest / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["background"]["service_worker"] = ENTRY
    manifest_path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    shutil.copyfile(PANEL_HANDLE_JS, dest / PANEL_ENTRY)
    page = dest / "sidepanel" / "sidepanel.html"
    html = page.read_text(encoding="utf-8")
    if PANEL_SCRIPT not in html:
        raise RuntimeError(f"{page.name} no longer loads its script as {PANEL_SCRIPT!r}; update eval/sw_handle.py")
    page.write_text(html.replace(PANEL_SCRIPT, f'<script type="module" src="{Path(PANEL_ENTRY).name}"></script>'), encoding="utf-8")
    return dest
