"""Human-in-the-loop policy: which actions need the user's confirmation, and where the agent may go.

Destructive actions (buy, pay, place an order, delete, send, transfer, ...) are recognised
from the target element's role and accessible name and from its form's context (pressing
Enter in a field submits the form's destructive button). Domains are matched by host name,
subdomains included.
"""

from __future__ import annotations

import re
from typing import Iterable, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.core.actions import ActionModel
from waymark.host.core.gate import Gate, covered, narrow_allow
from waymark.host.core.snapshot import Snapshot, SnapshotElement

#: Words and phrases that make a button, link or menu item destructive.
DESTRUCTIVE_PATTERN = re.compile(
    r"\b("
    r"buy( now)?|purchase|pay( now)?|place( your)? order|complete (the )?(order|purchase)|submit (the )?order|"
    r"confirm (the )?(payment|order|purchase|transfer)|checkout now|subscribe|"
    r"delete|remove|erase|destroy|discard|wipe|empty( the| your| my)? (cart|basket|bag|trash|bin|wish ?list|list|folder|inbox|mailbox)|"
    r"send( money| payment)?|transfer|withdraw|donate|"
    r"cancel (my |your )?(account|subscription|order)|close (my |your )?account|unsubscribe|"
    r"publish|post( now)?"
    r")\b",
    re.IGNORECASE,
)

