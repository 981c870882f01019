"""One contract backend per registered provider: how to make the provider answer a given
protocol-neutral Reply for real (a loopback server speaking its wire protocol, a script, or a
tiny model whose output is programmed into its weights), and what request to send it."""

from __future__ import annotations

import base64
import hashlib
import json
import socket
from pathlib import Path
from typing import Any, AsyncIterator

from tests.contract.fake_server import FakeServer, Reply
from waymark.host.core.page_in_view import showing
from waymark.host.core.snapshot import Snapshot
from waymark.providers import registry
from waymark.providers.base import (
    Completion,
    CompletionRequest,
    Delta,
    ImagePart,
    LLMProvider,
    Message,
    TextPart,
    Tool,
    Usage,
)
from waymark.providers.retry import RetryPolicy

#: Contract tests see errors as they happen; retrying is tested on its own.
NO_RETRY = RetryPolicy(attempts=1)

SNAPSHOT = {
    "url": "http://127.0.0.1/shop",
    "title": "Fake shop",
    "elements": [
        {"ref": 3, "role": "button", "name": "Add to cart"},
        {"ref": 5, "role": "link", "name": "Checkout"},
    ],
    "text": '[3] button "Add to cart"\n[5] link "Checkout"',
}

TOOLS = [
    Tool(name="click", description="Click the element with this ref.",
         parameters={"type": "object", "properties": {"ref": {"type": "integer"}, "thought": {"type": "string"}}, "required": ["ref"]}),
    Tool(name="done", description="Finish the task.",
         parameters={"type": "object", "properties": {"result": {"type": "string"}, "success": {"type": "boolean"}}}),
]

#: Bytes with JPEG markers, base64: no backend here decodes images, they only carry them.
TINY_JPEG = base64.b64encode(b"\xff\xd8\xff\xe0waymark-test-image\xff\xd9").decode()


def unused_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Backend:
    """How the contract suite drives one provider."""

    name = ""
    #: Talks HTTP: status codes, Retry-After, refused connections and the request body apply.
    http = False

    async def make(self, *replies: Reply, retry: RetryPolicy = NO_RETRY) -> LLMProvider:
        """A provider whose next answers are `replies` (the last one repeats)."""
        raise NotImplementedError

    def request(self, *, tools: bool = False, image: bool = False, timeout: float = 60.0, max_tokens: int = 256) -> CompletionRequest:
        """The request the tests send: a system and a user message, optionally tools and an image."""
        content: list[Any] = [TextPart(text="What should I do on this page?")]
        if image:
            content.append(ImagePart(data_b64=TINY_JPEG))
        return CompletionRequest(
            messages=[Message.text("system", "You are a careful browser agent."), Message(role="user", content=content)],
            tools=TOOLS if tools else [],
            timeout=timeout,
            max_tokens=max_tokens,
            metadata=self.metadata(tools),
        )

    def metadata(self, tools: bool) -> dict[str, Any]:
        return {}

    def expected_usage(self, reply: Reply) -> Usage | None:
        """The usage the provider must report for this reply."""
        return Usage(input_tokens=reply.usage[0], output_tokens=reply.usage[1]) if reply.usage else None


def needs_http(backend: Backend) -> None:
    """Skip a test of what only a backend behind HTTP can answer."""
    if not backend.http:
        import pytest

        pytest.skip(f"{backend.name} runs in-process: there is no HTTP status, header or port to test")


class HTTPBackend(Backend):
    http = True
    model = "fake-model"

    def __init__(self, server: FakeServer) -> None:
        self.server = server

    def options(self) -> dict[str, Any]:
        return {"base_url": self.server.url, "api_key": "test-key"}

    async def make(self, *replies: Reply, retry: RetryPolicy = NO_RETRY, **overrides: Any) -> LLMProvider:
        self.server.script(*replies)
        return registry.create(self.name, self.model, retry=retry, **{**self.options(), **overrides})

    async def unreachable(self) -> LLMProvider:
        """The provider pointed at a port nobody listens on."""
        return registry.create(self.name, self.model, retry=NO_RETRY, **{**self.options(), "base_url": f"http://127.0.0.1:{unused_port()}"})


class OpenAICompatBackend(HTTPBackend):
    name = "openai_compat"

    def options(self) -> dict[str, Any]:
        return {"base_url": self.server.url + "/v1", "api_key": "test-key", "preset": "openai"}


class AnthropicBackend(HTTPBackend):
    name = "anthropic"

    def expected_usage(self, reply: Reply) -> Usage | None:
        """The Messages API always reports usage (it is required in its Message)."""
        from tests.contract.fake_server import ANTHROPIC_DEFAULT_USAGE

        usage = reply.usage or ANTHROPIC_DEFAULT_USAGE
        return Usage(input_tokens=usage[0], output_tokens=usage[1])


class GeminiBackend(HTTPBackend):
    name = "gemini"
    model = "gemini-fake"


