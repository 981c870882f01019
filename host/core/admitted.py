"""The token of an admitted action: host.browser.act sends nothing else. Only the admission
(host.agent.admission) makes one, after it decided the action (its URL, its tab, the secrets it
types, a destructive action's confirmation, the egress question); tests/unit/test_admission.py
checks that no other module of the tree constructs it, so no driver can dispatch around it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from waymark.host.core.actions import ActionModel
from waymark.host.core.gate import Gate


@dataclass(frozen=True)
class Admitted:
    """One action as the admission let it through, ready to send."""

    #: The action as JSON (host.core.actions), its URL resolved against the page and its
    #: placeholders filled in: what the extension carries out.
    action: dict[str, Any]
    #: Where the action may take the browser and which tabs it may move to, for the extension's
    #: last-moment check (extension/sw/gate.js).
    gate: Gate
    #: The action as the driver chose it, its URL resolved but its placeholders never filled in:
    #: what lines, records and guards read.
    chosen: ActionModel
    #: The origins the frame it types a secret into may have (None: it types no secret).
    secret_origins: list[str] | None = None
