"""What an action changed in the elements of its page, said in the run's history.

A history that says only what was clicked cannot tell a model that a quantity went from 1 to 2
to 3. Each action's history line says which listed elements changed value or state. A page that went elsewhere
is not compared: its snapshot shows it whole.
"""

from __future__ import annotations

from waymark.host.core.snapshot import Snapshot, SnapshotElement

#: States whose change a person would notice on a control (a sort order and aria-current are
#: words, checked may be "mixed": each is compared as the snapshot gives it).
_STATES = ("checked", "selected", "expanded", "pressed", "disabled", "current", "sort")
#: Most changes named in one line; more are counted.
MOST = 3


def element_changes(before: Snapshot, after: Snapshot) -> list[str]:
    """The elements both snapshots list (same document, ref, role and name) whose value or a
    state changed, as `[ref] role "name" value "1" -> "2"`, in the order `after` lists them.
    Both snapshots must be redacted: a value is quoted as the snapshot gives it."""
    if before.url != after.url:
        return []
    earlier = {(e.doc, e.ref): e for e in before.elements}
    found = []
    for element in after.elements:
        old = earlier.get((element.doc, element.ref))
        if old is None or not _same(old, element):
            continue
        said = _differences(old, element)
        if said:
            found.append(f'[{element.ref}] {element.role} "{element.name[:60]}" ' + ", ".join(said))
    return found


def counterpart(before: Snapshot, after: Snapshot, ref: int) -> tuple[SnapshotElement, SnapshotElement] | None:
    """Element `ref` of `before` and the same element in `after`, when `after` still lists it on
    the same page (same document, ref, role and name): None otherwise."""
    if before.url != after.url:
        return None
    old = next((e for e in before.elements if e.ref == ref), None)
    if old is None:
        return None
    new = next((e for e in after.elements if (e.doc, e.ref) == (old.doc, old.ref) and _same(old, e)), None)
    return (old, new) if new is not None else None


def _same(old: SnapshotElement, new: SnapshotElement) -> bool:
    # A ref reused for another control (a re-rendered list) is a different element.
    return (old.role, old.name) == (new.role, new.name)


def changes_line(before: Snapshot, after: Snapshot) -> str:
    """The changes as a suffix of a history line (` -> changed: ...`), empty when none."""
    found = element_changes(before, after)
    if not found:
        return ""
    more = f" (and {len(found) - MOST} more)" if len(found) > MOST else ""
    return " -> changed: " + "; ".join(found[:MOST]) + more


def _differences(old: SnapshotElement, new: SnapshotElement) -> list[str]:
    said = []
    if (old.value or "") != (new.value or ""):
        said.append(f'value "{(old.value or "")[:40]}" -> "{(new.value or "")[:40]}"')
    for state in _STATES:
        was, now = _state_word(old.states.get(state)), _state_word(new.states.get(state))
        if was != now:
            said.append(f"{state} {was} -> {now}")
    return said


def _state_word(value: object) -> str:
    """A state as a person reads it: absent is false, a word (ascending, mixed, page) stays itself."""
    if value is None or value is False:
        return "false"
    return "true" if value is True else str(value)
