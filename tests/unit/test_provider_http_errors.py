"""HTTP statuses and backend error bodies map onto the one error taxonomy."""

from __future__ import annotations

import pytest

from waymark.providers import errors
from waymark.providers.http import error_for_status, error_message


@pytest.mark.parametrize(
    ("status", "message", "error"),
    [
        (401, "invalid x-api-key", errors.AuthError),
        (403, "permission denied", errors.AuthError),
        (429, "slow down", errors.RateLimited),
        (400, "This model's maximum context length is 8192 tokens", errors.ContextTooLong),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", errors.ContextTooLong),
        (413, "request too large", errors.ContextTooLong),
        (400, "tools.0.name: invalid", errors.BadRequest),
        (404, "model not found", errors.BadRequest),
        (500, "internal", errors.Unavailable),
        (503, "overloaded", errors.Unavailable),
        (529, "overloaded_error", errors.Unavailable),
        (504, "deadline exceeded", errors.Timeout),
    ],
)
def test_status_maps_to_its_typed_error(status: int, message: str, error: type) -> None:
    assert type(error_for_status(status, message, provider="p")) is error


def test_rate_limited_carries_retry_after() -> None:
    exc = error_for_status(429, "slow", provider="p", retry_after=3.0)
    assert isinstance(exc, errors.RateLimited) and exc.retry_after == 3.0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"error": {"message": "bad key", "type": "invalid_request_error"}}', "bad key"),
        ('{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}', "Overloaded"),
        ('{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}', "Quota exceeded"),
        ("<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
    ],
)
def test_backend_error_message_is_read_from_each_shape(body: str, message: str) -> None:
    assert error_message(body) == message


def test_error_text_names_provider_and_status() -> None:
    assert str(error_for_status(401, "bad key", provider="anthropic")) == "anthropic: bad key (HTTP 401)"
