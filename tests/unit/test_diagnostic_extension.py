"""The test handle (`globalThis.waymark`) lives only in the diagnostic copy tests and
benchmarks load, never in the extension folder users load."""

import json
import re
from pathlib import Path

from waymark.eval.sw_handle import ENTRY, diagnostic_extension
from waymark.host.extension import extension_dir, extension_id_from_key

SETS_HANDLE = re.compile(r"globalThis\)?\.waymark\s*=")


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
