"""Runs `call` messages as cancellable tasks and sends their replies to whoever called."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from waymark.host import rpc
from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.channel import Send
from waymark.host.core.protocol import Call, ErrorInfo, Notify, Reply
from waymark.host.methods import CallContext, MethodError, lookup

log = logging.getLogger(__name__)


class CallRunner:
    """One task per in-flight call; `cancel` stops it, the in-flight model call included."""

    def __init__(self, bridge: BrowserBridge) -> None:
        rpc.load_all()
        self._bridge = bridge
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, call: Call, send: Send, client_id: int | None = None) -> None:
        """Run `call` in the background; its reply and notifications go to `send`. `client_id`:
        the attached MCP client's connection that called (CallContext.client_id)."""
        if call.id in self._tasks:
            send(Reply(id=call.id, ok=False, error=ErrorInfo(code="duplicate_id", message=f"call {call.id} is already running")))
            return
        task = asyncio.get_running_loop().create_task(self._run(call, send, client_id), name=f"call {call.method} {call.id}")
        self._tasks[call.id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(call.id, None))

    def cancel(self, call_id: str) -> bool:
        """Cancel a running call; its reply says `cancelled`. False when nothing ran under that id."""
        task = self._tasks.get(call_id)
        if task is None:
            return False
        task.cancel()
        return True

    def cancel_all(self) -> None:
        """Cancel every running call (the channel is closing)."""
        for task in list(self._tasks.values()):
            task.cancel()

    async def drain(self) -> None:
        """Wait for every running call to finish."""
        if self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _run(self, call: Call, send: Send, client_id: int | None) -> None:
        def reply(**fields: Any) -> None:
            try:
                send(Reply(id=call.id, **fields))
            except Exception:
                log.exception("could not send the reply to %s", call.id)

        fn = lookup(call.method)
        if fn is None:
            reply(ok=False, error=ErrorInfo(code="unknown_method", message=f"the host has no method {call.method[:64]!r}"))
            return

        def notify(name: str, data: dict[str, Any]) -> None:
            send(Notify(id=call.id, name=name, data=data))

        try:
            data = await fn(call.params, CallContext(call_id=call.id, browser=self._bridge, notify=notify, client_id=client_id))
        except asyncio.CancelledError:
            reply(ok=False, error=ErrorInfo(code="cancelled", message=f"{call.method} was cancelled"))
            return
        except MethodError as exc:
            reply(ok=False, error=ErrorInfo(code=exc.code, message=exc.message))
            return
        except BrowserError as exc:
            reply(ok=False, error=ErrorInfo(code=exc.code, message=exc.message), data=exc.data or None)
            return
        except Exception as exc:
            log.exception("host method %s failed", call.method)
            reply(ok=False, error=ErrorInfo(code="internal_error", message=f"{type(exc).__name__}: {exc}"[:500]))
            return
        reply(ok=True, data=data)
