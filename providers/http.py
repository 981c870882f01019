"""What the httpx-based providers share: status and transport errors mapped onto the one error
taxonomy, Server-Sent Events, and one whole-call deadline around retries."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any, AsyncGenerator, AsyncIterator

import httpx

from waymark.providers import errors
from waymark.providers.base import LLMProvider
from waymark.providers.deadline import Deadline, with_retries
from waymark.providers.retry import DEFAULT_POLICY, RetryPolicy, parse_retry_after

_CONTEXT_WORDS = re.compile(
    r"context[ _-]?(length|window)|too many tokens|prompt is too long|maximum context|too long for|exceeds the (context|maximum)",
    re.IGNORECASE,
)


def error_message(body: bytes | str) -> str:
    """The backend's own error message from a JSON error body (OpenAI, Anthropic and Google
    shapes), else the start of the body. Never contains request data we sent."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()[:300]
    err = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(err, dict):
        return str(err.get("message") or err.get("type") or err)[:300]
    return str(err)[:300]


#: Error codes (OpenAI `code`/`type`, Anthropic `type`) that mean the account cannot pay.
_QUOTA_CODES = frozenset({"insufficient_quota", "billing_error", "billing_hard_limit_reached"})


def error_code(body: bytes | str) -> str:
    """The backend's machine-readable error code (`code`, else `type`) from a JSON error body, or ""."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    err = data.get("error", data) if isinstance(data, dict) else None
    if not isinstance(err, dict):
        return ""
    return str(err.get("code") or err.get("type") or "")


def error_for_status(status: int, message: str, *, provider: str, retry_after: float | None = None, code: str = "") -> errors.ProviderError:
    """The typed error for an HTTP failure status (and the backend's error code, when it says more)."""
    if code in _QUOTA_CODES:
        return errors.QuotaExceeded(f"the account has no quota or credit left; check its plan and billing ({message})"[:300],
                                    provider=provider, status=status)
    if status in (401, 403):
        return errors.AuthError(message or "the key was refused", provider=provider, status=status)
    if status == 429:
        return errors.RateLimited(message or "rate limited", retry_after=retry_after, provider=provider, status=status)
    if status == 413 or (status in (400, 422) and _CONTEXT_WORDS.search(message or "")):
        return errors.ContextTooLong(message or "the prompt is too long for the model", provider=provider, status=status)
    if status in (408, 504):
        return errors.Timeout(message or "the backend timed out", provider=provider, status=status)
    if status >= 500:
        return errors.Unavailable(message or "the backend failed", provider=provider, status=status)
    return errors.BadRequest(message or "the request was rejected", provider=provider, status=status)


async def raise_for_status(response: httpx.Response, provider: str) -> None:
    """Raise the typed error for a non-2xx response (reads the body of a streamed response)."""
    if response.status_code < 400:
        return
    body = await response.aread()
    raise error_for_status(
        response.status_code,
        error_message(body),
        provider=provider,
        retry_after=parse_retry_after(response.headers.get("retry-after")),
        code=error_code(body),
    )


def unreachable(where: str, exc: BaseException, provider: str) -> errors.ProviderError:
    """The typed error for a failure below HTTP, in words that name the address tried and the
    next thing to try (the user fixes a server that is down or a wrong base URL, not a ConnectError)."""
    kind = type(exc).__name__
    if "Timeout" in kind:
        return errors.Timeout(f"no answer from {where} in time ({kind}). Is the server overloaded? Try again, "
                              "or raise the timeout", provider=provider)
    if "Connect" in kind:
        return errors.Unavailable(f"cannot connect to {where}. Is the server running there? Start it, or correct "
                                  "the provider's base URL in Settings", provider=provider)
    return errors.Unavailable(f"the connection to {where} broke ({kind}: {exc})"[:300], provider=provider)


def transport_error(exc: httpx.TransportError, provider: str) -> errors.ProviderError:
    """The typed error for a failure below HTTP (refused connection, timeout, broken stream)."""
    try:
        url = exc.request.url
        where = f"{url.scheme}://{url.netloc.decode()}{url.path}"  # never the query: some keys travel there
    except RuntimeError:  # an error raised before its request was attached
        where = "the backend"
    return unreachable(where, exc, provider)


async def sse_events(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    """(event, data) pairs of a text/event-stream response; `event` is "" when unnamed."""
    event = ""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
    if data:
        yield event, "\n".join(data)


def json_or_bad(response_text: str, provider: str) -> Any:
    """The JSON body of a 2xx response; a non-JSON success is the backend's fault (Unavailable)."""
    try:
        return json.loads(response_text)
    except ValueError:
        raise errors.Unavailable(f"the backend answered with something that is not JSON: {response_text[:120]!r}", provider=provider) from None


class HTTPProvider(LLMProvider):
    """Common plumbing of the httpx providers: one client, one retry policy, one deadline."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(model)
        self.base_url = base_url.rstrip("/")
        self.retry = retry or DEFAULT_POLICY
        # Timeouts come from each request's deadline; the client's own are a backstop.
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(600.0), transport=transport)

    def headers(self) -> dict[str, str]:
        """Auth and protocol headers of every request."""
        return {}

    async def _send(self, path: str, body: dict[str, Any], deadline: Deadline, *, stream: bool) -> httpx.Response:
        """POST `body`; a non-2xx status raises its typed error. A streamed response must be closed by the caller."""
        try:
            response = await self._client.send(
                self._client.build_request("POST", self.base_url + path, json=body, headers=self.headers(),
                                           timeout=httpx.Timeout(max(deadline.remaining(), 0.001))),
                stream=stream,
            )
        except httpx.TransportError as exc:
            raise transport_error(exc, self.name) from None
        try:
            await raise_for_status(response, self.name)
        except BaseException:
            await response.aclose()
            raise
        return response

    async def post_json(self, path: str, body: dict[str, Any], deadline: Deadline) -> Any:
        """POST with retries inside the deadline; the decoded JSON answer."""

        async def attempt() -> Any:
            response = await self._send(path, body, deadline, stream=False)
            return json_or_bad(response.text, self.name)

        return await with_retries(self.retry, deadline, attempt)

    async def open_stream(self, path: str, body: dict[str, Any], deadline: Deadline) -> httpx.Response:
        """Open an SSE response with retries (nothing has been yielded yet, so retrying is safe)."""
        return await with_retries(self.retry, deadline, lambda: self._send(path, body, deadline, stream=True))

    async def events(self, response: httpx.Response, deadline: Deadline) -> AsyncGenerator[tuple[str, str], None]:
        """The response's SSE events, each read within what is left of the deadline."""
        iterator = sse_events(response).__aiter__()
        try:
            while True:
                remaining = deadline.remaining()
                if remaining <= 0:
                    raise deadline.expired()
                try:
                    yield await asyncio.wait_for(iterator.__anext__(), remaining)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise deadline.expired() from None
                except httpx.TransportError as exc:
                    raise transport_error(exc, self.name) from None
        finally:
            await response.aclose()

    #: A cheap authenticated GET under base_url (listing models costs no tokens).
    ping_path = "/models"

    async def ping(self, timeout: float = 3.0) -> str:
        started = time.monotonic()
        await self._listing(timeout)
        return f"answered in {(time.monotonic() - started) * 1000:.0f} ms"

    async def model_ids(self, timeout: float = 3.0) -> list[str] | None:
        """The models the backend lists (OpenAI's and Anthropic's shape: `data[].id`), or None when
        its answer is not such a listing."""
        response = await self._listing(timeout)
        try:
            data = response.json().get("data")
        except (ValueError, AttributeError):
            return None
        if not isinstance(data, list):
            return None
        return [str(m["id"]) for m in data if isinstance(m, dict) and m.get("id")]

    async def _listing(self, timeout: float) -> httpx.Response:
        try:
            response = await self._client.get(self.base_url + self.ping_path, headers=self.headers(), timeout=timeout)
        except httpx.TransportError as exc:
            raise transport_error(exc, self.name) from None
        await raise_for_status(response, self.name)
        return response

    async def aclose(self) -> None:
        await self._client.aclose()
