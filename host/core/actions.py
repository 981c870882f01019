"""The one action grammar: every action the model may choose, as pydantic models and as the
JSON Schema (2020-12) generated from them.

The executor's decision is `{"thought": str?, "action": {"type": <name>, ...fields}}`, whether
it arrives as a native tool call or as JSON in text. The extension's `act` request takes the
same `action` object; refs are the numbers of the current snapshot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, Union, get_args
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator


@dataclass(frozen=True)
class Traits:
    """What the rest of Waymark knows of an action besides its fields; every set of actions
    below, the executor's tools, confirmation, dispatch, eval judging and the extension's
    constants (extension/shared/actions.js) are derived from these."""

    #: One valid example, shown to a model whose answer did not fit the grammar.
    example: dict[str, Any]
    #: Needs the ref of an element of the current snapshot.
    targets_element: bool = False
    #: Changes the page: never re-dispatched automatically after a stale ref.
    mutating: bool = False
    #: The extension waits for the page to settle after it.
    settles: bool = False
    #: What can make it need the user's confirmation: activating a destructive element,
    #: pressing Enter in a form whose buttons are destructive, or accepting a destructive dialog.
    confirm: Literal["activation", "enter", "dialog"] | None = None
    #: Carried out by the extension, or by the host itself (it never reaches the browser).
    runs_in: Literal["browser", "host"] = "browser"
    #: Means something only when the task has more than one tab; offered to the model only then
    #: (with one tab, closing it leaves nothing to work in).
    multi_tab: bool = False
    #: Takes a URL the host resolves against the page and judges by the domain lists.
    opens_url: bool = False
    #: How the action is written in the text-mode answer format, where its fields alone do not
    #: say it well (see `text_form`).
    text_form: str | None = None
    #: Takes files from the user's upload folder: offered to the model only when one is set.
    needs_upload_folder: bool = False
    #: Takes a point of the screenshot the model was shown (vision mode): offered to the model
    #: only when it works in coordinates, so the default executor's tool does not grow.
    coordinates: bool = False
    #: Answers the JavaScript dialog the page waits on: offered only while one is open, and then
    #: it is the only browser action (the page runs nothing else until it is answered).
    answers_dialog: bool = False
    #: Reads a file the run downloaded: offered to the model only once the run has a download.
    reads_downloads: bool = False


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    traits: ClassVar[Traits]
    #: The action's name; each action narrows it to its own Literal.
    type: str


#: Any one action of the grammar, as the code that carries one out takes it (dispatch on its
#: class and its `traits`, never on its type string).
ActionModel = _Action


class Click(_Action):
    """Click the element with this ref."""

    type: Literal["click"] = "click"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, confirm="activation", example={"type": "click", "ref": 12})
    ref: int = Field(ge=1, strict=True)


class DoubleClick(_Action):
    """Double-click the element with this ref."""

    type: Literal["double_click"] = "double_click"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, confirm="activation", example={"type": "double_click", "ref": 12})
    ref: int = Field(ge=1, strict=True)


class Hover(_Action):
    """Move the pointer over the element with this ref."""

    type: Literal["hover"] = "hover"
    traits: ClassVar[Traits] = Traits(targets_element=True, settles=True, example={"type": "hover", "ref": 12})
    ref: int = Field(ge=1, strict=True)


class Type(_Action):
    """Type text at the end of the field's current value. `{{secret:NAME}}` is filled in at dispatch."""

    type: Literal["type"] = "type"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "type", "ref": 7, "text": "hello"})
    ref: int = Field(ge=1, strict=True)
    text: str


class Fill(_Action):
    """Replace the field's value with text. `{{secret:NAME}}` is filled in at dispatch."""

    type: Literal["fill"] = "fill"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "fill", "ref": 7, "text": "hello"})
    ref: int = Field(ge=1, strict=True)
    text: str


class Press(_Action):
    """Press a key or combo (Enter, Escape, Control+A, Shift+Tab), on the ref if given, else the focused element."""

    type: Literal["press"] = "press"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, confirm="enter", example={"type": "press", "key": "Enter"})
    key: str = Field(min_length=1, max_length=64)
    ref: int | None = Field(default=None, ge=1, strict=True)


class Select(_Action):
    """Choose the option whose value or visible label is `value`: a select, combobox, listbox or dropdown (opened if needed)."""

    type: Literal["select"] = "select"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "select", "ref": 9, "value": "Large"})
    ref: int = Field(ge=1, strict=True)
    value: str


