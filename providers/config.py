"""Where provider keys come from: an explicit option, else an environment variable, else the
host's secret store (`<config_dir>/secrets.json`, user-only; see host.core.secrets_store) under the
same name. Values are returned to the code that uses them and nowhere else: a KeySource names
the source of a key, never the key."""

from __future__ import annotations

import os
from dataclasses import dataclass

from waymark.host.core import secrets_store
from waymark.host.core.secrets_store import KEY_NAMES


@dataclass(frozen=True)
class KeySource:
    """Where a key was found: `where` is "env" or "secret store"; `name` the variable or secret name."""

    where: str
    name: str

    def describe(self) -> str:
        return f"key from {self.name}" if self.where == "env" else f"key from the secret store ({self.name})"


def key_names(provider: str, preset: str | None = None) -> tuple[str, ...]:
    """The names a key for this provider (and openai_compat preset) is looked up under."""
    return KEY_NAMES.get(f"{provider}:{preset}" if preset else provider, ())


def _stored(name: str) -> str | None:
    try:
        return secrets_store.get_provider_key(name)
    except (ValueError, OSError):
        return None


def find_key(provider: str, preset: str | None = None) -> tuple[str | None, KeySource | None]:
    """(key, where it came from), or (None, None) when this provider has no key configured."""
    for name in key_names(provider, preset):
        value = os.environ.get(name)
        if value:
            return value, KeySource("env", name)
    for name in key_names(provider, preset):
        value = _stored(name)
        if value:
            return value, KeySource("secret store", name)
    return None, None


def resolve_key(provider: str, preset: str | None, explicit: str | None) -> str | None:
    """The key a provider instance uses: the explicit option wins."""
    if explicit:
        return explicit
    return find_key(provider, preset)[0]
