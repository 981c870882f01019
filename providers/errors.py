"""The one provider error taxonomy. Every provider raises only these; the agent and the retry
policy decide on the class, never on a backend's message text."""

from __future__ import annotations


class ProviderError(Exception):
    """Base of every provider failure. `retryable` says whether the retry policy may try again."""

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


class RateLimited(ProviderError):
    """The backend asked us to slow down (HTTP 429). `retry_after` is its hint in seconds, if any."""

    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, provider: str = "", status: int | None = 429) -> None:
        super().__init__(message, provider=provider, status=status)
        self.retry_after = retry_after


class QuotaExceeded(ProviderError):
    """The account has no quota or credit left (OpenAI's 429 `insufficient_quota`, Anthropic's
    `billing_error`): a billing problem, so retrying will not help."""


class Timeout(ProviderError):
    """No complete answer within the request's timeout."""

    retryable = True


class Unavailable(ProviderError):
    """The backend cannot be reached or failed on its side (connection refused, HTTP 5xx)."""

    retryable = True


class BadRequest(ProviderError):
    """The backend rejected the request as malformed (HTTP 400/404/422); retrying will not help."""


class ContextTooLong(BadRequest):
    """The prompt does not fit the model's context window."""


class Blocked(ProviderError):
    """The backend refused to answer for safety or policy reasons."""


class CapabilityError(ProviderError):
    """The request needs something this provider or model cannot do (e.g. an image to a text-only model)."""


class ProviderNotConfigured(ProviderError):
    """The provider cannot be built: unknown name, missing key or missing optional dependency."""
