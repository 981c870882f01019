"""What this run typed into secret fields, kept only as digests.

A password's value never leaves the page (the snapshot says only that the field holds
something), so a check that a password field holds a given text could never be seen to pass,
and a model could fill the same field over and over. What the run itself filled in answers both:
the field holds a value, and the last text the run put there has the same digest. The same goes
for a check that the page shows the text (`text_present`): a secret field of the page that holds
the run's fill of that text shows it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from waymark.host.agent.redaction import is_password_field
from waymark.host.core.actions import Fill, Type
from waymark.host.core.snapshot import SnapshotElement


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _key(url: str, element: SnapshotElement) -> tuple[str, str, int]:
    return url, element.doc, element.ref


@dataclass(frozen=True)
class FilledSecrets:
    """The secret fills as they stood at one moment, read-only (what a guard is given)."""

    fills: Mapping[tuple[str, str, int], frozenset[str]] = field(default_factory=lambda: MappingProxyType({}))

    def holds(self, url: str, element: SnapshotElement, text: str) -> bool:
        """Whether the secret field still holds a value and this run's last fill of it was `text`."""
        return bool(element.states.get("has_value")) and _digest(text) in self.fills.get(_key(url, element), frozenset())

    def shown(self, url: str, elements: list[SnapshotElement], text: str) -> bool:
        """Whether a secret field among `elements` holds this run's last fill of `text`."""
        return any(self.holds(url, e, text) for e in elements)


class SecretFills:
    """Digests of the texts this run filled into secret fields, per page, document and ref."""

    def __init__(self) -> None:
        self._fills: dict[tuple[str, str, int], frozenset[str]] = {}

    def note(self, url: str, element: SnapshotElement | None, *texts: str, secret: bool = False) -> None:
        """Remember a fill of a secret field (`secret`: any field a placeholder's secret went into,
        which is masked from then on): the text as the model wrote it and as dispatched (a
        placeholder resolved), so a check may quote either. Other fields are not kept."""
        if element is not None and (secret or is_password_field(element)):
            self._fills[_key(url, element)] = frozenset(_digest(t) for t in texts)

    def typed(self, url: str, element: SnapshotElement | None, action: Fill | Type, dispatched: str, secret: bool = False) -> None:
        """Note a fill or a typing into a field: a fill's text is the field's whole value, and so
        is a typing into an empty field; typed after a value, the field's value is not known."""
        whole = isinstance(action, Fill) or (element is not None and not element.states.get("has_value"))
        self.note(url, element, *((action.text, dispatched) if whole else ()), secret=secret)

    def view(self) -> FilledSecrets:
        """The fills as they stand now, read-only: later fills do not change it."""
        return FilledSecrets(MappingProxyType(dict(self._fills)))

    def holds(self, url: str, element: SnapshotElement, text: str) -> bool:
        """Whether the secret field still holds a value and this run's last fill of it was `text`."""
        return FilledSecrets(self._fills).holds(url, element, text)

    def shown(self, url: str, elements: list[SnapshotElement], text: str) -> bool:
        """Whether a secret field among `elements` holds this run's last fill of `text`."""
        return FilledSecrets(self._fills).shown(url, elements, text)
