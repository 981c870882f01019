"""The one action grammar: every action the model may choose, as pydantic models and as the
JSON Schema (2020-12) generated from them.

The executor's decision is `{"thought": str?, "action": {"type": <name>, ...fields}}`, whether
it arrives as a native tool call or as JSON in text. The extension's `act` request takes the
same `action` object; refs are the numbers of the current snapshot.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Click(_Action):
    """Click the element with this ref."""

    type: Literal["click"] = "click"
    ref: int = Field(ge=1)


class DoubleClick(_Action):
    """Double-click the element with this ref."""

    type: Literal["double_click"] = "double_click"
    ref: int = Field(ge=1)


class Hover(_Action):
    """Move the pointer over the element with this ref."""

    type: Literal["hover"] = "hover"
    ref: int = Field(ge=1)


class Type(_Action):
    """Type text at the end of the field's current value. `{{secret:NAME}}` is filled in at dispatch."""

    type: Literal["type"] = "type"
    ref: int = Field(ge=1)
    text: str


class Fill(_Action):
    """Replace the field's value with text. `{{secret:NAME}}` is filled in at dispatch."""

    type: Literal["fill"] = "fill"
    ref: int = Field(ge=1)
    text: str


class Press(_Action):
    """Press a key or combo (Enter, Escape, Control+A, Shift+Tab), on the ref if given, else the focused element."""

    type: Literal["press"] = "press"
    key: str = Field(min_length=1, max_length=64)
    ref: int | None = Field(default=None, ge=1)


class Select(_Action):
    """Choose the option of a select whose value or visible label is `value`."""

    type: Literal["select"] = "select"
    ref: int = Field(ge=1)
    value: str


class Check(_Action):
    """Make a checkbox, radio or switch checked."""

    type: Literal["check"] = "check"
    ref: int = Field(ge=1)


class Uncheck(_Action):
    """Make a checkbox or switch unchecked."""

    type: Literal["uncheck"] = "uncheck"
    ref: int = Field(ge=1)


class Scroll(_Action):
    """Scroll the page, or the scrollable element with this ref, by `amount` CSS pixels (default: most of a screen)."""

    type: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"] = "down"
    ref: int | None = Field(default=None, ge=1)
    amount: int | None = Field(default=None, ge=1, le=100_000)


class Navigate(_Action):
    """Load a URL in the current tab; a relative one resolves against the current page's URL."""

    type: Literal["navigate"] = "navigate"
    url: str = Field(min_length=1, max_length=8192)


class Back(_Action):
    """Go back in the current tab's history."""

    type: Literal["back"] = "back"


class Forward(_Action):
    """Go forward in the current tab's history."""

    type: Literal["forward"] = "forward"


class Reload(_Action):
    """Reload the current tab."""

    type: Literal["reload"] = "reload"


class NewTab(_Action):
    """Open a new tab (on `url` if given) and continue in it."""

    type: Literal["new_tab"] = "new_tab"
    url: str | None = Field(default=None, max_length=8192)


class SwitchTab(_Action):
    """Continue in the tab with this id."""

    type: Literal["switch_tab"] = "switch_tab"
    tab_id: int


class CloseTab(_Action):
    """Close the tab with this id (default: the current one). The agent never closes the last
    tab of its task: that would leave it nowhere to work."""

    type: Literal["close_tab"] = "close_tab"
    tab_id: int | None = None


class Wait(_Action):
    """Wait `ms` milliseconds, or until `until` (a verifier predicate) holds, at most `timeout_ms`."""

    type: Literal["wait"] = "wait"
    ms: int | None = Field(default=None, ge=0, le=60_000)
    until: dict[str, Any] | None = None
    timeout_ms: int = Field(default=5000, ge=0, le=60_000)


class Extract(_Action):
    """Read the text of the element with this ref, or the page's main content, within `max_chars`."""

    type: Literal["extract"] = "extract"
    ref: int | None = Field(default=None, ge=1)
    max_chars: int = Field(default=4000, ge=1, le=100_000)


class AskUser(_Action):
    """Ask the user a question and wait for the answer."""

    type: Literal["ask_user"] = "ask_user"
    question: str = Field(min_length=1)


class Done(_Action):
    """The task is finished (or cannot be finished: success false); `result` is the answer for the user."""

    type: Literal["done"] = "done"
    result: str = ""
    success: bool = True


Action = Annotated[
    Union[
        Click, DoubleClick, Hover, Type, Fill, Press, Select, Check, Uncheck, Scroll,
        Navigate, Back, Forward, Reload, NewTab, SwitchTab, CloseTab, Wait, Extract, AskUser, Done,
    ],
    Field(discriminator="type"),
]

ACTION_TYPES: tuple[str, ...] = (
    "click", "double_click", "hover", "type", "fill", "press", "select", "check", "uncheck", "scroll",
    "navigate", "back", "forward", "reload", "new_tab", "switch_tab", "close_tab", "wait", "extract",
    "ask_user", "done",
)

#: Actions that change the page; never re-dispatched automatically after a stale ref.
MUTATING: frozenset[str] = frozenset(ACTION_TYPES) - {"hover", "wait", "extract", "ask_user", "done", "scroll"}

#: Actions carried out by the extension (the rest are handled by the host: ask_user, done, wait-until).
BROWSER_ACTIONS: frozenset[str] = frozenset(ACTION_TYPES) - {"ask_user", "done"}


class Decision(BaseModel):
    """The executor's answer for one turn."""

    model_config = ConfigDict(extra="forbid")

    thought: str | None = None
    action: Action


action_adapter: TypeAdapter[Any] = TypeAdapter(Action)


def parse_action(value: Any) -> BaseModel:
    """Validate one action object (raises pydantic.ValidationError)."""
    return action_adapter.validate_python(value)


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
