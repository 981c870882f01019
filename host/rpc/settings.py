"""The settings' and the secret store's host methods (the settings themselves: host.settings).

API keys go to the secret store (host/core/secrets_store.py) under the names providers/config.py
looks them up by (GEMINI_API_KEY, OPENROUTER_API_KEY, ...), where every provider finds them.
The side panel reads and writes both through `settings.get`, `settings.set`, `secrets.set`, `secrets.list`
and `secrets.delete`; no value ever travels back to the browser.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import ValidationError

from waymark.host.core import secrets_store
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.settings import (
    ROLES,
    Settings,
    SettingsView,
    build_provider,
    effective_role,
    load_settings,
    settings_path,
    update_settings,
)
from waymark.providers.errors import error_code

log = logging.getLogger(__name__)

def _public_view(settings: Settings) -> dict[str, Any]:
    from waymark.providers import registry
    from waymark.providers.config import KEY_NAMES

    return SettingsView(
        settings=settings, providers=registry.names(), secrets=secrets_store.names(),
        key_names={target: names[0] for target, names in KEY_NAMES.items()}, config_path=str(settings_path()),
    ).model_dump(mode="json")


@method("settings.get")
async def settings_get(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The saved settings, the provider names the host knows, and the names of stored secrets."""
    return _public_view(load_settings())


@method("settings.set")
async def settings_set(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Merge `params.settings` (any subset of the fields) into the saved settings; answers like settings.get."""
    patch = params.get("settings")
    if not isinstance(patch, dict):
        raise MethodError("bad_params", "settings.set needs {settings: {...}}")
    try:
        updated = update_settings(patch)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise MethodError("bad_settings", f"{where}: {first['msg']}") from None
    return _public_view(updated)


@method("secrets.set")
async def secrets_set(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Store one secret in the host's store; answers with the stored names only."""
    try:
        secrets_store.set_secret(params.get("name"), params.get("value"))  # type: ignore[arg-type]
    except secrets_store.SecretError as exc:
        raise MethodError(exc.code, exc.message) from None
    return {"names": secrets_store.names()}


@method("secrets.delete")
async def secrets_delete(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Remove one secret; answers with the remaining names."""
    try:
        deleted = secrets_store.delete_secret(params.get("name"))  # type: ignore[arg-type]
    except secrets_store.SecretError as exc:
        raise MethodError(exc.code, exc.message) from None
    return {"deleted": deleted, "names": secrets_store.names()}


@method("secrets.list")
async def secrets_list(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The names of stored secrets; values never leave the host."""
    try:
        return {"names": secrets_store.names()}
    except secrets_store.SecretError as exc:
        raise MethodError(exc.code, exc.message) from None


@method("settings.test")
async def settings_test(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Check that a role's provider answers a one-word prompt: {ok, provider, model, latency_ms} or {ok: false, error}."""
    from waymark.providers.base import CompletionRequest, Message
    from waymark.providers.errors import ProviderError

    role = params.get("role", "chat")
    if role not in ROLES:
        raise MethodError("bad_params", f"role must be one of {', '.join(ROLES)}")
    settings = load_settings()
    conf = effective_role(settings, role)
    start = time.perf_counter()
    provider = None
    try:
        provider = build_provider(role, settings)
        request = CompletionRequest(
            messages=[Message.text("user", "Reply with the single word: ready")],
            max_tokens=8, timeout=15.0, metadata={"role": "chat", "check": True},
        )
        await provider.complete(request)
    except ProviderError as exc:
        return {"ok": False, "provider": conf.provider, "model": conf.model,
                "error": {"code": error_code(exc), "message": str(exc)[:500]}}
    finally:
        if provider is not None:
            await provider.aclose()
    return {"ok": True, "provider": conf.provider, "model": conf.model, "latency_ms": round((time.perf_counter() - start) * 1000, 1)}
