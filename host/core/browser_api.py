"""What the host asks the extension for and what comes back: the models of the `snapshot` and
`act` requests (host.browser sends them; the extension's JSDoc types in
extension/shared/actions.js are generated from them)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.core.gate import Gate
from waymark.host.core.snapshot import Download, Snapshot


class SnapshotOptions(BaseModel):
    """Parameters of the extension's `snapshot` request."""

    model_config = ConfigDict(extra="forbid")

    #: Chrome tab id; None means the active tab of the last focused window.
    tab_id: int | None = None
    #: Budget of the model text (`Snapshot.text`); elements beyond it are paged with `offset`.
    max_chars: int = Field(default=20_000, ge=200)
    offset: int = Field(default=0, ge=0)
    #: Attach a numbered-overlay screenshot (base64 JPEG) as `screenshot_b64`.
    screenshot: bool = False
    #: With `screenshot`, also attach a small JPEG of it (320 px wide, made in the service worker)
    #: as `thumbnail_b64`, for the side panel's timeline.
    thumbnail: bool = False
    #: Drop elements hidden under another element (modal, banner) and report the occluder.
    occlusion: bool = True


class ActionError(BaseModel):
    """Why an action failed: a stable code and a sentence."""

    code: Literal[
        "stale_ref", "not_found", "not_visible", "disabled", "readonly", "occluded", "not_editable",
        "navigation_timeout", "restricted_page", "no_such_tab", "debugger_unavailable", "timeout",
        "bad_action", "no_such_option", "dialog_blocked",
        # answer_dialog with no dialog open; another action while one is open
        "no_dialog", "dialog_open",
        # `select` on a custom widget: the option was pressed and the widget showed no sign of taking it
        "not_selected",
        # upload_file (host.core.uploads) and select_text / clipboard presses
        "no_upload_folder", "bad_file_name", "file_not_found", "outside_upload_folder", "too_many_files",
        "not_a_file_input", "no_such_text", "clipboard_empty",
        # the pointer actions: a point off the page, an HTML5 drag Chrome did not hand over
        "outside_viewport", "drag_failed",
        # a press sent with its move to a page that stopped answering: it may land later, so it is not repeated
        "input_stalled",
        # the gate (host.core.gate, extension/sw/gate.js): a URL or tab the request may not reach,
        # and a request the admission (host.agent.admission) did not admit
        "url_refused", "tab_refused", "not_admitted",
        # a trusted press that never arrived in its target's document (the browser routed it elsewhere)
        "press_lost",
        # extract in a PDF tab whose file could not be fetched again or read
        "pdf_unreadable",
    ] | str
    message: str
    #: The occluder's ref for `occluded`, and similar evidence.
    data: dict[str, Any] = Field(default_factory=dict)


class NewTabInfo(BaseModel):
    tab_id: int
    url: str = ""


#: How long an action that began a navigation waits for the new document to commit (a slow
#: server's first byte, a back or forward on a loaded machine) before failing as
#: navigation_timeout; the settle window (settle_timeout_ms) bounds the waiting after that.
NAVIGATION_COMMIT_MS = 20_000
#: What an act reply may take beyond the action's own waits: prepare, input, the snapshot.
_REPLY_MARGIN_S = 30.0


