"""Fault injection at the provider's HTTP boundary: every HTTP provider (OpenAI-compatible,
Anthropic, Gemini) against a loopback server speaking its wire protocol that answers 429,
5xx, resets the connection, cuts a body or a stream short, stalls, or answers garbage. A
transient fault is survived by the one retry policy; a lasting one is one typed error; and the
same provider instance serves the next request normally afterwards."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

import pytest
import pytest_asyncio

from tests.contract.backends import (
    AnthropicBackend,
    GeminiBackend,
    HTTPBackend,
    OpenAICompatBackend,
)
from tests.contract.fake_server import FakeServer, Reply
from waymark.providers import errors
from waymark.providers.retry import RetryPolicy

FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
BACKENDS = {"openai_compat": OpenAICompatBackend, "anthropic": AnthropicBackend, "gemini": GeminiBackend}


class FaultyServer(FakeServer):
    """The contract suite's server, with a queue of transport faults consumed one per request:
    "ok", "reset" (closed without an answer), "drop" (half a body, or a stream cut after its
    first events), "garbage" (a 200 whose body is not JSON)."""

    def __init__(self) -> None:
        super().__init__()
        self.modes: list[str] = []
        self.current = "ok"

    def inject(self, *modes: str) -> None:
        self.modes = list(modes)

    def _next(self) -> Reply:
        self.current = self.modes.pop(0) if self.modes else "ok"
        return super()._next()

    async def _send_json(self, writer: asyncio.StreamWriter, status: int, payload: Any, extra: dict[str, str]) -> None:  # type: ignore[override]
        if self.current == "reset":
            return
        if self.current == "garbage":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 15\r\nConnection: close\r\n\r\n<html>oops</ht>")
            await writer.drain()
            return
        if self.current == "drop":
            import json

            data = json.dumps(payload).encode()
            writer.write(f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data[: len(data) // 2])
            await writer.drain()
            return
        await FakeServer._send_json(writer, status, payload, extra)

    async def _send_events(self, writer: asyncio.StreamWriter, events: list[tuple[str | None, str]], delay: float) -> None:  # type: ignore[override]
        if self.current == "drop":
            events = events[:2]  # the connection closes mid-stream: no finish, no [DONE]
        await FakeServer._send_events(writer, events, delay)


@pytest_asyncio.fixture(scope="module")
async def server() -> AsyncIterator[FaultyServer]:
    s = await FaultyServer().start()
    yield s
    await s.stop()


@pytest.fixture(params=list(BACKENDS))
def backend(request: pytest.FixtureRequest, server: FaultyServer) -> HTTPBackend:
    return BACKENDS[request.param](server)


TRANSIENT = {
    "429": (Reply(status=429, retry_after="0"), "ok"),
    "500": (Reply(status=500), "ok"),
    "503": (Reply(status=503), "ok"),
    "reset": (Reply(text="unused"), "reset"),
    "dropped_body": (Reply(text="unused"), "drop"),
    "garbage_body": (Reply(text="unused"), "garbage"),
}


@pytest.mark.parametrize("fault", list(TRANSIENT))
async def test_a_transient_fault_is_retried_and_the_answer_arrives(backend: HTTPBackend, server: FaultyServer, fault: str) -> None:
    first, mode = TRANSIENT[fault]
    provider = await backend.make(first, Reply(text="recovered"), retry=FAST_RETRY)
    server.inject(mode, "ok")
    # The deadline bounds a hang, it is not a speed check: the suite runs beside busy browsers.
    result = await provider.complete(backend.request(timeout=60))
    assert result.text == "recovered"
    assert len(server.seen) == 2
    await provider.aclose()


@pytest.mark.parametrize(("reply", "mode", "error"), [
    (Reply(status=500), "ok", errors.Unavailable),
    (Reply(status=429, retry_after="0"), "ok", errors.RateLimited),
    (Reply(text="unused"), "reset", errors.Unavailable),
], ids=["500", "429", "reset"])
async def test_a_lasting_fault_is_one_typed_error_after_the_bounded_retries(backend: HTTPBackend, server: FaultyServer,
                                                                            reply: Reply, mode: str, error: type) -> None:
    provider = await backend.make(reply, retry=FAST_RETRY)
    server.inject(mode, mode, mode)
    with pytest.raises(error):
        await provider.complete(backend.request(timeout=60))
    assert len(server.seen) == 3, "three attempts, then the error"
    server.script(Reply(text="fine again"))
    assert (await provider.complete(backend.request())).text == "fine again"
    await provider.aclose()


async def test_a_stalled_backend_is_a_timeout_within_the_requests_deadline(backend: HTTPBackend, server: FaultyServer) -> None:
    provider = await backend.make(Reply(text="too late", delay=5.0), retry=FAST_RETRY)
    with pytest.raises(errors.Timeout):
        await asyncio.wait_for(provider.complete(backend.request(timeout=0.5)), 4.0)
    server.script(Reply(text="on time"))
    assert (await provider.complete(backend.request())).text == "on time"
    await provider.aclose()


async def test_a_stream_cut_mid_way_is_unavailable_and_the_next_stream_is_whole(backend: HTTPBackend, server: FaultyServer) -> None:
    text = "one two three four five six seven eight"
    provider = await backend.make(Reply(text=text, chunks=6), retry=FAST_RETRY)
    server.inject("drop")
    received: list[str] = []
    with pytest.raises(errors.Unavailable):
        async for delta in provider.stream(backend.request()):
            received.append(delta.text or "")
    assert "".join(received) != text, "the cut stream must not pass for the whole answer"
    server.inject("ok")
    whole = [d async for d in provider.stream(backend.request())]
    assert "".join(d.text or "" for d in whole) == text
    assert whole[-1].finish_reason is not None
    await provider.aclose()
