"""The host's secret store: provider API keys and the `{{secret:NAME}}` values a task may type,
in one user-only file and two namespaces.

Values live in `<config_dir>/secrets.json` (0600, folder 0700). They are read only where they
are used (building a provider, dispatching a typed secret, teaching the run's redactor); nothing
lists a value, logs it or sends it to the browser's panel.

- A provider key (`provider_keys`) is found by the providers under the names of `KEY_NAMES`; it
  can never be typed into a page.
- A typeable secret (`secrets`) carries the origins it may be typed on, as a password manager
  binds a login to its site: one with no origin cannot be typed until the user binds it. Its
  `grants` name the MCP clients the user let type it, each on one origin (default: none).

A store written before the namespaces (a flat `{name: value}` object) is still read: an entry
under a provider key's name is a provider key, every other one a typeable secret bound to no
origin yet. The next write saves the new form.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from waymark.host.core.origins import origin_of
from waymark.host.core.paths import config_dir, private_dir

log = logging.getLogger(__name__)

FILE_NAME = "secrets.json"
#: Letters, digits, `_`, `.` and `-`; starts with a letter or `_`; at most 64 characters.
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")
MAX_VALUE_CHARS = 16_384
MAX_ORIGINS = 32

#: (provider, preset) -> the names a provider's key is looked up under, in order (providers.config).
KEY_NAMES: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai_compat:openai": ("OPENAI_API_KEY",),
    "openai_compat:openrouter": ("OPENROUTER_API_KEY",),
}
PROVIDER_KEY_NAMES: frozenset[str] = frozenset(name for names in KEY_NAMES.values() for name in names)

#: An origin as stored: scheme, host and an optional port; nothing else (no path, user or query).
_ORIGIN = re.compile(r"(https?)://([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?")

_lock = threading.Lock()


class SecretError(ValueError):
    """A secret name, value or origin that cannot be stored or used; `code` is a stable machine code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Grant(BaseModel):
    """The user let one MCP client type a secret on one origin."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    client: str = Field(min_length=1, max_length=200)
    origin: str


class StoredSecret(BaseModel):
    """A typeable secret: its value, the origins it may be typed on and its MCP grants."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1, max_length=MAX_VALUE_CHARS)
    origins: list[str] = Field(default_factory=list)
    grants: list[Grant] = Field(default_factory=list)


class SecretInfo(BaseModel):
    """What the side panel may see of a typeable secret: everything but its value."""

    model_config = ConfigDict(extra="forbid")

    name: str
    origins: list[str]
    grants: list[Grant]


class StoreFile(BaseModel):
    """The file's form since the namespaces."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[2] = 2
    provider_keys: dict[str, str] = Field(default_factory=dict)
    secrets: dict[str, StoredSecret] = Field(default_factory=dict)


def store_path() -> Path:
    """Where the secrets file lives (it may not exist yet)."""
    return config_dir() / FILE_NAME


def _migrated(raw: dict[str, object]) -> StoreFile:
    """A flat store of before the namespaces, read as provider keys and unbound secrets."""
    store = StoreFile()
    for name, value in raw.items():
        if not isinstance(value, str) or not value or not NAME_PATTERN.fullmatch(name):
            continue
        if name in PROVIDER_KEY_NAMES:
            store.provider_keys[name] = value
        else:
            store.secrets[name] = StoredSecret(value=value[:MAX_VALUE_CHARS])
    return store


def _read() -> StoreFile:
    path = store_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return StoreFile()
    except (OSError, ValueError) as exc:
        # A corrupt store must not take the host down, nor be silently overwritten with less.
        raise SecretError("secret_store_unreadable", f"the secret store {path} cannot be read: {type(exc).__name__}") from None
    if not isinstance(raw, dict):
        raise SecretError("secret_store_unreadable", f"the secret store {path} is not a JSON object")
    if "version" not in raw:
        return _migrated(raw)
    try:
        return StoreFile.model_validate(raw)
    except ValidationError:
        raise SecretError("secret_store_unreadable", f"the secret store {path} is not in a form this host knows") from None


def _write(store: StoreFile) -> None:
    folder = private_dir(config_dir())
    path = folder / FILE_NAME
    tmp = folder / f".{FILE_NAME}.{os.getpid()}.tmp"
    # Created 0600 from the start: the value is never on disk with wider permissions.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(store.model_dump(mode="json"), fh, indent=2, sort_keys=True)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def validate_name(name: object) -> str:
    """Return `name` if it is a valid secret name, else raise SecretError."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):  # `$` alone lets "NAME\n" through
        raise SecretError("bad_secret_name", "a secret name is 1-64 letters, digits, '_', '.' or '-', starting with a letter or '_'")
    return name


