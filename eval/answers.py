"""Judging an extraction task: the run's answer (`data`) must equal the expected data exactly, and
every required value of it must have been found on a page the run saw. An answer that is right
but was never read off a page (a guess, or a value the model remembered) is not a pass."""

from __future__ import annotations

import json
from typing import Any


def answer_counts(summary: dict[str, Any]) -> dict[str, int]:
    """The row's grounding figures: values found on a page, not found, and computed."""
    grounding = summary.get("grounding") or {}
    return {k: int(grounding.get(k) or 0) for k in ("grounded", "ungrounded", "computed")}


def judge_answer(expected: Any, summary: dict[str, Any]) -> tuple[bool, str, dict[str, Any]]:
    """(passed, reason, row details) of a run's answer against the expected data."""
    data = summary.get("data")
    values = (summary.get("grounding") or {}).get("values") or []
    details = {"data": data, "expected_data": expected, **answer_counts(summary)}
    if data is None:
        result = str(summary.get("result") or "")[:300]
        return False, "the run gave no data" + (f" (its result: {result!r})" if result else ""), details
    if data != expected:
        return False, f"the data {_short(data)} is not the expected {_short(expected)}", details
    unseen = [v for v in values if v.get("status") == "ungrounded" and v.get("required", True)]
    if unseen:
        paths = ", ".join(str(v.get("path")) for v in unseen[:8])
        return False, f"the data is right, but the run never saw these values on a page: {paths}", details
    return True, "the data matches and every required value was found on a page", details


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 300 else text[:300] + "…"
