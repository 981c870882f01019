"""Gemini against answers built from google-genai's own types, served on loopback: thinking
tokens, a usage without a candidates count, and a connection that breaks while the SDK runs on
aiohttp. (A wrong key's 400 API_KEY_INVALID and a 429 whose RetryInfo says when to retry are in
the contract suite.)"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.genai import types

from waymark.providers import errors
from waymark.providers.base import CompletionRequest, Message
from waymark.providers.gemini import GeminiProvider, _usage
from waymark.providers.retry import RetryPolicy

REQUEST = CompletionRequest(messages=[Message.text("user", "Hello")], max_tokens=50, timeout=20)
ONE_TRY = RetryPolicy(attempts=1)


class Loopback:
    """Answers every request with one status and JSON body; counts the connections it accepted."""

    def __init__(self, status: int = 200, body: dict[str, Any] | None = None, hang_up: bool = False) -> None:
        self.status, self.body, self.hang_up = status, body or {}, hang_up
        self.connections = 0

    async def __aenter__(self) -> "Loopback":
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0)
        await reader.readexactly(length)
        if not self.hang_up:
            payload = json.dumps(self.body).encode()
            writer.write(b"HTTP/1.1 %d X\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
                         % (self.status, len(payload), payload))
            await writer.drain()
        writer.close()


def gemini(url: str) -> GeminiProvider:
    return GeminiProvider("gemini-fake", api_key="test-key", base_url=url, retry=ONE_TRY)


async def test_thinking_tokens_count_as_output_tokens():
    response = types.GenerateContentResponse(
        candidates=[types.Candidate(content=types.Content(role="model", parts=[types.Part(text="Hi")]), finish_reason=types.FinishReason.STOP)],
        usage_metadata=types.GenerateContentResponseUsageMetadata(prompt_token_count=10, candidates_token_count=5, thoughts_token_count=20),
    ).model_dump(mode="json", by_alias=True, exclude_none=True)
    async with Loopback(200, response) as server:
        completion = await gemini(server.url).complete(REQUEST)
    assert completion.text == "Hi"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (10, 25)


def test_usage_without_a_candidates_count_is_zero_output():
    usage = _usage(types.GenerateContentResponseUsageMetadata(prompt_token_count=12))
    assert (usage.input_tokens, usage.output_tokens) == (12, 0)


async def test_a_connection_that_breaks_under_aiohttp_is_unavailable_after_one_attempt():
    pytest.importorskip("aiohttp")  # the SDK runs its async calls on aiohttp whenever it is installed
    async with Loopback(hang_up=True) as server:
        with pytest.raises(errors.Unavailable):
            await gemini(server.url).complete(REQUEST)
    # The SDK's own retries are off: our one retry policy (here: one attempt) is the only one.
    assert server.connections == 1