#: Roles a person activates to commit something.
ACTIVATING_ROLES = frozenset({"button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "tab", "switch"})


class Policy(BaseModel):
    """What the user allows the agent to do without asking."""

    model_config = ConfigDict(extra="forbid")

    #: ask: wait for the user's answer; allow: never ask; block: refuse every destructive action.
    destructive: Literal["ask", "allow", "block"] = "ask"
    #: When nobody answers a confirmation (no panel, no terminal): decline it.
    confirm_timeout_s: float = Field(default=300.0, gt=0)
    #: If non-empty, the agent may only visit these domains (and their subdomains).
    allow_domains: list[str] = Field(default_factory=list)
    #: The agent may never visit these domains (and their subdomains).
    block_domains: list[str] = Field(default_factory=list)
    #: Deterministic repair may close an overlay (drawer, modal) that covers the target.
    dismiss_occluders: bool = True
    #: ask: the first visit to a site the run was not sent to, with data in its address, waits for the
    #: user's yes (host.agent.egress); allow: never asks.
    egress: Literal["ask", "allow"] = "ask"


#: The confirmation policies from the most to the least permissive.
_STRICTNESS = ("allow", "ask", "block")


def narrowed(saved: Policy, caller: Policy) -> Policy:
    """The policy a run gets: the user's saved one is the floor, the caller can only narrow it.

    Block lists are unioned and allow lists intersected (host.core.gate.narrow_allow, as the gate's
    are); destructive actions and overlay dismissal take the stricter of the two.
    The caller's confirmation timeout stands: a nobody-answered question is declined either way."""
    allow = narrow_allow(saved.allow_domains, caller.allow_domains)
    block = list(dict.fromkeys([*saved.block_domains, *caller.block_domains]))
    destructive = max(saved.destructive, caller.destructive, key=_STRICTNESS.index)
    egress = "ask" if "ask" in (saved.egress, caller.egress) else "allow"
    return caller.model_copy(update={"allow_domains": allow, "block_domains": block, "destructive": destructive,
                                     "dismiss_occluders": saved.dismiss_occluders and caller.dismiss_occluders, "egress": egress})


def destructive_reason(action: ActionModel, snapshot: Snapshot | None) -> str | None:
    """Why `action` on `snapshot` is destructive, or None when it is not."""
    rule = action.traits.confirm
    ref = getattr(action, "ref", None)
    element = snapshot.find(ref) if snapshot is not None and ref is not None else None
    if rule == "activation" and snapshot is not None and action.traits.coordinates:
        # A press at a point lands on whatever is drawn there: asked as a press on it would be.
        point = (getattr(action, "x", None), getattr(action, "y", None))
        covered = snapshot.covering(*point) if all(isinstance(v, (int, float)) for v in point) else []
        return next((reason for reason in map(_element_reason, covered) if reason), None)
    if rule == "activation" and element is not None:
        return _element_reason(element)
    if rule == "enter" and str(getattr(action, "key", "")).lower() in ("enter", "numpadenter") and snapshot is not None:
        return _form_reason(element, snapshot)
    if rule == "dialog" and getattr(action, "accept", False) and snapshot is not None and snapshot.dialog is not None:
        # OK on "Delete the category…?" is the deletion, as a click on a Delete button is; Cancel never is.
        match = DESTRUCTIVE_PATTERN.search(snapshot.dialog.message)
        return f'OK on the {snapshot.dialog.type} "{snapshot.dialog.message[:120]}" looks destructive ({match.group(0).lower()})' if match else None
    return None


def _element_reason(element: SnapshotElement) -> str | None:
    if element.role.lower() not in ACTIVATING_ROLES and not (element.model_extra or {}).get("submit"):
        return None
    match = DESTRUCTIVE_PATTERN.search(element.name or "")
    if match:
        return f'{element.role} "{element.name}" looks destructive ({match.group(0).lower()})'
    return None


def _form_reason(field: SnapshotElement | None, snapshot: Snapshot) -> str | None:
    """Enter in a field submits its form: destructive when the form's buttons are."""
    form = (field.model_extra or {}).get("form") if field is not None else None
    for element in snapshot.elements:
        if element.role.lower() != "button":
            continue
        if form is not None and (element.model_extra or {}).get("form") not in (None, form):
            continue
        reason = _element_reason(element)
        if reason:
            return f"Enter submits a form whose {reason}"
    return None


def host_of(url: str) -> str:
    """The lower-case host name of a URL ('' when it has none)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


#: A host Python reads as the browser (WHATWG URL) does: ASCII letters, digits, `-` and `_` in labels.
_PLAIN_HOST = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$")
#: A last label the browser reads as a number, which makes the whole host an IPv4 address
#: (`127.1`, `0x7f.1`, `2130706433`): WHATWG's "ends in a number".
_NUMBER_LABEL = re.compile(r"^(\d+|0x[0-9a-f]*)$")
#: The one IPv4 form both read alike: four decimal parts without leading zeros.
_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$")
#: Characters before the host that the browser and urlsplit split differently.
_SPLIT_APART = re.compile(r"[\\\t\n\r]")


def ambiguous_url(url: str) -> str | None:
    """Why Python's reading of `url`'s host could differ from the browser's, or None when both
    read the same host. The extension judges the URL on the browser's parse (extension/sw/gate.js);
    the host refuses what it cannot read the same way rather than let through another host."""
    if _SPLIT_APART.search(url):
        return "the URL holds a backslash or a control character, which browsers read differently"
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "the URL cannot be parsed"
    if parts.scheme.lower() not in ("http", "https") or host is None:
        return None
    if "@" in parts.netloc:
        return "the URL names a user before its host, which hides the host it goes to"
    if host.startswith("[") or ":" in host:
        return None  # an IPv6 literal: bracketed, read alike
    if not host.isascii():
        return f"the host {host[:60]!r} has non-ASCII characters (look-alike letters or dots)"
    if host.endswith("."):
        return f"the host {host[:60]!r} ends with a dot"
    if not _PLAIN_HOST.match(host):
        return f"the host {host[:60]!r} has characters browsers decode or drop"
    if _NUMBER_LABEL.match(host.rsplit(".", 1)[-1]) and not _DOTTED_QUAD.match(host):
        return f"the host {host[:60]!r} is a short or numeric IPv4 form, which browsers read as another address"
    return None


def domain_refusal(url: str, policy: Policy) -> str | None:
    """Why the policy forbids visiting `url`, or None when it may be visited. A URL whose host
    Python might read otherwise than the browser is refused while any domain list is set."""
    if policy.allow_domains or policy.block_domains:
        unclear = ambiguous_url(url)
        if unclear:
            return f"{unclear}; write the URL plainly"
    host = host_of(url)
    if not host:
        return None  # about:blank and the like carry no domain to judge; the extension's gate judges schemes
    if covered(host, policy.block_domains):
        return f"{host} is on the block list"
    if policy.allow_domains and not covered(host, policy.allow_domains):
        return f"{host} is not on the allow list"
    return None


def policy_gate(policy: Policy, tabs: Iterable[int], file_folders: Iterable[str] = ()) -> Gate:
    """The gate an act request carries (host.core.gate): the policy's domain lists, the folders
    local files may come from (the user's settings), and the run's own tabs. The admission
    (host.agent.admission) builds every driver's gate here."""
    return Gate(allow_domains=list(policy.allow_domains), block_domains=list(policy.block_domains),
                file_folders=list(file_folders), tabs=sorted(set(tabs)))
