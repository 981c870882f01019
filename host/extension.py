"""Where the unpacked extension lives and the stable ID its manifest key gives it."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path


def extension_dir() -> Path:
    """The unpacked extension folder ($WAYMARK_EXTENSION_DIR overrides): extension/ beside host/
    in a checkout, waymark/extension/ beside waymark/host/ in an installed wheel."""
    override = os.environ.get("WAYMARK_EXTENSION_DIR")
    if override:
        return Path(override).resolve()
    return (Path(__file__).resolve().parent.parent / "extension").resolve()


@lru_cache(maxsize=None)
def manifest() -> dict:
    """The extension's manifest.json."""
    return json.loads((extension_dir() / "manifest.json").read_text(encoding="utf-8"))


def extension_id_from_key(key_b64: str) -> str:
    """Chrome's ID for a public key: sha256 of the DER key, first 32 hex digits mapped 0-f to a-p."""
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def extension_id() -> str:
    """The stable ID of the unpacked extension, from the manifest's `key`."""
    return extension_id_from_key(manifest()["key"])


def extension_origin() -> str:
    """The origin the native host manifest allows: chrome-extension://ID/."""
    return f"chrome-extension://{extension_id()}/"
