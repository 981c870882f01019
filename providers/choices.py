"""The providers a user can choose (each openai_compat preset its own row) and whether each is
configured: what `waymark providers` and `waymark doctor` print. Never includes a key."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from waymark.providers.config import find_key, key_names
from waymark.providers.openai_compat import PRESETS


def mlx_available() -> bool:
    """Whether mlx-lm (and an mlx build) can be imported here."""
    return importlib.util.find_spec("mlx_lm") is not None and importlib.util.find_spec("mlx") is not None


@dataclass(frozen=True)
class ProviderChoice:
    """One row of `waymark providers`: a provider (and preset) with the options to build it."""

    label: str
    provider: str
    preset: str | None
    needs_key: bool


def choices() -> list[ProviderChoice]:
    """Every provider and openai_compat preset a user can choose."""
    rows = [ProviderChoice("gemini", "gemini", None, True), ProviderChoice("anthropic", "anthropic", None, True)]
    for name, preset in PRESETS.items():
        rows.append(ProviderChoice(f"openai_compat:{name}", "openai_compat", name, preset.needs_key))
    rows += [ProviderChoice("mlx", "mlx", None, False), ProviderChoice("scripted", "scripted", None, False)]
    return rows


def status(choice: ProviderChoice) -> tuple[bool, str]:
    """(configured, a one-line reason) for one choice; never includes a key."""
    if choice.provider == "mlx":
        return (True, "mlx-lm installed") if mlx_available() else (False, "not configured (install the mlx extra)")
    if choice.provider == "scripted":
        return True, "built in (needs a script)"
    if not choice.needs_key:
        return True, "no key needed (local server)"
    _, source = find_key(choice.provider, choice.preset)
    if source is None:
        names = " or ".join(key_names(choice.provider, choice.preset))
        return False, f"not configured (set {names})"
    return True, source.describe()


def configured_summary() -> list[str]:
    """One line per provider for `waymark doctor`: "gemini: key from GEMINI_API_KEY" / "...: not configured"."""
    return [f"{t.label}: {status(t)[1]}" for t in choices()]