class ActRequest(BaseModel):
    """Parameters of the extension's `act` request."""

    model_config = ConfigDict(extra="forbid")

    tab_id: int | None = None
    #: One action of host.core.actions (as JSON); ask_user and done never reach the extension.
    action: dict[str, Any]
    #: The `Snapshot.ref_generation` the action's ref was read in: a ref of an earlier page of the
    #: tab (whose number a new page may give again) is then `stale_ref`. None: not checked.
    ref_generation: int | None = None
    #: Settle: at least this long after the action, then until nothing the action started is pending
    #: (requests, short timers: seen by the page-world tracker) and the DOM is quiet, bounded by
    #: settle_timeout_ms. Where the tracker cannot see the page, the extension waits at least 50 ms.
    settle_min_ms: int = Field(default=0, ge=0)
    settle_timeout_ms: int = Field(default=3000, ge=0)
    #: A navigation the action began must commit within this long (see NAVIGATION_COMMIT_MS).
    commit_timeout_ms: int = Field(default=NAVIGATION_COMMIT_MS, ge=0)
    #: Attach the settled snapshot to the result (and always to a stale_ref error).
    snapshot: SnapshotOptions | None = Field(default_factory=SnapshotOptions)
    #: Policy for JavaScript dialogs the action opens: accept or dismiss them, or (ask) hold a
    #: confirm or prompt open for an `answer_dialog` action; alerts and leave-page prompts are
    #: accepted under ask.
    dialogs: Literal["accept", "dismiss", "ask"] = "accept"
    #: Scroll the element into view before the checks (off only to measure what it buys).
    scroll_into_view: bool = True
    #: upload_file's files as absolute paths, resolved by host.browser.act from the user's upload
    #: folder (host.core.uploads); whatever a caller puts here is replaced, so a path never comes
    #: from the model or a page.
    upload_paths: list[str] | None = None
    #: Where this action may take the browser and which tabs it may move to (host.core.gate);
    #: host.browser.act sends no request without one.
    gate: Gate | None = None
    #: Set when the action types a secret (host.agent.redaction.resolve_action): the origins the
    #: secret is bound to. The service worker types only into a frame whose origin, as the browser
    #: reports it, is one of them (else `secret_origin_refused`), and the field then reports only
    #: that it has a value, in snapshots and screenshots alike. None: no secret is typed.
    secret_origins: list[str] | None = None

    def reply_deadline_s(self) -> float:
        """How long a caller waits for the extension's reply: every wait the action may do
        (a navigation's commit, settling, a `wait`'s ms) and a margin."""
        waited = self.action.get("ms") if self.action.get("type") == "wait" else 0
        return _REPLY_MARGIN_S + (self.commit_timeout_ms + self.settle_timeout_ms + int(waited or 0)) / 1000


class PointerHit(BaseModel):
    """Where a pointer action landed: the point, and the elements there the snapshot knows."""

    model_config = ConfigDict(extra="forbid")

    #: The point in the top-level viewport's CSS pixels.
    x: float
    y: float
    #: Chrome's frameId of the frame whose document is under the point (0 = top document).
    frame: int = 0
    #: The innermost element under the point that has a ref, if any (what the model would name).
    ref: int | None = None
    #: Every ref whose box covers the point, innermost first.
    refs: list[int] = Field(default_factory=list)
    #: A short description of the element under the point (tag, id, role, label; never a value).
    element: str = ""


class ActionResult(BaseModel):
    """What the extension did: proven by `ok`, or failed with a code and the evidence."""

    model_config = ConfigDict(extra="allow")

    ok: bool
    action: str
    path: Literal["cdp", "synthetic", "browser"] | None = None
    settle_ms: float = 0.0
    #: The page came to rest after the action (false: the settle deadline ended the wait); None
    #: for actions that do not settle.
    settled: bool | None = None
    #: The page sent a request or submitted a form after the action began (content/activity.js):
    #: its effect may be on the server, where no snapshot shows it.
    sent: bool = False
    #: URL of the tab acted in, before; URL of the tab the agent continues in (`tab_id`), after.
    url_before: str = ""
    url_after: str = ""
    navigated: bool = False
    #: A tab the action opened; the agent continues there.
    new_tab: NewTabInfo | None = None
    #: The tab the agent is in after the action.
    tab_id: int | None = None
    error: ActionError | None = None
    snapshot: Snapshot | None = None
    #: Dialogs (alert, confirm, prompt, beforeunload) seen and how they were handled.
    dialogs: list[dict[str, Any]] = Field(default_factory=list)
    #: What `extract` read.
    text: str | None = None
    #: `extract` in a tab showing a PDF: the file's bytes (base64), which host.browser.act turns into `text`.
    pdf_b64: str | None = None
    #: Downloads the acting tab's page started during the action (extension/sw/downloads.js).
    downloads: list[Download] = Field(default_factory=list)
    #: Where a coordinate action's point landed (drag_at: where the press began).
    hit: PointerHit | None = None
    #: Where a drag released: the element under the release point after the drop.
    drop: PointerHit | None = None
    #: The element already had the wanted state (check, uncheck, select): nothing was done.
    already: bool = False
    #: The page replaced the element as it answered the action (a re-render on change): the
    #: action landed, and the element's new state is read from the next snapshot, not the old node.
    replaced: bool = False
    #: A typed secret: the origin of the frame it went into, as the service worker read it (a
    #: saved workflow records it, and its replay types the secret there only).
    secret_origin: str | None = None
