"""A local model run in-process with mlx-lm: the model's own chat template, JSON-in-text for
tools, greedy decoding by default. Generation runs on one worker thread (mlx work stays on one
thread); the event loop only waits for tokens, so cancellation and deadlines stop it between tokens."""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import gc
import logging
import threading
from pathlib import Path
from typing import Any, AsyncIterator

from waymark.providers import errors
from waymark.providers.base import (
    Capabilities,
    Completion,
    CompletionRequest,
    Delta,
    ImagePart,
    LLMProvider,
    Usage,
)
from waymark.providers.deadline import Deadline
from waymark.providers.streaming import collect
from waymark.providers.textmode import flatten_messages

log = logging.getLogger(__name__)

#: mlx keeps its work on the thread that started it; one worker serves every model.
_WORKER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="waymark-mlx")
_LOADED: dict[str, tuple[Any, Any]] = {}
_DONE = object()


@atexit.register
def _release() -> None:
    """Free loaded models before the interpreter tears mlx down (freeing them later aborts the process)."""
    _LOADED.clear()
    gc.collect()


def _clear_worker_streams() -> None:
    """Destroy the MLX streams the worker thread created, on that thread, before it exits.

    Streams still alive on a thread other than the main one make the process abort now and then
    at exit ("terminate called without an active exception"); mlx's clear_streams is the cure, and
    it must run before the pool joins its worker. threading's own exit hooks run in reverse order
    of registration, so this one (registered after concurrent.futures') runs first.
    """
    if not _LOADED:
        return

    def clear() -> None:
        import mlx.core as mx

        mx.clear_streams()

    try:
        _WORKER.submit(clear).result(timeout=30)
    except Exception:  # exiting anyway: never turn a clean exit into a traceback
        log.exception("could not clear the MLX worker's streams")


threading._register_atexit(_clear_worker_streams)  # type: ignore[attr-defined]


def _load(path: str) -> tuple[Any, Any]:
    """Load (once) a model folder or Hugging Face repo id through mlx-lm's normal loader."""
    if path not in _LOADED:
        from mlx_lm import load

        try:
            loaded = load(path)
            _LOADED[path] = (loaded[0], loaded[1])
        except Exception as exc:  # mlx-lm raises many kinds (missing files, bad config): one typed error
            raise errors.ProviderNotConfigured(f"cannot load the MLX model {path!r}: {type(exc).__name__}: {exc}"[:400], provider="mlx") from None
    return _LOADED[path]


class MLXProvider(LLMProvider):
    """mlx-lm in-process. `model` is a local folder (config.json, *.safetensors, tokenizer) or a repo id."""

    name = "mlx"

    def __init__(self, model: str, *, context_tokens: int = 8_192, **_: Any) -> None:
        super().__init__(model)
        try:
            import mlx_lm  # noqa: F401  (fail at construction, not at the first call)
        except ImportError as exc:
            raise errors.ProviderNotConfigured(f"mlx-lm is not installed: {exc}", provider=self.name) from None
        self._caps = Capabilities(native_tools=False, json_schema=False, vision=False, streaming=True, context_tokens=context_tokens)
        self._lock = asyncio.Lock()

    def capabilities(self) -> Capabilities:
        return self._caps

    def prompt(self, tokenizer: Any, request: CompletionRequest) -> str:
        """The chat-templated prompt; tools become JSON-in-text instructions."""
        messages = flatten_messages(request.messages, request.tools, request.tool_choice) if request.tools else request.messages
        chat = [{"role": "user" if m.role == "tool" else m.role, "content": m.plain_text()} for m in messages]
        prompt: str = tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        return prompt

    def _generate(self, request: CompletionRequest, emit: Any, stop: threading.Event) -> None:
        """Worker-thread body: emit(("text", str)) per piece, then emit(("end", finish, usage))."""
        from mlx_lm import stream_generate
        from mlx_lm.sample_utils import make_sampler

        model, tokenizer = _load(self.model)
        prompt = self.prompt(tokenizer, request)
        # Tokenized here (as mlx-lm would) so an oversized prompt is refused before any work.
        bos = getattr(tokenizer, "bos_token", None)
        tokens = tokenizer.encode(prompt, add_special_tokens=bos is None or not prompt.startswith(bos))
        if len(tokens) > self._caps.context_tokens:
            raise errors.ContextTooLong(f"the prompt has {len(tokens)} tokens; the context holds {self._caps.context_tokens}", provider=self.name)
        sampler = make_sampler(temp=request.temperature or 0.0)
        finish, usage = "stop", None
        for response in stream_generate(model, tokenizer, tokens, max_tokens=request.max_tokens, sampler=sampler):
            if stop.is_set():
                return
            if response.text:
                emit(("text", response.text))
            usage = Usage(input_tokens=response.prompt_tokens, output_tokens=response.generation_tokens)
            if response.finish_reason:
                finish = response.finish_reason
        emit(("end", finish, usage))

    async def stream(self, request: CompletionRequest) -> AsyncIterator[Delta]:
        if any(isinstance(p, ImagePart) for m in request.messages for p in m.content):
            raise errors.CapabilityError("the MLX provider is text-only: it cannot take images", provider=self.name)
        deadline = Deadline(request.timeout, self.name)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def emit(item: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        def work() -> None:
            try:
                self._generate(request, emit, stop)
            except BaseException as exc:  # noqa: BLE001  handed to the event loop, re-raised there
                emit(("error", exc))
            finally:
                emit(_DONE)

        async with self._lock:
            future = loop.run_in_executor(_WORKER, work)
            try:
                while True:
                    remaining = deadline.remaining()
                    if remaining <= 0:
                        raise deadline.expired()
                    try:
                        item = await asyncio.wait_for(queue.get(), remaining)
                    except TimeoutError:
                        raise deadline.expired() from None
                    if item is _DONE:
                        break
                    if item[0] == "text":
                        yield Delta(text=item[1])
                    elif item[0] == "end":
                        yield Delta(finish_reason=item[1], usage=item[2])
                    else:
                        exc = item[1]
                        if isinstance(exc, errors.ProviderError):
                            raise exc
                        raise errors.Unavailable(f"generation failed: {type(exc).__name__}: {exc}"[:300], provider=self.name) from exc
            finally:
                # Cancelled, timed out or finished: the worker stops at its next token.
                stop.set()
                await asyncio.shield(future)

    async def complete(self, request: CompletionRequest) -> Completion:
        return await collect(self.stream(request), model=Path(self.model).name or self.model)