class Check(_Action):
    """Make a checkbox, radio or switch checked."""

    type: Literal["check"] = "check"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "check", "ref": 4})
    ref: int = Field(ge=1, strict=True)


class Uncheck(_Action):
    """Make a checkbox or switch unchecked."""

    type: Literal["uncheck"] = "uncheck"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "uncheck", "ref": 4})
    ref: int = Field(ge=1, strict=True)


# ---- files and text selection (issue 18) ----------------------------------------------------


class UploadFile(_Action):
    """Give a file input (or a control that opens a file chooser) files from the upload folder, by name."""

    type: Literal["upload_file"] = "upload_file"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, needs_upload_folder=True,
                                      example={"type": "upload_file", "ref": 6, "files": ["report.pdf"]})
    ref: int = Field(ge=1, strict=True)
    files: list[str] = Field(min_length=1, max_length=32)


class SelectText(_Action):
    """Select this text in the element with this ref, else in the page (to highlight it, or to copy it with press Control+C)."""

    type: Literal["select_text"] = "select_text"
    traits: ClassVar[Traits] = Traits(example={"type": "select_text", "text": "quick brown fox"})
    text: str = Field(min_length=1, max_length=10_000)
    ref: int | None = Field(default=None, ge=1, strict=True)


# ---- end of files and text selection ----------------------------------------------------------
# ---- pointer actions: drag, right click, and the pointer at screenshot coordinates (issue 18) ----


class Drag(_Action):
    """Drag the element with this ref onto `to_ref`, or by `dx`,`dy` CSS pixels (sliders, handles)."""

    type: Literal["drag"] = "drag"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "drag", "ref": 5, "to_ref": 9},
                                      text_form="drag{ref,to_ref | dx,dy}")
    ref: int = Field(ge=1, strict=True)
    to_ref: int | None = Field(default=None, ge=1, strict=True)
    dx: float | None = Field(default=None, ge=-10_000, le=10_000)
    dy: float | None = Field(default=None, ge=-10_000, le=10_000)

    @model_validator(mode="after")
    def _one_destination(self) -> Drag:
        by_offset = self.dx is not None or self.dy is not None
        if self.to_ref is not None and by_offset:
            raise ValueError("drag takes to_ref (drop onto that element) or dx/dy (move by that many CSS pixels), not both")
        if self.to_ref is None and not by_offset:
            raise ValueError('drag needs where to drop: to_ref (an element\'s ref) or dx/dy in CSS pixels, e.g. {"type": "drag", "ref": 5, "dx": 120, "dy": 0}')
        return self


class RightClick(_Action):
    """Right-click the element with this ref (opens its context menu)."""

    type: Literal["right_click"] = "right_click"
    traits: ClassVar[Traits] = Traits(targets_element=True, mutating=True, settles=True, example={"type": "right_click", "ref": 12})
    ref: int = Field(ge=1, strict=True)


#: A point of the screenshot the model was shown, in its pixels (not CSS pixels).
_Pixel = Annotated[float, Field(ge=0, le=100_000)]


class ClickAt(_Action):
    """Click at pixel x,y of the screenshot."""

    type: Literal["click_at"] = "click_at"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, confirm="activation", coordinates=True, example={"type": "click_at", "x": 640, "y": 360})
    x: _Pixel
    y: _Pixel


class DoubleClickAt(_Action):
    """Double-click at pixel x,y of the screenshot."""

    type: Literal["double_click_at"] = "double_click_at"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, confirm="activation", coordinates=True,
                                      example={"type": "double_click_at", "x": 640, "y": 360})
    x: _Pixel
    y: _Pixel


class MoveTo(_Action):
    """Move the pointer to pixel x,y of the screenshot (hover)."""

    type: Literal["move_to"] = "move_to"
    traits: ClassVar[Traits] = Traits(settles=True, coordinates=True, example={"type": "move_to", "x": 640, "y": 360})
    x: _Pixel
    y: _Pixel


class DragAt(_Action):
    """Press at pixel x,y of the screenshot, drag to to_x,to_y and release."""

    type: Literal["drag_at"] = "drag_at"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, coordinates=True, example={"type": "drag_at", "x": 100, "y": 200, "to_x": 300, "to_y": 200})
    x: _Pixel
    y: _Pixel
    to_x: _Pixel
    to_y: _Pixel


