"""Whether a check holds only because of what the run typed.

Text found only inside a field the run typed into, or a field's value equal to text the run
typed, proves that the run typed it, not that the task's outcome happened."""

from __future__ import annotations

from waymark.host.agent.verifier import CheckResult
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import normalise

#: Roles whose value a person types.
_FIELDS = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


def outside_fields(snapshot: Snapshot, page_text: str) -> str:
    """The page's text outside its fields: the title, the readable text (which holds no field's
    value) and the names of elements that are not fields."""
    return normalise(" ".join([snapshot.title, page_text, *(e.name for e in snapshot.elements if e.role not in _FIELDS)]))


def typed_only(result: CheckResult, typed: list[str], snapshot: Snapshot, page_text: str) -> bool:
    """Whether a check that holds does so only because of what the run typed."""
    (name, arg), = result.predicate.items()
    entered = [normalise(t) for t in typed if t.strip()]
    if name == "text_present" and isinstance(arg, str):
        wanted = normalise(arg)
        return any(wanted in t for t in entered) and wanted not in outside_fields(snapshot, page_text)
    if name == "value_equals" and isinstance(arg, dict):
        return normalise(str(arg.get("value", ""))) in entered
    return False
