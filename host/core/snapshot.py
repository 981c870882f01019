"""The typed page snapshot as programs see it (the JSON form); the model sees `text`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class SnapshotElement(BaseModel):
    """One element a person could use, with its stable ref."""

    model_config = ConfigDict(extra="allow")

    ref: int
    #: The element's place among the page's elements in document order (frames' elements where
    #: the frame stands); refs count in the order elements were first seen, which differs once an
    #: element appears before others that were already there.
    order: int | None = None
    role: str
    name: str = ""
    value: str | None = None
    #: Present states only: checked, selected, expanded, disabled, required, invalid (aria-invalid, or a
    #: value HTML constraint validation refuses), readonly, focused...
    states: dict[str, Any] = Field(default_factory=dict)
    #: [x, y, width, height] in top-level viewport CSS pixels.
    bbox: list[float] = Field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    #: Chrome's frameId of the frame holding the element (0 = top document).
    frame: int = 0
    in_viewport: bool = False
    #: Where the element leads, sanitised (no credentials, no secret-looking query parameters): a
    #: link's target, or the address a submit button sends its form to.
    href: str | None = None
    #: The frame's document identity (content/core.js docId): a ref is stale once it changes.
    doc: str = ""
    #: The first options of a select (labels), when the element is one.
    options: list[str] | None = None
    #: A form field's `name` attribute, when the field has no accessible name (never the name).
    field: str | None = None
    #: A field's placeholder, when it is not already its name.
    placeholder: str | None = None
    #: Which form of its frame (an index among the frame's forms) a field or button belongs to.
    form: int | None = None


class OpenDialog(BaseModel):
    """The JavaScript dialog a page waits on (its text is the page's, untrusted)."""

    type: Literal["alert", "confirm", "prompt", "beforeunload"]
    message: str = ""
    #: A prompt's default answer.
    default_prompt: str | None = None


class DialogSeen(OpenDialog):
    """A JavaScript dialog since the last action, and how it was answered (pending: still open)."""

    handled: Literal["accept", "dismiss", "pending"]
    #: Who answered it: the debugger, or the page-world script while no debugger was attached.
    by: Literal["debugger", "page"] = "debugger"
    #: What a prompt was answered with.
    text: str | None = None


class Download(BaseModel):
    """A download a page of Waymark's tabs started, as Chrome's downloads API reports it
    (extension/sw/downloads.js). Its name comes from the page: untrusted, like page text."""

    #: Chrome's download id: what read_download and the snapshot's download lines name.
    id: int
    #: The tab whose page started it.
    tab_id: int
    #: The file's name as it landed on disk (else the name the page suggested, while Chrome picks it).
    name: str = ""
    #: Where the file landed: an absolute path in the browser's download folder (empty until Chrome chose it).
    path: str = ""
    mime: str = ""
    #: Bytes (the file's size once complete, the bytes received so far before).
    size: int = 0
    state: Literal["in_progress", "complete", "interrupted"] = "in_progress"
    #: Why an interrupted download stopped, in Chrome's words (FILE_NO_SPACE, NETWORK_FAILED, ...).
    error: str | None = None
    #: Where it came from, without query or fragment.
    url: str = ""
    #: When it started, ms since the epoch.
    started: float = 0


class Snapshot(BaseModel):
    """A page snapshot; `text` is the compact form the model reads (one line per element)."""

    model_config = ConfigDict(extra="allow")

    url: str
    title: str = ""
    viewport: dict[str, Any] = Field(default_factory=dict)
    elements: list[SnapshotElement] = Field(default_factory=list)
    text: str = ""
    next_offset: int | None = None
    page_overflow: bool = False
    stats: dict[str, Any] = Field(default_factory=dict)
    tab_id: int | None = None
    #: The generation of the tab's refs: numbering starts again at 1 when the tab goes to another
    #: page, so an act request names the generation its ref was read in (`ActRequest.ref_generation`).
    ref_generation: int = 1
    #: Base64 JPEG of the numbered-overlay screenshot, when asked for.
    screenshot_b64: str | None = None
    #: Screenshot pixels per CSS pixel of that screenshot (2 at device-pixel-ratio 2): the
    #: coordinate actions' x, y are screenshot pixels, divided by this in the extension.
    screenshot_scale: float | None = None
    #: Base64 JPEG thumbnail of that screenshot, when asked for (`SnapshotOptions.thumbnail`).
    thumbnail_b64: str | None = None
    #: The JavaScript dialog the page waits on: while one is open the page answers nothing else,
    #: so the snapshot lists no element and `answer_dialog` is the only browser action.
    dialog: OpenDialog | None = None
    #: Every JavaScript dialog since the last action (also the first lines of `text`).
    dialogs: list[DialogSeen] = Field(default_factory=list)
    #: Downloads: from the extension, those the tab's pages started; in a run (host.agent.session),
    #: every download of the run's own tabs since it began (also lines of `text`).
    downloads: list[Download] = Field(default_factory=list)

    def find(self, ref: int) -> SnapshotElement | None:
        """The element with this ref, if the snapshot has it."""
        return next((e for e in self.elements if e.ref == ref), None)

    def covering(self, x: float, y: float) -> list[SnapshotElement]:
        """The in-view elements whose boxes cover a point of the screenshot (its pixels, as the
        coordinate actions give it), smallest box first: what a press there would land on."""
        scale = self.screenshot_scale or 1.0
        px, py = x / scale, y / scale
        hits = [e for e in self.elements if e.in_viewport and e.bbox[0] <= px <= e.bbox[0] + e.bbox[2] and e.bbox[1] <= py <= e.bbox[1] + e.bbox[3]]
        return sorted(hits, key=lambda e: e.bbox[2] * e.bbox[3])


def box_inside(box: list[float], outer: list[float]) -> bool:
    """Whether `box` lies within `outer` ([x, y, width, height], CSS pixels), allowing a pixel of
    rounding on each side; an outer box of no size holds nothing."""
    x, y, w, h = box
    ox, oy, ow, oh = outer
    return ow > 0 and oh > 0 and x >= ox - 1 and y >= oy - 1 and x + w <= ox + ow + 1 and y + h <= oy + oh + 1
