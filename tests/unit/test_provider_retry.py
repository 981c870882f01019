"""The one retry policy: bounded attempts, exponential backoff with jitter, Retry-After honoured."""

from __future__ import annotations

import random

import pytest

from waymark.providers import errors
from waymark.providers.retry import RetryPolicy, parse_retry_after


def test_retryable_errors_back_off_within_the_exponential_bound() -> None:
    policy = RetryPolicy(attempts=5, base_delay=0.5, max_delay=8.0)
    rng = random.Random(1)
    for attempt in range(4):
        delay = policy.delay(attempt, errors.Unavailable("down"), rng)
        assert delay is not None and 0 <= delay <= min(8.0, 0.5 * 2**attempt)


def test_backoff_never_exceeds_max_delay() -> None:
    policy = RetryPolicy(attempts=50, base_delay=1.0, max_delay=2.0)
    assert all((policy.delay(a, errors.Timeout("slow")) or 0) <= 2.0 for a in range(40))


def test_retry_after_is_a_minimum_wait() -> None:
    policy = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.02)
    assert policy.delay(0, errors.RateLimited("slow down", retry_after=5)) == 5


def test_retry_after_longer_than_the_bound_gives_up_at_once() -> None:
    policy = RetryPolicy(attempts=3, max_retry_after=30)
    assert policy.delay(0, errors.RateLimited("slow down", retry_after=120)) is None


@pytest.mark.parametrize("error", [errors.AuthError("no"), errors.BadRequest("no"), errors.ContextTooLong("no"), errors.Blocked("no"), errors.CapabilityError("no")])
def test_permanent_errors_are_not_retried(error: errors.ProviderError) -> None:
    assert RetryPolicy().delay(0, error) is None


def test_last_attempt_is_not_followed_by_a_wait() -> None:
    assert RetryPolicy(attempts=2).delay(1, errors.Unavailable("down")) is None


async def test_run_retries_until_success_and_sleeps_between() -> None:
    calls, waits = [], []

    async def call() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise errors.Unavailable("down")
        return "ok"

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    assert await RetryPolicy(attempts=3, base_delay=0.1).run(call, sleep=sleep) == "ok"
    assert len(calls) == 3 and len(waits) == 2


async def test_run_gives_up_when_the_wait_does_not_fit_the_deadline() -> None:
    async def call() -> str:
        raise errors.RateLimited("slow down", retry_after=10)

    with pytest.raises(errors.RateLimited):
        await RetryPolicy(attempts=3).run(call, remaining=lambda: 2.0)


@pytest.mark.parametrize(("header", "seconds"), [("7", 7.0), ("0.5", 0.5), ("", None), (None, None), ("soon", None)])
def test_retry_after_header_in_seconds(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header) == seconds


def test_retry_after_header_as_http_date() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412500.0) == 10.0
