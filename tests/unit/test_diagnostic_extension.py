"""The test handles (`globalThis.waymark` in the worker, `globalThis.waymarkPanel` in the side
panel) live only in the diagnostic copy tests and benchmarks load, never in the extension folder
users load."""

import json
import re
from pathlib import Path

from waymark.eval.sw_handle import ENTRY, PANEL_ENTRY, diagnostic_extension
from waymark.host.extension import extension_dir, extension_id_from_key

SETS_HANDLE = re.compile(r"globalThis\)?\.waymark\s*=")
SETS_PANEL_HANDLE = re.compile(r"globalThis\)?\.waymarkPanel\s*=")


def test_the_extension_users_load_installs_no_worker_handle():
    sources = [p.name for p in extension_dir().rglob("*.js") if SETS_HANDLE.search(p.read_text(encoding="utf-8"))]
    assert sources == []


def test_the_diagnostic_copy_starts_the_handle_entry_with_the_same_extension_id(tmp_path: Path):
    copy = diagnostic_extension(tmp_path / "ext")
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    original = json.loads((extension_dir() / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["background"]["service_worker"] == ENTRY
    assert SETS_HANDLE.search((copy / ENTRY).read_text(encoding="utf-8"))
    assert extension_id_from_key(manifest["key"]) == extension_id_from_key(original["key"])


def test_the_side_panel_users_load_installs_no_handle():
    sources = [p.name for p in extension_dir().rglob("*.js") if SETS_PANEL_HANDLE.search(p.read_text(encoding="utf-8"))]
    assert sources == []


def test_the_diagnostic_copys_panel_page_starts_the_handle_entry(tmp_path: Path):
    copy = diagnostic_extension(tmp_path / "ext")
    page = (copy / "sidepanel" / "sidepanel.html").read_text(encoding="utf-8")
    assert f'src="{Path(PANEL_ENTRY).name}"' in page and 'src="sidepanel.js"' not in page
    assert SETS_PANEL_HANDLE.search((copy / PANEL_ENTRY).read_text(encoding="utf-8"))
