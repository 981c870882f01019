"""Secrets in the agent: `{{secret:NAME}}` placeholders, resolved only when an action is
dispatched, and the redaction that keeps secret and password values out of prompts, logs and
traces.

Values come from the host's secret store (host.core.secrets_store: a user-only file in the config
folder). The model only ever sees the placeholder; the value exists in the action sent to the
browser and nowhere else.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from waymark.host.core import secrets_store
from waymark.host.core.actions import ActionModel
from waymark.host.core.snapshot import Snapshot, SnapshotElement

PLACEHOLDER = re.compile(r"\{\{\s*secret:([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}")
REDACTED = "[redacted]"

_PASSWORD_NAME = re.compile(r"pass(word|code|phrase)?\b|\bpin\b|\bcvv\b|\bcvc\b|security code", re.IGNORECASE)


class SecretMissing(KeyError):
    """A placeholder names a secret the store does not have."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"no secret named {self.name!r} in the host's secret store (add it in the side panel's settings)"


#: Looks a secret up by name (None when missing); the host's store by default.
SecretLookup = Callable[[str], "str | None"]


def _lookup(lookup: SecretLookup, name: str) -> str:
    value = lookup(name)
    if value is None:
        raise SecretMissing(name)
    return value


def placeholders(text: str) -> list[str]:
    """Names of the secrets a text refers to."""
    return PLACEHOLDER.findall(text)


class Redactor:
    """Replaces every known sensitive value with `[redacted]`; learns values as the run goes."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._kept: set[str] = set()
        self._kept_pattern: re.Pattern[str] | None = None

    def learn(self, value: str) -> None:
        if value:
            self._values.add(value)

    def keep(self, value: str) -> None:
        """Never alter this host-made string (a run id, a trace path): a short secret such as a
        CVC "123" may happen to occur inside it, and redacting there would break the trace's links."""
        if value and value not in self._kept:
            self._kept.add(value)
            alternatives = sorted(self._kept, key=len, reverse=True)
            self._kept_pattern = re.compile("|".join(re.escape(k) for k in alternatives))

    def text(self, value: str) -> str:
        """`value` with every known secret replaced (longest first, so overlaps redact whole)."""
        if not self._values:
            return value
        if self._kept_pattern is None:
            return self._replace(value)
        # Redact only between the kept strings, which pass through untouched.
        pieces, last = [], 0
        for match in self._kept_pattern.finditer(value):
            pieces.append(self._replace(value[last:match.start()]))
            pieces.append(match.group(0))
            last = match.end()
        pieces.append(self._replace(value[last:]))
        return "".join(pieces)

    def _replace(self, value: str) -> str:
        for secret in sorted(self._values, key=len, reverse=True):
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def obj(self, value: Any) -> Any:
        """A JSON-like value with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.obj(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.obj(v) for v in value]
        return value

    def snapshot(self, snapshot: Snapshot) -> Snapshot:
        """A copy of the snapshot safe for a prompt or a trace: secrets and password values removed."""
        data = snapshot.model_dump()
        for element in data.get("elements", []):
            if is_password_field(SnapshotElement.model_validate(element)) and element.get("value"):
                element["value"] = REDACTED
        return Snapshot.model_validate(self.obj(data))


#: Query keys whose values are credentials or one-time secrets (the extension's sanitizeUrl uses the same rule).
_SECRET_QUERY_KEY = re.compile(r"token|code|state|secret|pass|pwd|auth|session|sid|key|sig|nonce|credential|ticket|otp|saml|jwt|hash", re.IGNORECASE)
#: Long opaque values (random ids, tokens) are dropped whatever their key.
_OPAQUE_VALUE = re.compile(r"^(?=.*\d)(?=.*[a-zA-Z])[A-Za-z0-9\-_.~%+/=]{24,}$")


def redact_url(url: str | None) -> str | None:
    """A URL safe for a trace or a log: no user:password, no secret-looking query parameters,
    no fragment carrying parameters; anything unparseable is dropped to its scheme."""
    if not url:
        return url
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return url.split(":", 1)[0] + ":" if ":" in url else "invalid-url"
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _SECRET_QUERY_KEY.search(k) and not _OPAQUE_VALUE.match(v)]
    fragment = parts.fragment if "=" not in parts.fragment and "&" not in parts.fragment and not _OPAQUE_VALUE.match(parts.fragment) else ""
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(kept), fragment))


def is_password_field(element: SnapshotElement | None) -> bool:
    """Whether an element holds a password or similar: by its input type when reported, else its name."""
    if element is None:
        return False
    extra = element.model_extra or {}
    kind = str(extra.get("input_type") or extra.get("type") or "").lower()
    if kind == "password" or element.states.get("password"):
        return True
    return element.role.lower() in ("textbox", "searchbox", "combobox", "spinbutton") and bool(_PASSWORD_NAME.search(element.name or ""))


def resolve_action(action: ActionModel, redactor: Redactor, lookup: SecretLookup = secrets_store.get_secret) -> ActionModel:
    """The action with placeholders in `text` filled in from the store (for dispatch only).

    The values are taught to the redactor first, so nothing logged afterwards can carry them.
    """
    text = getattr(action, "text", None)
    if not isinstance(text, str) or not PLACEHOLDER.search(text):
        return action
    for name in placeholders(text):
        redactor.learn(_lookup(lookup, name))
    resolved = PLACEHOLDER.sub(lambda m: _lookup(lookup, m.group(1)), text)
    return action.model_copy(update={"text": resolved})


def protect_typed_text(action: ActionModel, snapshot: Snapshot | None, redactor: Redactor) -> None:
    """A literal value typed into a password field is sensitive too: teach it to the redactor."""
    text = getattr(action, "text", None)
    if not isinstance(text, str) or not text or PLACEHOLDER.fullmatch(text.strip()):
        return
    ref = getattr(action, "ref", None)
    element = snapshot.find(ref) if snapshot is not None and ref is not None else None
    if is_password_field(element):
        redactor.learn(text)