class ScrollAt(_Action):
    """Turn the mouse wheel at pixel x,y of the screenshot: what scrolls there moves by `amount` CSS pixels (default: most of its height)."""

    type: Literal["scroll_at"] = "scroll_at"
    traits: ClassVar[Traits] = Traits(settles=True, coordinates=True, example={"type": "scroll_at", "x": 640, "y": 360, "direction": "down"},
                                      text_form="scroll_at{x,y,direction,amount?}")
    x: _Pixel
    y: _Pixel
    direction: Literal["up", "down", "left", "right"] = "down"
    amount: int | None = Field(default=None, ge=1, le=100_000)


# ---- end of pointer actions -----------------------------------------------------------------------


class Scroll(_Action):
    """Scroll the page, or the scrollable element with this ref, by `amount` CSS pixels (default: most of a screen)."""

    type: Literal["scroll"] = "scroll"
    traits: ClassVar[Traits] = Traits(settles=True, example={"type": "scroll", "direction": "down"}, text_form="scroll{direction,ref?,amount?}")
    direction: Literal["up", "down", "left", "right"] = "down"
    ref: int | None = Field(default=None, ge=1, strict=True)
    amount: int | None = Field(default=None, ge=1, le=100_000)


class Navigate(_Action):
    """Load a URL in the current tab; a relative one resolves against the current page's URL."""

    type: Literal["navigate"] = "navigate"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, opens_url=True, example={"type": "navigate", "url": "https://example.com/contact"})
    url: str = Field(min_length=1, max_length=8192)


class Back(_Action):
    """Go back in the current tab's history."""

    type: Literal["back"] = "back"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, example={"type": "back"})


class Forward(_Action):
    """Go forward in the current tab's history."""

    type: Literal["forward"] = "forward"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, example={"type": "forward"})


class Reload(_Action):
    """Reload the current tab."""

    type: Literal["reload"] = "reload"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, example={"type": "reload"})


class NewTab(_Action):
    """Open a new tab (on `url` if given) and continue in it."""

    type: Literal["new_tab"] = "new_tab"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, opens_url=True, example={"type": "new_tab", "url": "https://example.com/"})
    url: str | None = Field(default=None, max_length=8192)


class SwitchTab(_Action):
    """Continue in the tab with this id."""

    type: Literal["switch_tab"] = "switch_tab"
    traits: ClassVar[Traits] = Traits(mutating=True, multi_tab=True, example={"type": "switch_tab", "tab_id": 2})
    tab_id: int


class CloseTab(_Action):
    """Close the tab with this id (default: the current one). The agent never closes the last
    tab of its task: that would leave it nowhere to work."""

    type: Literal["close_tab"] = "close_tab"
    traits: ClassVar[Traits] = Traits(mutating=True, multi_tab=True, example={"type": "close_tab", "tab_id": 2})
    tab_id: int | None = None


class Wait(_Action):
    """Wait `ms` milliseconds, or until `until` (a verifier predicate) holds, at most `timeout_ms`."""

    type: Literal["wait"] = "wait"
    traits: ClassVar[Traits] = Traits(example={"type": "wait", "ms": 1000}, text_form="wait{ms? | until,timeout_ms}")
    ms: int | None = Field(default=None, ge=0, le=60_000)
    until: dict[str, Any] | None = None
    timeout_ms: int = Field(default=5000, ge=0, le=60_000)


class Extract(_Action):
    """Read the text of the element with this ref, or the page's main content (`whole`: all of the page, its toasts and banners too), within `max_chars`."""

    type: Literal["extract"] = "extract"
    traits: ClassVar[Traits] = Traits(example={"type": "extract", "ref": 15})
    ref: int | None = Field(default=None, ge=1, strict=True)
    max_chars: int = Field(default=4000, ge=1, le=100_000)
    whole: bool = False


class ReadDownload(_Action):
    """Read the text of a file this run downloaded (text, CSV or PDF), by the number its snapshot line gives, within `max_chars`."""

    type: Literal["read_download"] = "read_download"
    traits: ClassVar[Traits] = Traits(runs_in="host", reads_downloads=True, example={"type": "read_download", "download": 1})
    download: int = Field(ge=1, strict=True)
    max_chars: int = Field(default=4000, ge=1, le=100_000)


class AskUser(_Action):
    """Ask the user a question and wait for the answer."""

    type: Literal["ask_user"] = "ask_user"
    traits: ClassVar[Traits] = Traits(runs_in="host", example={"type": "ask_user", "question": "Which size do you want?"})
    question: str = Field(min_length=1)


