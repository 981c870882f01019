"""The one provider error taxonomy. Every provider raises only these; the agent and the retry
policy decide on the class, never on a backend's message text."""

from __future__ import annotations

from typing import ClassVar


class ProviderError(Exception):
    """Base of every provider failure. `retryable` says whether the retry policy may try again."""

    #: The stable code the side panel and RPC callers act on.
    code: ClassVar[str] = "provider_error"

    retryable: bool = False

    def __init__(self, message: str, *, provider: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status

    def __str__(self) -> str:
        where = f"{self.provider}: " if self.provider else ""
        code = f" (HTTP {self.status})" if self.status is not None else ""
        return f"{where}{self.message}{code}"


class AuthError(ProviderError):
    """The key is missing, wrong or not allowed to use this model (HTTP 401/403)."""

    code: ClassVar[str] = "provider_auth"


class RateLimited(ProviderError):
    """The backend asked us to slow down (HTTP 429). `retry_after` is its hint in seconds, if any."""

    code: ClassVar[str] = "provider_rate_limited"

    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, provider: str = "", status: int | None = 429) -> None:
        super().__init__(message, provider=provider, status=status)
        self.retry_after = retry_after


class QuotaExceeded(ProviderError):
    """The account has no quota or credit left (OpenAI's 429 `insufficient_quota`, Anthropic's
    `billing_error`): a billing problem, so retrying will not help."""

    code: ClassVar[str] = "provider_quota"


class Timeout(ProviderError):
    """No complete answer within the request's timeout."""

    code: ClassVar[str] = "provider_timeout"

    retryable = True


class Unavailable(ProviderError):
    """The backend cannot be reached or failed on its side (connection refused, HTTP 5xx)."""

    code: ClassVar[str] = "provider_unreachable"

    retryable = True


class BadRequest(ProviderError):
    """The backend rejected the request as malformed (HTTP 400/404/422); retrying will not help."""

    code: ClassVar[str] = "provider_bad_request"


class ContextTooLong(BadRequest):
    """The prompt does not fit the model's context window."""

    code: ClassVar[str] = "provider_context_too_long"


class Blocked(ProviderError):
    """The backend refused to answer for safety or policy reasons."""

    code: ClassVar[str] = "provider_blocked"


class CapabilityError(ProviderError):
    """The request needs something this provider or model cannot do (e.g. an image to a text-only model)."""

    code: ClassVar[str] = "provider_capability"


class ProviderNotConfigured(ProviderError):
    """The provider cannot be built: unknown name, missing key or missing optional dependency."""

    code: ClassVar[str] = "provider_not_configured"


def error_code(exc: BaseException) -> str:
    """The stable code of a failure: a provider error's own, else "provider_error"."""
    return exc.code if isinstance(exc, ProviderError) else "provider_error"
