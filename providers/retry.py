"""The one retry policy for provider calls: bounded exponential backoff with full jitter,
honouring a backend's Retry-After. Only errors marked `retryable` are retried."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, TypeVar

from waymark.providers.errors import ProviderError, RateLimited

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """At most `attempts` calls; waits grow as base * 2**n with full jitter, capped at `max_delay`.
    A Retry-After hint is honoured as a minimum wait unless it exceeds `max_retry_after`,
    in which case the error is raised at once (waiting minutes helps no interactive user)."""

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 30.0

    def delay(self, attempt: int, error: ProviderError, rng: random.Random | None = None) -> float | None:
        """Seconds to wait before call number `attempt + 1` (0-based `attempt` failed), or None to give up."""
        if not error.retryable or attempt + 1 >= self.attempts:
            return None
        backoff = (rng or random).uniform(0, min(self.max_delay, self.base_delay * 2**attempt))
        if isinstance(error, RateLimited) and error.retry_after is not None:
            if error.retry_after > self.max_retry_after:
                return None
            return max(error.retry_after, backoff)
        return backoff

    async def run(
        self,
        call: Callable[[], Awaitable[T]],
        *,
        remaining: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> T:
        """Run `call` under this policy; the last error propagates unchanged. `remaining()`
        is the time left in the caller's deadline: a wait that would not fit gives up."""
        attempt = 0
        while True:
            try:
                return await call()
            except ProviderError as exc:
                wait = self.delay(attempt, exc)
                if wait is None or (remaining is not None and wait >= remaining()):
                    raise
                log.info("provider call failed (%s); retry %d in %.2fs", type(exc).__name__, attempt + 1, wait)
                await sleep(wait)
                attempt += 1


DEFAULT_POLICY = RetryPolicy()


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
