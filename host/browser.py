"""Typed requests from the host to the extension: the one place that sends them (their models
are in host.core.browser_api).

`snapshot` and `act` are the spine of every agent step. Each takes a pydantic model and
returns one; the extension's handlers (extension/sw/) accept exactly these fields.
"""

from __future__ import annotations

import base64
from pathlib import Path

from waymark.host.bridge import BrowserBridge
from waymark.host.core.actions import UPLOAD_ACTIONS
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import (
    ActionError,
    ActionResult,
    ActRequest,
    SnapshotOptions,
)
from waymark.host.core.documents import DocumentUnreadable, pdf_text
from waymark.host.core.phases import timed
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.uploads import UploadRefused, resolve_uploads


@timed("decode")
async def snapshot(bridge: BrowserBridge, options: SnapshotOptions | None = None, timeout: float = 30.0) -> Snapshot:
    """Ask the extension for a snapshot of a tab."""
    options = options or SnapshotOptions()
    data = await bridge.request("snapshot", options.model_dump(), timeout=timeout)
    return Snapshot.model_validate(data)


@timed("decode")
async def act(bridge: BrowserBridge, admitted: Admitted, request: ActRequest, timeout: float | None = None,
              upload_dir: str | Path | None = None) -> ActionResult:
    """Ask the extension to carry out one admitted action; failures come back as `ok: false` with a code.
    `request` gives the rest of the request (tab, ref generation, snapshot, settle); its action, gate
    and secret origins are the admission's (host.core.admitted), whatever the caller put there: a
    bare request is never sent (`not_admitted`). An upload's file names are resolved here, in
    `upload_dir` only (a refused name fails the action without reaching the browser)."""
    kind = str(admitted.action.get("type", "")) if isinstance(admitted, Admitted) else ""
    if not isinstance(admitted, Admitted):
        return ActionResult(ok=False, action=str(request.action.get("type", "")), tab_id=request.tab_id,
                            error=ActionError(code="not_admitted", message="the action was not admitted, so it was not sent"))
    paths: list[str] | None = None
    if kind in UPLOAD_ACTIONS:
        try:
            paths = [str(p) for p in resolve_uploads(upload_dir, list(admitted.action.get("files") or []))]
        except UploadRefused as refused:
            return ActionResult(ok=False, action=kind, tab_id=request.tab_id, error=ActionError(code=refused.code, message=refused.message))
    request = request.model_copy(update={"action": admitted.action, "gate": admitted.gate, "secret_origins": admitted.secret_origins,
                                         "upload_paths": paths})
    data = await bridge.request("act", request.model_dump(mode="json"), timeout=request.reply_deadline_s() if timeout is None else timeout)
    result = ActionResult.model_validate(data)
    return _pdf_read(result, int(request.action.get("max_chars") or 4000)) if result.pdf_b64 is not None else result


def _pdf_read(result: ActionResult, max_chars: int) -> ActionResult:
    """An extract of a tab showing a PDF: the text of the bytes the extension fetched, read with pypdf."""
    try:
        text = pdf_text(base64.b64decode(result.pdf_b64 or ""))
    except (DocumentUnreadable, ValueError) as exc:
        return result.model_copy(update={"ok": False, "pdf_b64": None, "text": None,
                                         "error": ActionError(code="pdf_unreadable", message=f"the PDF this tab shows cannot be read: {exc}")})
    return result.model_copy(update={"pdf_b64": None, "text": text[:max_chars], "truncated": len(text) > max_chars})


async def detach_debugger(bridge: BrowserBridge, timeout: float = 5.0, tabs: list[int] | None = None) -> None:
    """Release the extension's debugger attachments (the "is debugging" state) at the end of a run,
    and the network rules the gate set in the run's `tabs` (None: in every tab)."""
    await bridge.request("act.detach", {} if tabs is None else {"tabs": tabs}, timeout=timeout)
