"""The host's secret store: API keys and `{{secret:NAME}}` values, in one user-only file.

Values live in `<config_dir>/secrets.json` (0600, folder 0700). They are read only where they
are used (building a provider, dispatching a typed secret); nothing lists a value, logs it or
sends it to the browser: `names()` is the only view the side panel gets.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from pathlib import Path

from waymark.host.core.paths import config_dir, private_dir

log = logging.getLogger(__name__)

FILE_NAME = "secrets.json"
#: Letters, digits, `_`, `.` and `-`; starts with a letter or `_`; at most 64 characters.
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,63}$")
MAX_VALUE_CHARS = 16_384

_lock = threading.Lock()


class SecretError(ValueError):
    """A secret name or value that cannot be stored; `code` is a stable machine code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def store_path() -> Path:
    """Where the secrets file lives (it may not exist yet)."""
    return config_dir() / FILE_NAME


def _read() -> dict[str, str]:
    path = store_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        # A corrupt store must not take the host down, nor be silently overwritten with less.
        raise SecretError("secret_store_unreadable", f"the secret store {path} cannot be read: {type(exc).__name__}") from None
    if not isinstance(raw, dict):
        raise SecretError("secret_store_unreadable", f"the secret store {path} is not a JSON object")
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def _write(values: dict[str, str]) -> None:
    folder = private_dir(config_dir())
    path = folder / FILE_NAME
    tmp = folder / f".{FILE_NAME}.{os.getpid()}.tmp"
    # Created 0600 from the start: the value is never on disk with wider permissions.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(values, fh, indent=2, sort_keys=True)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def validate_name(name: object) -> str:
    """Return `name` if it is a valid secret name, else raise SecretError."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):  # `$` alone lets "NAME\n" through
        raise SecretError("bad_secret_name", "a secret name is 1-64 letters, digits, '_', '.' or '-', starting with a letter or '_'")
    return name


def set_secret(name: str, value: str) -> None:
    """Store (or replace) one secret."""
    validate_name(name)
    if not isinstance(value, str) or not value:
        raise SecretError("bad_secret_value", "a secret value must be a non-empty string")
    if len(value) > MAX_VALUE_CHARS:
        raise SecretError("bad_secret_value", f"a secret value may have at most {MAX_VALUE_CHARS} characters")
    with _lock:
        values = _read()
        values[name] = value
        _write(values)
    log.info("secret %s stored", name)


def delete_secret(name: str) -> bool:
    """Remove one secret; False when there was none by that name."""
    validate_name(name)
    with _lock:
        values = _read()
        if name not in values:
            return False
        del values[name]
        _write(values)
    log.info("secret %s deleted", name)
    return True


def get_secret(name: str) -> str | None:
    """The value of one secret, or None. Call it only where the value is used."""
    validate_name(name)
    with _lock:
        return _read().get(name)


def names() -> list[str]:
    """The names of every stored secret, sorted; never their values."""
    with _lock:
        return sorted(_read())
