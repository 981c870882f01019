"""Secrets in the agent: `{{secret:NAME}}` placeholders, resolved only when an action is
dispatched, and the redaction that keeps secret and password values out of prompts, logs and
traces.

Values come from the host's secret store (host.core.secrets_store: a user-only file in the config
folder). The model only ever sees the placeholder; the value exists in the action sent to the
browser and nowhere else. A placeholder resolves only under a `SecretScope`: the task or
workflow named it (an MCP client: the user granted it), it is no provider key, and the origins
it may be typed on go with the action, for the service worker to check against the frame it
types into (extension/sw/secret_gate.js).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from waymark.host.core import secrets_store
from waymark.host.core.actions import ActionModel
from waymark.host.core.snapshot import Snapshot, SnapshotElement

log = logging.getLogger(__name__)

PLACEHOLDER = re.compile(r"\{\{\s*secret:([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}")
REDACTED = "[redacted]"

_PASSWORD_NAME = re.compile(r"pass(word|code|phrase)?\b|\bpin\b|\bcvv\b|\bcvc\b|security code", re.IGNORECASE)


class SecretRefused(Exception):
    """A placeholder that may not be typed here; `code` is a stable machine code, the message says
    why and what the user can do. Never carries a value."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message


class SecretMissing(SecretRefused):
    """A placeholder names a secret the store does not have."""

    def __init__(self, name: str) -> None:
        super().__init__("secret_missing", f"no secret named {name!r} in the host's secret store (add it in the side panel's settings)")
        self.name = name


@dataclass(frozen=True)
class SecretScope:
    """Which secrets a driver may type, and where.

    `named`: the placeholders the task or workflow gave (None: the driver has no task, as an MCP
    client; then `client` must be set and only its grants count). `client`: an MCP client, who may
    type a secret only on the origins the user granted it. `pinned`: secret name -> the origin a
    workflow recorded typing it on (a replay types it there only)."""

    named: frozenset[str] | None
    client: str | None = None
    pinned: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of_task(cls, task: str, client: str | None = None) -> "SecretScope":
        """The scope of a task: the secrets its text names (and, for an MCP client's run, that it was granted)."""
        return cls(named=frozenset(placeholders(task)), client=client)

    def origins(self, name: str, secret: secrets_store.StoredSecret) -> list[str]:
        """The origins `name` may be typed on under this scope; SecretRefused when there are none."""
        if self.named is not None and name not in self.named:
            raise SecretRefused("secret_not_named", f"the task never named {{{{secret:{name}}}}}: a secret is typed only where the task "
                                "(or the workflow) gives its placeholder")
        if not secret.origins:
            raise SecretRefused("secret_unbound", f"the secret {name} is bound to no site yet (stored before secrets had origins): bind "
                                "it to the sites it is for in the side panel's Settings, Secrets, before a run may type it")
        allowed = list(secret.origins)
        if self.client is not None:
            allowed = [o for o in allowed if any(g.client == self.client and g.origin == o for g in secret.grants)]
            if not allowed:
                raise SecretRefused("secret_not_granted", f"{self.client} may not type the secret {name}: the user has granted it on no "
                                    "site (Settings, Secrets, in the side panel)")
        pin = self.pinned.get(name)
        if pin is not None:
            allowed = [o for o in allowed if o == pin]
            if not allowed:
                raise SecretRefused("secret_origin_refused", f"the workflow typed {name} on {pin}, a site the secret is no longer bound to")
        return allowed


@dataclass(frozen=True)
class Resolved:
    """An action ready for dispatch: placeholders filled in, and, when it types a secret, the only
    origins the frame it types into may have (None: it types no secret)."""

    action: ActionModel
    secret_origins: list[str] | None = None


#: Looks a typeable secret up by name (None when missing); the host's store by default.
SecretLookup = Callable[[str], "secrets_store.StoredSecret | None"]


def placeholders(text: str) -> list[str]:
    """Names of the secrets a text refers to."""
    return PLACEHOLDER.findall(text)