class AnswerDialog(_Action):
    """Answer the JavaScript dialog (confirm, prompt) the page waits on: accept is OK, false is Cancel; `text` is what a prompt is answered with (default: its own default)."""

    type: Literal["answer_dialog"] = "answer_dialog"
    traits: ClassVar[Traits] = Traits(mutating=True, settles=True, confirm="dialog", answers_dialog=True,
                                    example={"type": "answer_dialog", "accept": False})
    accept: bool = Field(strict=True)
    text: str | None = Field(default=None, max_length=2000)


class Done(_Action):
    """The task is finished (or cannot be finished: success false); `result` is the answer for the user, `data` the answer as JSON when the task asks for one."""

    type: Literal["done"] = "done"
    traits: ClassVar[Traits] = Traits(runs_in="host", example={"type": "done", "result": "The order number is 1042", "success": True},
                                    text_form="done{result,success,data?}")
    result: str = ""
    success: bool = True
    #: The answer for a program: any JSON value, checked against the caller's output schema (host.agent.answers).
    data: Any = None


Action = Annotated[
    Union[
        Click, DoubleClick, Hover, Type, Fill, Press, Select, Check, Uncheck,
        UploadFile, SelectText,
        Scroll,
        Navigate, Back, Forward, Reload, NewTab, SwitchTab, CloseTab, Wait, Extract, ReadDownload, AskUser, Done, AnswerDialog,
        Drag, RightClick, ClickAt, DoubleClickAt, MoveTo, DragAt, ScrollAt,
    ],
    Field(discriminator="type"),
]

#: Action type -> its model, in the order of the union: the registry every other list derives from.
ACTIONS: dict[str, type[_Action]] = {
    cls.model_fields["type"].default: cls for cls in get_args(get_args(Action)[0])
}
ACTION_TYPES: tuple[str, ...] = tuple(ACTIONS)
#: The executor's one native tool; its `action` argument is the action type, the rest its fields.
ACT_TOOL = "act"


def traits(kind: str) -> Traits:
    """The traits of one action type (KeyError for a type the grammar does not have)."""
    return ACTIONS[kind].traits


def text_form(kind: str) -> str:
    """How an action is written in the text-mode answer format: its name and its fields, an
    optional one marked `?` (`press{key,ref?}`), unless its traits say it otherwise."""
    cls = ACTIONS[kind]
    if cls.traits.text_form:
        return cls.traits.text_form
    fields = [(name, info.is_required()) for name, info in cls.model_fields.items() if name != "type"]
    if not fields:
        return kind
    return kind + "{" + ",".join(name + ("" if required else "?") for name, required in fields) + "}"


def _where(**wanted: Any) -> frozenset[str]:
    return frozenset(k for k, cls in ACTIONS.items() if all(getattr(cls.traits, f) == v for f, v in wanted.items()))


#: One valid example of each action, shown to a model whose answer did not fit the grammar.
EXAMPLES: dict[str, dict[str, Any]] = {kind: cls.traits.example for kind, cls in ACTIONS.items()}

#: What to do instead of an action the grammar does not have, for the names models invent most.
INSTEAD: dict[str, str] = {
    "search": "fill the search box with the query (fill), then press Enter (press)",
    "close_popup": "click the popup's close button (click its ref), or press Escape (press)",
    "dismiss": "click the close or dismiss button (click its ref), or press Escape (press)",
    "submit": "click the submit button (click its ref), or press Enter in the field (press)",
    "login": "fill the username and password fields one at a time (fill), then click the sign-in button",
    "scroll_to": "scroll (scroll with a ref scrolls that element), or act on the ref directly: actions scroll it into view",
    "read": "extract (extract with a ref reads that element)", "get_text": "extract (extract with a ref reads that element)",
    "screenshot": "nothing: the snapshot you are given is the page", "think": "put your reasoning in \"thought\" and choose an action",
}


def action_help(kind: str) -> str:
    """One line a model can act on: the fields an action takes and a valid example of it."""
    schema = action_adapter.json_schema()
    for sub in schema.get("$defs", {}).values():
        props = sub.get("properties", {})
        if props.get("type", {}).get("const", props.get("type", {}).get("default")) != kind:
            continue
        required = [f for f in sub.get("required", []) if f != "type"]
        optional = [f for f in props if f not in required and f != "type"]
        req, opt = ", ".join(required), ", ".join(optional)
        fields = f"{req} (optional: {opt})" if req and opt else req or (f"optional {opt}" if opt else "no fields")
        return f'"{kind}" takes {fields}; for example {{"action": {json.dumps(EXAMPLES[kind], ensure_ascii=False)}}}'
    return ""


