"""Where provider keys come from: an explicit option, else an environment variable, else the
host's secret store (`<config_dir>/secrets.json`, user-only; see host.secrets_store) under the
same name. Values are returned to the code that uses them and nowhere else: the summaries name
the source of a key, never the key."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

#: (provider, preset) -> the names a key is looked up under, in order.
KEY_NAMES: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai_compat:openai": ("OPENAI_API_KEY",),
    "openai_compat:openrouter": ("OPENROUTER_API_KEY",),
}


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
        from host import secrets_store
    except ImportError:
        return None
    try:
        return secrets_store.get_secret(name)
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


def mlx_available() -> bool:
    """Whether mlx-lm (and an mlx build) can be imported here."""
    return importlib.util.find_spec("mlx_lm") is not None and importlib.util.find_spec("mlx") is not None


@dataclass(frozen=True)
class Target:
    """One row of `waymark providers`: a provider (and preset) with the options to build it."""

    label: str
    provider: str
    preset: str | None
    needs_key: bool


def targets() -> list[Target]:
    """Every provider and openai_compat preset a user can choose."""
    from providers.openai_compat import PRESETS

    rows = [Target("gemini", "gemini", None, True), Target("anthropic", "anthropic", None, True)]
    for name, preset in PRESETS.items():
        rows.append(Target(f"openai_compat:{name}", "openai_compat", name, preset.needs_key))
    rows += [Target("mlx", "mlx", None, False), Target("scripted", "scripted", None, False)]
    return rows


def status(target: Target) -> tuple[bool, str]:
    """(configured, a one-line reason) for one target; never includes a key."""
    if target.provider == "mlx":
        return (True, "mlx-lm installed") if mlx_available() else (False, "not configured (install the mlx extra)")
    if target.provider == "scripted":
        return True, "built in (needs a script)"
    if not target.needs_key:
        return True, "no key needed (local server)"
    _, source = find_key(target.provider, target.preset)
    if source is None:
        names = " or ".join(key_names(target.provider, target.preset))
        return False, f"not configured (set {names})"
    return True, source.describe()


def configured_summary() -> list[str]:
    """One line per provider for `waymark doctor`: "gemini: key from GEMINI_API_KEY" / "...: not configured"."""
    return [f"{t.label}: {status(t)[1]}" for t in targets()]