#: A fragment of a known value this long or longer is redacted wherever it appears: a prefix the
#: snapshot's value cap cut, a trace's 40 characters, a value the page echoed in part. Shorter
#: pieces are words a page says anyway: with 8, a stored "mypassword1" hid "password" in every
#: "Forgot password?" link the agent was shown.
FRAGMENT_CHARS = 12
_SPACES = re.compile(r"\s+")


def _collapsed(value: str) -> str:
    return _SPACES.sub(" ", value)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a file changed (its inode, size and last change in ns), None when it is absent."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


class Redactor:
    """Replaces every known sensitive value with `[redacted]`; learns values as the run goes.

    A value shorter than FRAGMENT_CHARS is redacted where it appears whole. A longer one is
    redacted wherever any FRAGMENT_CHARS-long piece of it appears, forwards or reversed, with runs
    of white space counted as one space (a page collapses them), so a cut, an echo in part or a
    reversed copy goes too."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        #: The values longest first, so overlaps redact whole.
        self._longest_first: list[str] = []
        self._grams: set[str] = set()
        self._kept: set[str] = set()
        self._kept_pattern: re.Pattern[str] | None = None
        #: The secret store file as last learnt (its inode, size and change time), None before.
        self._store_stamp: tuple[int, int, int] | None = None

    @classmethod
    def for_run(cls) -> "Redactor":
        """A redactor that knows every value of the secret store from the start, typed or not: a
        page that shows one (or a piece of one) never gets it into a prompt, a trace or a log."""
        return cls().learn_store()

    def learn_store(self) -> "Redactor":
        """Learn every value the secret store holds now, unless the store file is unchanged since
        the last time (a long-lived session calls it again, for the secrets stored since, without
        reading the file each time); an unreadable store teaches nothing and is logged by its code."""
        stamp = _stamp(secrets_store.store_path())
        if stamp is not None and stamp == self._store_stamp:
            return self
        self._store_stamp = stamp
        try:
            values = secrets_store.all_values()
        except secrets_store.SecretError as exc:
            log.warning("the redactor could not read the secret store: %s", exc.code)
            values = []
        for value in values:
            self.learn(value)
        return self

    def learn(self, value: str) -> None:
        if not value or value in self._values:
            return
        self._values.add(value)
        self._longest_first = sorted(self._values, key=len, reverse=True)
        flat = _collapsed(value)
        for form in (flat, flat[::-1]):
            self._grams.update(form[i:i + FRAGMENT_CHARS] for i in range(len(form) - FRAGMENT_CHARS + 1))

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
        value = self._fragments(value)
        for secret in self._longest_first:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def _fragments(self, value: str) -> str:
        """`value` with every stretch made of known values' fragments replaced, read with white
        space collapsed (each position of the collapsed text maps back to the original)."""
        if not self._grams or len(value) < FRAGMENT_CHARS:
            return value
        text = _collapsed(value)
        grams, size = self._grams, FRAGMENT_CHARS
        if not any(text[i:i + size] in grams for i in range(len(text) - size + 1)):
            return value  # the common case: nothing to redact, and no position map to build
        starts = [m.start() for m in re.finditer(r"\s+|\S", value)]
        covered_to = -1
        spans: list[list[int]] = []
        for i in range(len(text) - FRAGMENT_CHARS + 1):
            if text[i:i + FRAGMENT_CHARS] in self._grams:
                end = i + FRAGMENT_CHARS
                if spans and i <= covered_to:
                    spans[-1][1] = end
                else:
                    spans.append([i, end])
                covered_to = end
        if not spans:
            return value
        pieces, last = [], 0
        for first, end in spans:
            start_at = starts[first]
            end_at = starts[end] if end < len(starts) else len(value)
            pieces.append(value[last:start_at])
            pieces.append(REDACTED)
            last = end_at
        pieces.append(value[last:])
        return "".join(pieces)

    def obj(self, value: Any) -> Any:
        """A JSON-like value with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.obj(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.obj(v) for v in value]
        return value

    def with_screenshot(self, snapshot: Snapshot) -> Snapshot:
        """The snapshot redacted as `snapshot()` does, its screenshot passed through untouched (an
        image is not text: the extension paints typed secrets over in it before it leaves)."""
        safe = self.snapshot(snapshot.model_copy(update={"screenshot_b64": None}))
        return safe.model_copy(update={"screenshot_b64": snapshot.screenshot_b64})

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
    path = "/".join(REDACTED if is_path_token(segment) else segment for segment in parts.path.split("/"))
    return urlunsplit((parts.scheme, netloc, path, urlencode(kept), fragment))