class ScriptedBackend(Backend):
    """Replies become a script: text through the chat role, tool calls through the executor role
    (resolved against a snapshot), errors as scripted errors."""

    name = "scripted"

    def __init__(self) -> None:
        self._tools_role = False

    async def make(self, *replies: Reply, retry: RetryPolicy = NO_RETRY) -> LLMProvider:
        reply = replies[0]
        errors = [r for r in replies if r.status != 200]
        step: dict[str, Any] = {"intent": "act"}
        if errors:
            kind = {401: "auth", 429: "rate_limited"}.get(errors[0].status, "unavailable")
            step["error"] = {"kind": kind, "times": len(errors) if len(replies) > len(errors) else 10**6,
                             "retry_after": float(errors[0].retry_after) if errors[0].retry_after else None}
            reply = replies[-1]
            if reply.text is not None and not reply.tool_calls:
                step["decision_text"] = reply.text
        if reply.delay:
            step["error"] = {"kind": "timeout", "times": 10**6}
        script: dict[str, Any] = {"steps": [step], "chat": [reply.text] if reply.text is not None else []}
        if reply.tool_calls:
            name, args = reply.tool_calls[0]
            target = next(e for e in SNAPSHOT["elements"] if e["ref"] == args.get("ref"))
            fields = {k: v for k, v in args.items() if k not in ("ref", "thought")}
            step["action"] = {"type": name, "target": {"role": target["role"], "name": target["name"]}, **fields}
            step["thought"] = args.get("thought", "act")
            step["text"] = reply.text
        if reply.usage:
            script["usage"] = {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]}
        self._tools_role = bool(reply.tool_calls) or bool(errors) or bool(reply.delay)
        return _ShowingThePage(registry.create("scripted", "scripted", script=script, retry=retry))

    def metadata(self, tools: bool) -> dict[str, Any]:
        role = "executor" if self._tools_role else "chat"
        return {"role": role, "step_index": 0}


class _ShowingThePage:
    """The scripted provider with the contract's page in view for each call, as the agent's
    executor shows it the snapshot a call is about (host.core.page_in_view)."""

    def __init__(self, inner: LLMProvider) -> None:
        self._inner = inner
        self._page = Snapshot.model_validate(SNAPSHOT)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def complete(self, request: CompletionRequest) -> Completion:
        with showing(self._page):
            return await self._inner.complete(request)

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        with showing(self._page):
            async for delta in self._inner.stream(request):
                yield delta


class MLXBackend(Backend):
    """A tiny model per reply, built and saved in a temporary folder, loaded by mlx-lm's loader."""

    name = "mlx"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._chains: dict[str, int] = {}
        self._last: Path | None = None

    @staticmethod
    def reply_text(reply: Reply) -> str:
        """JSON-in-text: a tool call is written as the Decision object."""
        text = reply.text or ""
        for name, args in reply.tool_calls:
            fields = dict(args)
            thought = fields.pop("thought", None)
            decision = {"thought": thought, "action": {"type": name, **fields}} if thought else {"action": {"type": name, **fields}}
            text = (text + " " if text else "") + json.dumps(decision)
        return text

    def model_dir(self, reply: Reply) -> Path:
        from tests.contract.tiny_mlx import build, split_pieces

        text = self.reply_text(reply)
        eos = reply.finish != "length"
        key = hashlib.sha256(json.dumps([text, eos]).encode()).hexdigest()[:16]
        folder = self.folder / key
        if not (folder / "config.json").exists():
            build(folder, text, eos=eos)
        self._chains[str(folder)] = len(split_pieces(text, 4))
        return folder

    async def make(self, *replies: Reply, retry: RetryPolicy = NO_RETRY) -> LLMProvider:
        self._last = self.model_dir(replies[-1])
        return registry.create("mlx", str(self._last))

    def expected_usage(self, reply: Reply) -> Usage | None:
        """mlx counts tokens itself: the prompt as templated and tokenized, and every generated token (</s> included)."""
        import jinja2
        from tokenizers import Tokenizer

        from tests.contract.tiny_mlx import CHAT_TEMPLATE

        folder = self.model_dir(reply)
        req = self.request()
        prompt = jinja2.Template(CHAT_TEMPLATE).render(
            messages=[{"role": m.role, "content": m.plain_text()} for m in req.messages], add_generation_prompt=True)
        n_in = len(Tokenizer.from_file(str(folder / "tokenizer.json")).encode(prompt, add_special_tokens=False).ids)
        return Usage(input_tokens=n_in, output_tokens=self._chains[str(folder)] + 1)


def backend_for(name: str, server: FakeServer, tmp: Path) -> Backend:
    """The contract backend of a registered provider; a provider without one fails the suite."""
    known: dict[str, Any] = {
        "openai_compat": lambda: OpenAICompatBackend(server),
        "anthropic": lambda: AnthropicBackend(server),
        "gemini": lambda: GeminiBackend(server),
        "scripted": ScriptedBackend,
        "mlx": lambda: MLXBackend(tmp),
    }
    if name not in known:
        raise LookupError(f"provider {name!r} is registered but has no contract backend: add one to tests/contract/backends.py")
    return known[name]()