MULTI_TAB_ACTIONS: frozenset[str] = _where(multi_tab=True)
UPLOAD_ACTIONS: frozenset[str] = _where(needs_upload_folder=True)


#: The pointer at screenshot coordinates: vision mode only.
COORDINATE_ACTIONS: frozenset[str] = _where(coordinates=True)


#: Reading what the run downloaded: only once it has a download.
DOWNLOAD_ACTIONS: frozenset[str] = _where(reads_downloads=True)


def offered_actions(*, multi_tab: bool, upload_folder: bool = False, coordinates: bool = False, downloads: bool = False) -> tuple[str, ...]:
    """The actions offered to the model in one turn: tab actions only when the task has tabs to
    switch, upload actions only when the user set an upload folder, the coordinate actions only
    to a model that works in screenshot coordinates, reading a download only once there is one."""
    return tuple(a for a in ACTION_TYPES if (multi_tab or a not in MULTI_TAB_ACTIONS) and (upload_folder or a not in UPLOAD_ACTIONS)
                 and (coordinates or a not in COORDINATE_ACTIONS) and (downloads or a not in DOWNLOAD_ACTIONS))


#: The actions of a one-tab task in the default (ref) mode without an upload folder: the common
#: case, and the eval bench's.
SINGLE_TAB_ACTIONS: tuple[str, ...] = offered_actions(multi_tab=False)
MUTATING: frozenset[str] = _where(mutating=True)
BROWSER_ACTIONS: frozenset[str] = _where(runs_in="browser")
ELEMENT_ACTIONS: frozenset[str] = _where(targets_element=True)
SETTLING_ACTIONS: frozenset[str] = _where(settles=True)
URL_ACTIONS: frozenset[str] = _where(opens_url=True)
DIALOG_ACTIONS: frozenset[str] = _where(answers_dialog=True)


class Decision(BaseModel):
    """The executor's answer for one turn."""

    model_config = ConfigDict(extra="forbid")

    thought: str | None = None
    action: Action


action_adapter: TypeAdapter[Any] = TypeAdapter(Action)


def parse_action(value: Any) -> ActionModel:
    """Validate one action object (raises pydantic.ValidationError)."""
    action: ActionModel = action_adapter.validate_python(value)
    return action


def action_json(action: ActionModel) -> dict[str, Any]:
    """An action as it travels to the extension and into traces: its set fields, defaults filled in."""
    return action.model_dump(mode="json", exclude_none=True)


def action_json_schema() -> dict[str, Any]:
    """JSON Schema 2020-12 of one action (a oneOf discriminated on `type`)."""
    schema = action_adapter.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def decision_json_schema() -> dict[str, Any]:
    """JSON Schema 2020-12 of the executor's decision."""
    schema = Decision.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: A bare first segment that names a host: a dotted name with a letter TLD, localhost, an IPv4
#: address, each with an optional port.
_HOST = re.compile(r"^(localhost|\d{1,3}(\.\d{1,3}){3}|([a-z0-9-]+\.)+[a-z]{2,})(:\d+)?$", re.IGNORECASE)
#: Endings that make a dotted bare name a file next to the current page, not a host.
_FILE_ENDINGS = (".html", ".htm", ".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".xml", ".json", ".txt", ".pdf")


def absolute_url(url: str, base: str) -> str:
    """The URL a navigate or new_tab action means, resolved as a link on the page at `base` would
    be: `/newsletter`, `./a`, `?q=1`, `#top` and `contact.html` are relative to the current page;
    `//host/x` keeps the page's scheme; a bare host name (`example.com/path`) gets https. A URL
    with a scheme is returned unchanged (the extension refuses the schemes it does not open)."""
    url = url.strip()
    if _SCHEME.match(url) and not _HOST.match(url.split("/", 1)[0]):
        return url
    first = url.split("/", 1)[0]
    if url.startswith(("/", ".", "?", "#")) or not _HOST.match(first) or first.lower().endswith(_FILE_ENDINGS):
        if not urlsplit(base).scheme:
            return url
        return urljoin(base, url)
    return "https://" + url
