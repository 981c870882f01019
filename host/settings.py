"""The user's settings, kept by the host: a provider and model per role, domain lists, the
confirmation policy, screenshots, diagnostics; where they are stored, and the model spec each
role runs with.

Settings live in `<config_dir>/settings.json` (0600). API keys never do: they go to the secret
store (host/core/secrets_store.py) under the names providers/config.py looks them up by.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from waymark.host.agent.confirm import Policy, narrowed
from waymark.host.core.paths import config_dir, private_dir
from waymark.host.core.secrets_store import SecretInfo
from waymark.providers.base import LLMProvider
from waymark.providers.errors import ProviderNotConfigured
from waymark.providers.spec import ModelSpec

log = logging.getLogger(__name__)

FILE_NAME = "settings.json"
Role = Literal["chat", "planner", "executor"]
ROLES: tuple[Role, ...] = ("chat", "planner", "executor")
#: A domain rule: a host name; it covers its subdomains too (the agent's policy matches them).
_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")

_lock = threading.Lock()


class RoleSettings(BaseModel):
    """Which provider and model one role uses. An empty provider means "not configured"."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    provider: str = ""
    model: str = ""
    #: Keyword options of the provider (base_url, preset, script, ...); never an API key.
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("options")
    @classmethod
    def _no_keys_in_options(cls, value: dict[str, Any]) -> dict[str, Any]:
        from waymark.providers.spec import OPTION_NAMES

        for key in value:
            if key not in OPTION_NAMES and any(word in key.lower() for word in ("key", "token", "secret", "password")):
                raise ValueError(f"option {key!r} looks like a credential: store it as an API key (secrets.set), never in settings")
        return value


class Settings(BaseModel):
    """Everything the user configures in the side panel's settings."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    chat: RoleSettings = Field(default_factory=RoleSettings)
    planner: RoleSettings = Field(default_factory=RoleSettings)
    executor: RoleSettings = Field(default_factory=RoleSettings)
    #: When non-empty, the agent acts only on these domains (and their subdomains).
    allow_domains: list[str] = Field(default_factory=list)
    #: The agent never acts on these domains (and their subdomains).
    block_domains: list[str] = Field(default_factory=list)
    #: Destructive actions (pay, order, delete, send, ...): ask first, allow without asking, or block.
    confirm_policy: Literal["ask", "allow", "block"] = "ask"
    #: Attach the numbered-overlay screenshot to model calls and the timeline.
    screenshots: bool = False
    #: Show the diagnostics panel.
    diagnostics: bool = False
    #: The folder `upload_file` takes files from (by name, host.core.uploads); None: no uploads.
    upload_dir: str | None = None
    #: Folders whose files the agent may open as file: URLs; empty (the default): no local file at all.
    file_folders: list[str] = Field(default_factory=list)

    @field_validator("file_folders")
    @classmethod
    def _file_folders(cls, value: list[str]) -> list[str]:
        folders: list[str] = []
        for entry in value:
            folder = os.path.normpath(os.path.expanduser(entry.strip()))
            if not os.path.isabs(folder) or folder == "/":
                raise ValueError(f"a file folder must be an absolute path below /, not {entry[:80]!r}")
            if folder not in folders:
                folders.append(folder)
        return folders

    @field_validator("upload_dir")
    @classmethod
    def _upload_dir(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        folder = os.path.expanduser(value.strip())
        if not os.path.isabs(folder):
            raise ValueError(f"the upload folder must be an absolute path, not {value[:80]!r}")
        return folder

    @field_validator("allow_domains", "block_domains")
    @classmethod
    def _domains(cls, value: list[str]) -> list[str]:
        cleaned: list[str] = []
        for entry in value:
            rule = entry.strip().lower().removeprefix("*.")
            if not rule:
                continue
            if not _DOMAIN.fullmatch(rule):
                raise ValueError(f"{entry[:80]!r} is not a domain (write example.com; it covers its subdomains)")
            if rule not in cleaned:
                cleaned.append(rule)
        return cleaned


class SettingsView(BaseModel):
    """What `settings.get` and `settings.set` show the side panel: the settings, and what it needs
    to edit them, never a secret's value (extension/sidepanel/settings_types.js is generated from it)."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    settings: Settings
    #: The provider names the host knows.
    providers: list[str]
    #: The typeable secrets stored, with the origins they are bound to and their MCP grants; never their values.
    secrets: list[SecretInfo]
    #: The names of the provider keys stored, never their values.
    provider_keys: list[str]
    #: "provider" or "provider:preset" -> the secret name its key is stored under.
    key_names: dict[str, str]
    #: Where the settings file is.
    config_path: str


