"""The gate every `act` request carries: what the extension may load and which tabs it may move
to for this request. The extension judges it on the browser's own parse of the URL, just before
it loads one (extension/sw/gate.js), and blocks the disallowed hosts in the run's tabs before a
request leaves (extension/sw/net_gate.js); the host only builds it (host.agent.confirm.policy_gate)."""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field

#: An allow list of this admits nothing: "invalid" is reserved (RFC 2606), no host has that name.
NOWHERE = "invalid"


class Gate(BaseModel):
    """Where one act request may take the browser, and which tabs it may switch to or close."""

    model_config = ConfigDict(extra="forbid")

    #: If non-empty, only these hosts (and their subdomains) may be loaded in the run's tabs.
    allow_domains: list[str] = Field(default_factory=list)
    #: These hosts (and their subdomains) are never loaded in the run's tabs.
    block_domains: list[str] = Field(default_factory=list)
    #: Absolute folders whose files `file:` URLs may open; empty: no local file at all.
    file_folders: list[str] = Field(default_factory=list)
    #: The run's own tabs (the one it started in and those it opened): the only ones it may
    #: switch to or close.
    tabs: list[int] = Field(default_factory=list)

    def within(self, floor: Gate) -> Gate:
        """This gate narrowed so that it admits nothing `floor` refuses (a caller's gate under
        the user's saved lists): blocks add up, allow lists meet (narrow_allow), folders only shrink.
        The tabs are this gate's: the floor knows no run."""
        folders = [f for f in self.file_folders if any(_inside(f, root) for root in floor.file_folders)]
        return Gate(allow_domains=narrow_allow(floor.allow_domains, self.allow_domains),
                    block_domains=sorted({*floor.block_domains, *self.block_domains}), file_folders=folders, tabs=list(self.tabs))


def narrow_allow(floor: list[str], caller: list[str]) -> list[str]:
    """The allow list that admits a host only when both lists do: their intersection, a caller can
    only narrow. An empty list admits any host, so it narrows nothing; `shop.example.com` under
    `example.com` stays `shop.example.com` whichever side names it; disjoint lists admit nothing
    (NOWHERE). The one narrowing of allow lists: the Gate's and the run policy's."""
    if not floor or not caller:
        return list(floor or caller)
    met = [d for d in caller if covered(d, floor)]
    met += [d for d in floor if covered(d, caller) and d not in met]
    return met or [NOWHERE]


def covered(domain: str, domains: list[str]) -> bool:
    """Whether `domain` is one of `domains` or a subdomain of one (case and leading/trailing dots aside)."""
    domain = domain.lower().strip(".")
    return any(domain == d.lower().strip(".") or domain.endswith("." + d.lower().strip(".")) for d in domains)


def _inside(folder: str, root: str) -> bool:
    folder, root = os.path.normpath(folder), os.path.normpath(root)
    return folder == root or folder.startswith(root.rstrip("/") + "/")
