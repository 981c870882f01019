"""The settings' and the secret store's host methods (the settings themselves: host.settings).

API keys go to the secret store's provider keys (host/core/secrets_store.py) under the names providers/config.py
looks them up by (GEMINI_API_KEY, OPENROUTER_API_KEY, ...), where every provider finds them.
The side panel reads and writes both through `settings.get`, `settings.set`, `secrets.set`, `secrets.bind`,
`secrets.grant`, `secrets.list` and `secrets.delete`; no value ever travels back to the browser.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError

from waymark.host.core import secrets_store
from waymark.host.core.validation import problems
from waymark.host.methods import CallContext, MethodError, method
from waymark.host.settings import (
    Role,
    RoleSettings,
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

    return SettingsView(
        settings=settings, providers=registry.names(), secrets=secrets_store.listing(), provider_keys=secrets_store.provider_key_names(),
        key_names={target: names[0] for target, names in secrets_store.KEY_NAMES.items()}, config_path=str(settings_path()),
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


def _secrets_view() -> dict[str, Any]:
    return {"names": secrets_store.names(), "secrets": [s.model_dump(mode="json") for s in secrets_store.listing()],
            "provider_keys": secrets_store.provider_key_names()}


def _store_call(change: Callable[[], object]) -> dict[str, Any]:
    """Run one change of the store and answer with what the panel may see of it (names, origins, grants)."""
    try:
        change()
        return _secrets_view()
    except secrets_store.SecretError as exc:
        raise MethodError(exc.code, exc.message) from None


@method("secrets.set")
async def secrets_set(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Store one value: under a provider key's name (or `kind` "provider_key") a provider key, never
    typeable; else a typeable secret bound to `origins` (the sites it may be typed on). Answers with names only."""
    name, value = params.get("name"), params.get("value")
    if params.get("kind") == "provider_key" or name in secrets_store.PROVIDER_KEY_NAMES:
        return _store_call(lambda: secrets_store.set_provider_key(name, value))  # type: ignore[arg-type]
    return _store_call(lambda: secrets_store.set_secret(name, value, params.get("origins") or []))  # type: ignore[arg-type]


@method("secrets.bind")
async def secrets_bind(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Set the origins a stored secret may be typed on (`{name, origins}`)."""
    return _store_call(lambda: secrets_store.bind_secret(params.get("name"), params.get("origins")))  # type: ignore[arg-type]


@method("secrets.grant")
async def secrets_grant(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Let an MCP client type a secret on one of its origins (`{name, client, origin, granted}`; granted false revokes)."""
    return _store_call(lambda: secrets_store.grant_secret(params.get("name"), params.get("client"), params.get("origin"),  # type: ignore[arg-type]
                                                          params.get("granted", True) is not False))


@method("secrets.delete")
async def secrets_delete(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Remove one secret (`kind` "provider_key": a provider key); answers with the remaining names."""
    name = params.get("name")
    try:
        if params.get("kind") == "provider_key" or name in secrets_store.PROVIDER_KEY_NAMES:
            deleted = secrets_store.delete_provider_key(name)  # type: ignore[arg-type]
        else:
            deleted = secrets_store.delete_secret(name)  # type: ignore[arg-type]
        return {"deleted": deleted, **_secrets_view()}
    except secrets_store.SecretError as exc:
        raise MethodError(exc.code, exc.message) from None


@method("secrets.list")
async def secrets_list(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """The stored secrets' names, origins and grants, and the provider keys' names; values never leave the host."""
    return _store_call(lambda: None)


class TestParams(BaseModel):
    """Parameters of `settings.test`."""

    model_config = ConfigDict(extra="forbid")

    role: Role = "chat"
    #: The roles as the form on screen sets them, unsaved, each whole (not merged into the saved
    #: role: options the form dropped are gone); the roles not given are the saved ones.
    settings: dict[Role, RoleSettings] | None = None


def _listed(model: str, ids: list[str]) -> bool:
    """Whether `model` is among a backend's listed ids (Ollama lists "llama3.2:latest" for "llama3.2")."""
    return not model or not ids or any(i == model or i.startswith(model + ":") or i.endswith("/" + model) for i in ids)


@method("settings.test")
async def settings_test(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """Check that a role's provider, as the form on screen sets it, answers: by its model listing where
    it has one (no tokens spent), else a one-word prompt. {ok, provider, model, latency_ms, checked} or
    {ok: false, error}; nothing is saved."""
    from waymark.providers.base import CompletionRequest, Message
    from waymark.providers.errors import ProviderError

    try:
        test = TestParams.model_validate(params)
        settings = load_settings().model_copy(update=test.settings or {})
    except ValidationError as exc:
        raise MethodError("bad_params", f"settings.test: {problems(exc)}") from None
    conf = effective_role(settings, test.role)
    start = time.perf_counter()
    provider = None
    checked = "listing"
    try:
        provider = build_provider(test.role, settings)
        ids = await provider.model_ids(timeout=10.0)
        if ids is None:
            checked = "prompt"
            request = CompletionRequest(
                messages=[Message.text("user", "Reply with the single word: ready")],
                max_tokens=8, timeout=15.0, metadata={"role": "chat", "check": True},
            )
            await provider.complete(request)
        elif not _listed(conf.model, ids):
            where = getattr(provider, "base_url", "") or conf.provider
            shown = ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
            return {"ok": False, "provider": conf.provider, "model": conf.model,
                    "error": {"code": "model_not_found", "message": f"{where} answers, but has no model {conf.model!r}; it lists {shown}."}}
    except ProviderError as exc:
        return {"ok": False, "provider": conf.provider, "model": conf.model,
                "error": {"code": error_code(exc), "message": str(exc)[:500]}}
    finally:
        if provider is not None:
            await provider.aclose()
    return {"ok": True, "provider": conf.provider, "model": conf.model, "checked": checked,
            "latency_ms": round((time.perf_counter() - start) * 1000, 1)}
