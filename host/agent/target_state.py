"""Whether the element an action acted on now shows the state the action sets: evidence from what
the page says of its own element (its ARIA states, a select's value), not from a plan's guessed
checks.

A step whose checks all held before it acted proves nothing by them. When the element it acted on
is one the step names, and that element went to the state the action sets (a check made it
checked, an uncheck unchecked, a select chose the option (the select's value, or the option's own
selected state in a listbox of ARIA options), a click turned it checked, selected,
expanded or pressed; a click on a link or a form's submit button took the tab from elsewhere to
the address the page gives it: the link's target, the form's action),
the page changed as the step intended. A click that turned a state off, or an element the step
does not name, proves nothing: which way a click was meant to go, and on what, would be a guess.
Nor does a link whose address is a bare `#` or a script: a page's script handles it, and where
the tab then is says nothing of the link.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from waymark.host.agent.element_changes import counterpart
from waymark.host.core.actions import ActionModel, Check, Click, Select, Uncheck
from waymark.host.core.snapshot import Snapshot, SnapshotElement, box_inside
from waymark.host.core.targets import normalise

#: The reason a step passed by its element's state, as runs and workflow replays record it.
PROVEN_BY_STATE = "the element it acted on changed as the action sets"

#: States a click turns on when it lands on a control that has them.
_ON = ("checked", "selected", "expanded", "pressed")


def _named(element: SnapshotElement, words: str, value: str = "") -> bool:
    said = normalise(words)
    return any(len(n) >= 2 and n in said for n in (normalise(element.name), normalise(value)))


def target_state(action: ActionModel, before: Snapshot, after: Snapshot, intent: str) -> str:
    """The change of the action's own target that the action sets, said as
    `checkbox "Remember me" checked false -> true`; "" when there is none, or the step's `intent`
    names neither the element nor (for a select) the option chosen."""
    if not isinstance(action, (Click, Check, Uncheck, Select)):
        return ""
    if isinstance(action, Click):
        followed = _followed(before, after, action.ref, intent)
        if followed:
            return followed
    pair = counterpart(before, after, action.ref)
    if pair is None:
        return ""
    old, new = pair
    label = f'{new.role} "{new.name[:60]}"'
    if isinstance(action, Select):
        if not _named(new, intent, action.value):
            return ""
        if (old.value or "") != (new.value or "") and normalise(action.value) in normalise(new.value or ""):
            return f'{label} value "{(old.value or "")[:40]}" -> "{(new.value or "")[:40]}"'
        return _option_chosen(before, after, new, action.value)
    if not _named(new, intent):
        return ""
    states = ("checked",) if isinstance(action, (Check, Uncheck)) else _ON
    want = not isinstance(action, Uncheck)
    for state in states:
        # Exactly on or off: a box gone partly checked ("mixed") is neither.
        if old.states.get(state, False) != want and new.states.get(state, False) == want:
            return f"{label} {state} {str(not want).lower()} -> {str(want).lower()}"
    return ""


def _option_chosen(before: Snapshot, after: Snapshot, holder: SnapshotElement, value: str) -> str:
    """The option named `value` within the box of the element a select acted on that turned
    selected: a listbox built of ARIA options holds no value of its own, so the option's own
    selected state says what was chosen, as it does when a click lands on that option."""
    for option in after.elements:
        if option.role != "option" or normalise(option.name) != normalise(value) or option.states.get("selected") is not True:
            continue
        was = before.find(option.ref)
        if box_inside(option.bbox, holder.bbox) and (was is None or was.states.get("selected") is not True):
            return f'option "{option.name[:60]}" selected false -> true'
    return ""


def _address(url: str) -> str:
    """A URL without an empty fragment: `page#` is `page`."""
    return url[:-1] if url.endswith("#") else url


def _document(url: str) -> str:
    """A URL without its query and fragment: where a form arrives, whatever its fields were."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def _followed(before: Snapshot, after: Snapshot, ref: int, intent: str) -> str:
    """A named link or submit button clicked on `before` whose own address (`href`: the link's
    target, the form's action) the tab is at on `after`, and was not at before: said as
    `link "Help" went to its address ".../#/help"` ("" otherwise). A form's fields make a GET
    form's query, so a form arrives at its action's document."""
    element = before.find(ref)
    if element is None or element.role not in ("link", "button") or not element.href or not _named(element, intent):
        return ""
    href = element.href
    if href.endswith("#") or urlsplit(href).scheme not in ("http", "https", "file"):
        return ""
    where = _address if element.role == "link" else _document
    if where(after.url) != where(href) or where(before.url) == where(href):
        return ""
    went = "went to its address" if element.role == "link" else "sent its form to its address"
    return f'{element.role} "{element.name[:60]}" {went} "{href[:120]}"'