def settings_path() -> Path:
    """Where the settings file lives (it may not exist yet)."""
    return config_dir() / FILE_NAME


def load_settings() -> Settings:
    """The saved settings, or the defaults when nothing is saved. A broken file is logged and ignored."""
    path = settings_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Settings.model_validate(raw)
    except FileNotFoundError:
        return Settings()
    except (OSError, ValueError) as exc:
        log.error("ignoring unreadable settings file %s: %s", path, type(exc).__name__)
        return Settings()


def save_settings(settings: Settings) -> None:
    """Write the settings file, user-only, atomically."""
    folder = private_dir(config_dir())
    tmp = folder / f".{FILE_NAME}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(settings.model_dump_json(indent=2))
    os.chmod(tmp, 0o600)
    os.replace(tmp, folder / FILE_NAME)


def saved_policy(settings: Settings | None = None) -> Policy:
    """The policy the user saved in Settings: the floor under every run, whoever starts it."""
    saved = settings or load_settings()
    return Policy(destructive=saved.confirm_policy, allow_domains=saved.allow_domains, block_domains=saved.block_domains)


def run_policy(caller: Policy, trusted: bool) -> Policy:
    """The policy a run gets: the caller's, narrowed by the saved one (host.agent.confirm.narrowed).

    A `trusted` caller (the side panel, or the terminal that launched this browser) is the user:
    its answer to destructive actions (`waymark run --confirm approve`) and to the egress question
    stands, as the user's own choice made at the time; its domain lists still only narrow the saved ones."""
    floor = saved_policy()
    if trusted:
        floor = floor.model_copy(update={"destructive": "allow", "egress": "allow"})
    return narrowed(floor, caller)


def effective_role(settings: Settings, role: Role) -> RoleSettings:
    """The provider settings a role runs with: its own, or the chat role's when it has none."""
    own: RoleSettings = getattr(settings, role)
    return own if own.provider else settings.chat


def role_spec(role: Role, settings: Settings | None = None) -> ModelSpec:
    """The model spec `role` runs with (provider, model, options, temperature, call timeout);
    raises ProviderNotConfigured when the role has no provider or model."""
    conf = effective_role(settings or load_settings(), role)
    if not conf.provider:
        raise ProviderNotConfigured(f"no provider is configured for {role}: choose one in the side panel's settings")
    if not conf.model and conf.provider != "scripted":  # the scripted provider alone needs no model name
        raise ProviderNotConfigured(f"no model is chosen for {role} ({conf.provider}): choose one in the side panel's settings")
    if conf.provider == "scripted":
        return ModelSpec.make("scripted", conf.model or "scripted", conf.options)
    return ModelSpec.parse(f"{conf.provider}:{conf.model}").with_options(conf.options)


def build_provider(role: Role, settings: Settings | None = None) -> LLMProvider:
    """The configured LLMProvider for `role`; raises ProviderNotConfigured. Providers find their
    own keys (environment, then the secret store) by the names in providers/config.py."""
    return role_spec(role, settings).build()


def update_settings(patch: dict[str, Any]) -> Settings:
    """Merge `patch` (any subset of the fields) into the saved settings and save them; raises
    pydantic.ValidationError, saving nothing, when the result is not valid settings."""
    with _lock:
        updated = Settings.model_validate(_merge(load_settings().model_dump(mode="json"), patch))
        save_settings(updated)
    return updated


def _merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    if "provider" in patch and patch["provider"] != base.get("provider") and "options" not in patch:
        # A role moved to another provider: the old one's options (a script, a preset) are not the new one's.
        out.pop("options", None)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "options":
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out
