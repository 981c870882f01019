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
        the user's saved lists): blocks add up, an allow list only shrinks, folders only shrink.
        The tabs are this gate's: the floor knows no run."""
        if not floor.allow_domains:
            allow = list(self.allow_domains)
        elif not self.allow_domains:
            allow = list(floor.allow_domains)
        else:
            # An entry under one of the floor's domains stays; any other would widen the floor.
            allow = [d for d in self.allow_domains if _covered(d, floor.allow_domains)] or [NOWHERE]
        folders = [f for f in self.file_folders if any(_inside(f, root) for root in floor.file_folders)]
        return Gate(allow_domains=allow, block_domains=sorted({*floor.block_domains, *self.block_domains}),
                    file_folders=folders, tabs=list(self.tabs))


def _covered(domain: str, domains: list[str]) -> bool:
    domain = domain.lower().strip(".")
    return any(domain == d.lower().strip(".") or domain.endswith("." + d.lower().strip(".")) for d in domains)


def _inside(folder: str, root: str) -> bool:
    folder, root = os.path.normpath(folder), os.path.normpath(root)
    return folder == root or folder.startswith(root.rstrip("/") + "/")