def _validate_value(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise SecretError("bad_secret_value", "a secret value must be a non-empty string")
    if len(value) > MAX_VALUE_CHARS:
        raise SecretError("bad_secret_value", f"a secret value may have at most {MAX_VALUE_CHARS} characters")
    return value


def normalize_origin(origin: object) -> str:
    """`origin` as stored: `scheme://host[:port]` as host.core.origins reads it (lower case, the
    scheme's default port dropped). A URL with a path is cut to its origin; anything else (another
    scheme, user info, a wildcard) is refused, since the service worker compares it with a frame's
    origin character for character."""
    text = origin.strip() if isinstance(origin, str) else ""
    authority = text.partition("://")[2]
    found = origin_of(text) if "@" not in re.split(r"[/?#]", authority, maxsplit=1)[0] else None
    if found is None or _ORIGIN.fullmatch(found) is None:
        raise SecretError("bad_secret_origin", f"an origin is http(s)://host[:port], such as https://bank.example; got {str(origin)[:80]!r}")
    return found


def _origins(origins: object) -> list[str]:
    if not isinstance(origins, (list, tuple)):
        raise SecretError("bad_secret_origin", "origins must be a list of http(s)://host[:port]")
    if len(origins) > MAX_ORIGINS:
        raise SecretError("bad_secret_origin", f"a secret may be bound to at most {MAX_ORIGINS} origins")
    return sorted({normalize_origin(o) for o in origins})


def set_secret(name: str, value: str, origins: list[str] | tuple[str, ...] = ()) -> None:
    """Store (or replace) one typeable secret, bound to `origins` (empty: it cannot be typed yet).
    Replacing a secret keeps its grants only for origins it is still bound to."""
    validate_name(name)
    if name in PROVIDER_KEY_NAMES:
        raise SecretError("secret_is_provider_key", f"{name} is a provider API key's name: store it as a provider key, which is never typed")
    _validate_value(value)
    bound = _origins(origins)
    with _lock:
        store = _read()
        old = store.secrets.get(name)
        grants = [g for g in old.grants if g.origin in bound] if old else []
        store.secrets[name] = StoredSecret(value=value, origins=bound, grants=grants)
        _write(store)
    log.info("secret %s stored (%d origins)", name, len(bound))


def bind_secret(name: str, origins: list[str] | tuple[str, ...]) -> None:
    """Set the origins an existing secret may be typed on (its grants outside them are dropped)."""
    validate_name(name)
    bound = _origins(origins)
    with _lock:
        store = _read()
        secret = store.secrets.get(name)
        if secret is None:
            raise SecretError("secret_missing", f"no secret named {name!r} in the host's secret store")
        secret.origins = bound
        secret.grants = [g for g in secret.grants if g.origin in bound]
        _write(store)
    log.info("secret %s bound to %d origins", name, len(bound))


def grant_secret(name: str, client: str, origin: str, granted: bool = True) -> None:
    """Let (or, `granted` False, no longer let) an MCP client type a secret on one of its origins."""
    validate_name(name)
    if not isinstance(client, str) or not client.strip():
        raise SecretError("bad_params", "a grant names the MCP client it is for")
    where = normalize_origin(origin)
    with _lock:
        store = _read()
        secret = store.secrets.get(name)
        if secret is None:
            raise SecretError("secret_missing", f"no secret named {name!r} in the host's secret store")
        if granted and where not in secret.origins:
            raise SecretError("secret_origin_refused", f"{name} is not bound to {where}: bind it there before granting it")
        grant = Grant(client=client.strip(), origin=where)
        secret.grants = [g for g in secret.grants if g != grant] + ([grant] if granted else [])
        _write(store)
    log.info("secret %s %s for an MCP client", name, "granted" if granted else "revoked")


def delete_secret(name: str) -> bool:
    """Remove one typeable secret; False when there was none by that name."""
    validate_name(name)
    with _lock:
        store = _read()
        if store.secrets.pop(name, None) is None:
            return False
        _write(store)
    log.info("secret %s deleted", name)
    return True


def get_secret(name: str) -> StoredSecret | None:
    """One typeable secret (value, origins, grants), or None. Call it only where the value is used."""
    validate_name(name)
    with _lock:
        return _read().secrets.get(name)


def names() -> list[str]:
    """The names of every typeable secret, sorted; never their values."""
    with _lock:
        return sorted(_read().secrets)


def listing() -> list[SecretInfo]:
    """Every typeable secret without its value, sorted by name: what the side panel shows."""
    with _lock:
        store = _read()
    return [SecretInfo(name=n, origins=s.origins, grants=s.grants) for n, s in sorted(store.secrets.items())]


def set_provider_key(name: str, value: str) -> None:
    """Store (or replace) a provider's API key under one of `PROVIDER_KEY_NAMES`."""
    if name not in PROVIDER_KEY_NAMES:
        raise SecretError("bad_secret_name", f"a provider key is stored under one of {', '.join(sorted(PROVIDER_KEY_NAMES))}")
    _validate_value(value)
    with _lock:
        store = _read()
        store.provider_keys[name] = value
        _write(store)
    log.info("provider key %s stored", name)


def delete_provider_key(name: str) -> bool:
    """Remove a provider's API key; False when there was none by that name."""
    with _lock:
        store = _read()
        if store.provider_keys.pop(name, None) is None:
            return False
        _write(store)
    log.info("provider key %s deleted", name)
    return True


def get_provider_key(name: str) -> str | None:
    """A provider's API key, or None. Only providers.config calls it."""
    with _lock:
        return _read().provider_keys.get(name)


def is_provider_key(name: str) -> bool:
    """Whether `name` names a provider key (stored or not): such a name can never be typed."""
    if name in PROVIDER_KEY_NAMES:
        return True
    with _lock:
        return name in _read().provider_keys


def provider_key_names() -> list[str]:
    """The names of the stored provider keys, sorted; never their values."""
    with _lock:
        return sorted(_read().provider_keys)


def all_values() -> list[str]:
    """Every stored value, keys and secrets alike: what a run's redactor knows from its start."""
    with _lock:
        store = _read()
    return [*store.provider_keys.values(), *(s.value for s in store.secrets.values())]