#: A JWT: three base64url parts (header, payload, signature).
_JWT = re.compile(r"[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9\-_.~%+=]{16,}")
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
_RUN = re.compile(r"[A-Za-z]+|[0-9]+")


def is_path_token(segment: str) -> bool:
    """Whether a URL path segment is a credential (a reset or magic link's token, a JWT, a long
    random id): JWT-shaped, 32+ hex digits, or 16+ token characters whose letters and digits
    alternate in 6 or more runs once separators are dropped (a word slug such as
    `iphone-15-pro-max-256gb` alternates in 5 at most). extension/sw/snapshot_text.js keeps the same rule."""
    if _JWT.fullmatch(segment) or _HEX.fullmatch(segment):
        return True
    if not _TOKEN_CHARS.fullmatch(segment):
        return False
    return len(_RUN.findall(re.sub(r"[^A-Za-z0-9]", "", segment))) >= 6


def is_password_field(element: SnapshotElement | None) -> bool:
    """Whether an element holds a password or similar: by its input type when reported, else its name."""
    if element is None:
        return False
    extra = element.model_extra or {}
    kind = str(extra.get("input_type") or extra.get("type") or "").lower()
    if kind == "password" or element.states.get("password") or element.states.get("secret"):
        return True
    return element.role.lower() in ("textbox", "searchbox", "combobox", "spinbutton") and bool(_PASSWORD_NAME.search(element.name or ""))


def resolve_action(action: ActionModel, redactor: Redactor, scope: SecretScope,
                   lookup: SecretLookup = secrets_store.get_secret) -> Resolved:
    """The action with placeholders in `text` filled in from the store (for dispatch only), and
    the origins its frame must have. SecretRefused when `scope` does not let it type one of them
    (a provider key never).

    The values are taught to the redactor first, so nothing logged afterwards can carry them.
    """
    text = getattr(action, "text", None)
    if not isinstance(text, str) or not PLACEHOLDER.search(text):
        return Resolved(action)
    values: dict[str, str] = {}
    origins: set[str] | None = None
    for name in placeholders(text):
        if secrets_store.is_provider_key(name):
            raise SecretRefused("secret_is_provider_key", f"{name} is a provider API key: it is kept apart from the secrets a run may "
                                "type and is never typed into a page")
        secret = lookup(name)
        if secret is None:
            raise SecretMissing(name)
        allowed = set(scope.origins(name, secret))
        origins = allowed if origins is None else origins & allowed
        if not origins:
            raise SecretRefused("secret_origin_refused", "the secrets this text types are bound to no site in common")
        values[name] = secret.value
    for value in values.values():
        redactor.learn(value)
    resolved = PLACEHOLDER.sub(lambda m: values[m.group(1)], text)
    return Resolved(action.model_copy(update={"text": resolved}), sorted(origins or ()))


def protect_typed_text(action: ActionModel, snapshot: Snapshot | None, redactor: Redactor) -> None:
    """A literal value typed into a password field is sensitive too: teach it to the redactor."""
    text = getattr(action, "text", None)
    if not isinstance(text, str) or not text or PLACEHOLDER.fullmatch(text.strip()):
        return
    ref = getattr(action, "ref", None)
    element = snapshot.find(ref) if snapshot is not None and ref is not None else None
    if is_password_field(element):
        redactor.learn(text)
