"""The whole-call time budget every provider keeps (HTTP or in-process), and retries inside it."""

from __future__ import annotations

import asyncio
import time
from typing import Awaitable, Callable, TypeVar

from waymark.providers import errors
from waymark.providers.retry import RetryPolicy

T = TypeVar("T")


class Deadline:
    """The whole-call time budget (`CompletionRequest.timeout`) shared by every attempt and wait."""

    def __init__(self, seconds: float, provider: str) -> None:
        self.end = time.monotonic() + seconds
        self.seconds = seconds
        self.provider = provider

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def expired(self) -> errors.Timeout:
        return errors.Timeout(f"no complete answer within {self.seconds:g}s", provider=self.provider)


async def with_retries(policy: RetryPolicy, deadline: Deadline, attempt: Callable[[], Awaitable[T]]) -> T:
    """Run `attempt` under the retry policy, each try and wait inside the deadline."""

    async def bounded() -> T:
        remaining = deadline.remaining()
        if remaining <= 0:
            raise deadline.expired()
        try:
            async with asyncio.timeout(remaining):
                return await attempt()
        except TimeoutError:
            raise deadline.expired() from None

    return await policy.run(bounded, remaining=deadline.remaining)
