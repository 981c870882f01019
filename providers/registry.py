"""The one list of providers: name -> implementation, imported lazily so an optional backend
(mlx) costs nothing until it is used."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from waymark.providers.base import LLMProvider
from waymark.providers.errors import ProviderNotConfigured

#: Registry name -> "module:Class". The contract suite runs against every entry.
_PROVIDERS: dict[str, str] = {
    "gemini": "waymark.providers.gemini:GeminiProvider",
    "openai_compat": "waymark.providers.openai_compat:OpenAICompatProvider",
    "anthropic": "waymark.providers.anthropic:AnthropicProvider",
    "mlx": "waymark.providers.mlx_local:MLXProvider",
    "scripted": "waymark.providers.scripted:ScriptedProvider",
}


def names() -> list[str]:
    """Every registered provider name, in a stable order."""
    return list(_PROVIDERS)


def provider_class(name: str) -> type[LLMProvider]:
    """The implementation class of `name` (raises ProviderNotConfigured for an unknown name or a missing dependency)."""
    target = _PROVIDERS.get(name)
    if target is None:
        raise ProviderNotConfigured(f"unknown provider {name!r}; known: {', '.join(_PROVIDERS)}")
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ProviderNotConfigured(f"provider {name!r} needs an optional dependency: {exc}", provider=name) from exc
    provider_class: type[LLMProvider] = getattr(module, attr)
    return provider_class


def create(name: str, model: str, **options: Any) -> LLMProvider:
    """Build provider `name` for `model`. Options are the implementation's keyword arguments
    (e.g. api_key, base_url, preset, script); one it does not take is ProviderNotConfigured,
    naming it, not a TypeError."""
    cls = provider_class(name)
    taken = _options_taken(cls)
    unknown = sorted(set(options) - taken) if taken is not None else []
    if unknown:
        raise ProviderNotConfigured(f"{name} takes no option {', '.join(unknown)}: remove it from the model's settings", provider=name)
    return cls(model, **options)


def _options_taken(cls: type) -> set[str] | None:
    """The keyword arguments a provider class's constructor takes, following `**kw` passed up
    to its bases; None when some constructor takes anything."""
    taken: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        if klass is object:
            return None
        parameters = inspect.signature(init).parameters
        taken |= {n for n, p in parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD}
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            return taken
    return None
