"""Reading a saved answer again on a replay's page: each value where the saved run found it.

A saved run found each value of its answer in text around it (`Tracking number: SW 4417 0093 2
Carrier`): the words before it and after it are where the value is, whatever it reads today. A
replay finds those words on its own page and reads what stands between them, in the value's kind:
a number in any written form, a date (given back in the saved answer's own form), an amount, or a
string of about the saved one's length. Words on both sides are needed: after the row of one order
is gone, the words after its total begin the next row, and would read the total of the row above.
All the words the run saw are tried first, then the nearest few on each side; at each width they
must point to one value, since of two the one the task meant would be a guess. A value declared
computed is a count of an array of the answer, or a sum of one field over it: it is computed
again from the values read.

What this cannot do: find items a list did not have when the run was saved (it reads the items
the saved run read), or read a value whose words around it all changed; that value is reported
missing, by its path and the words looked for, and the replay fails.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, Field

from waymark.host.agent.answers.grounding import EXCERPT
from waymark.host.agent.answers.matching import (
    DATE_FORMS,
    amount_of,
    date_of,
    normalize,
    reading,
)
from waymark.host.workflows.model import Answer, AnswerValue, fill

#: Words of context looked for on each side: all the saved run saw (up to EXCERPT characters), then the nearest three, then two.
_WIDTHS = (99, 3, 2)
#: A number as pages write it: grouped by thousands, or plain; with decimals or not.
_NUMBER = r"[-+]?\d{1,3}(?:[,.' \u00a0\u202f]\d{3})+(?:[.,]\d+)?(?!\d)|[-+]?\d+(?:[.,]\d+)?(?!\d)"
_MONTH = r"[A-Za-z]{3,9}\.?"
_DATE = (r"\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}|\d{1,2}[./]\d{1,2}[./]\d{4}"
         rf"|(?:[A-Za-z]+,?\s)?{_MONTH}\s\d{{1,2}},?\s\d{{4}}|(?:[A-Za-z]+,?\s)?\d{{1,2}}\s{_MONTH},?\s\d{{4}}")
_AMOUNT = rf"(?:[^\w\s]{{1,3}}\s?)?(?:{_NUMBER})(?:\s?(?:[A-Z]{{3}}|[^\w\s]{{1,3}}))?"


class Reread(BaseModel):
    """The answer read again: its data, the paths whose value changed, and the values not found."""

    data: Any = None
    changed: list[str] = Field(default_factory=list)
    #: One line per value not read again: its path and the words looked for around it.
    missing: list[str] = Field(default_factory=list)


def bound(answer: Answer, values: dict[str, str]) -> Answer:
    """The answer with each parameter's value where the words around a value hold it, written as
    those words are (normalized): `order {{param:order}} total` becomes `order px-1043 total`."""
    return Answer.model_validate(fill(answer.model_dump(), {name: normalize(value) for name, value in values.items()}))


def unbound(answer: Answer, values: dict[str, str]) -> Answer:
    """The answer with each parameter's value in the words around its values written back as
    `{{param:NAME}}` (the inverse of `bound`), for the workflow file."""
    out = answer.model_copy(deep=True)
    for name, given in values.items():
        word = normalize(given)
        if not word:
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")
        for value in out.values:
            value.before, value.after = (pattern.sub(f"{{{{param:{name}}}}}", side) for side in (value.before, value.after))
    return out


def reread(answer: Answer, texts: list[str]) -> Reread:
    """The saved answer read again from `texts` (a page's readable text, its elements' names and
    values), computed values computed again from the values read."""
    data = copy.deepcopy(answer.data)
    out = Reread()
    for value in answer.values:
        if value.computed is not None:
            continue
        found = _read(value, texts)
        if found is None:
            if value.required:
                before, after = (" ".join(words) for words in context_words(value))
                out.missing.append(f"{value.path} (looked for it between \"{before}\" and \"{after}\")")
            continue
        if found != value.value:
            out.changed.append(value.path)
        _put(data, value.parts, found)
    for value in answer.values:
        if value.computed is not None:
            computed = _compute(value, data)
            if computed != value.value:
                out.changed.append(value.path)
            _put(data, value.parts, computed)
    out.data = data
    return out


def formula(value: str | int | float, data: Any, parts: tuple[str | int, ...]) -> tuple[str, list[str | int], str | int | None] | None:
    """How a computed value of `data` is got from its other values: ("count", array) when it is
    the array's length, ("sum", array, field) when it is the sum of a field over the array's
    items; None when neither gives it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    for where, array in _arrays(data, []):
        if where == list(parts[:len(where)]):
            continue  # an array holding the value itself
        if isinstance(value, int) and len(array) == value:
            return "count", where, None
        fields = set.intersection(*(set(item) for item in array if isinstance(item, dict))) if array and all(
            isinstance(item, dict) for item in array) else set()
        for field in sorted(fields):
            numbers = [item[field] for item in array]
            if all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in numbers) and _sum(numbers) == Decimal(str(value)):
                return "sum", where, field
    return None


def _arrays(data: Any, parts: list[str | int]) -> list[tuple[list[str | int], list[Any]]]:
    found: list[tuple[list[str | int], list[Any]]] = []
    if isinstance(data, list):
        found.append((parts, data))
        for i, item in enumerate(data):
            found += _arrays(item, [*parts, i])
    elif isinstance(data, dict):
        for key, item in data.items():
            found += _arrays(item, [*parts, key])
    return found


def _sum(numbers: list[Any]) -> Decimal:
    return sum((Decimal(str(n)) for n in numbers), Decimal(0))


def _compute(value: AnswerValue, data: Any) -> str | int | float:
    array = value_at(data, value.over)
    if not isinstance(array, list):
        return value.value
    if value.computed == "count":
        return len(array)
    total = _sum([item.get(value.field) for item in array if isinstance(item, dict)])
    return int(total) if isinstance(value.value, int) else float(total)


def value_at(data: Any, parts: list[str | int]) -> Any:
    """The value the keys and indexes `parts` lead to in `data`, or None where they lead nowhere."""
    for part in parts:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _put(data: Any, parts: list[str | int], new: Any) -> None:
    holder = value_at(data, parts[:-1])
    if parts and holder is not None:
        holder[parts[-1]] = new


# ------------------------------------------------------------------ reading one value

def _read(value: AnswerValue, texts: list[str]) -> str | int | float | None:
    """The value where the saved run's words stand on both sides of it (on one side only when it
    saw none on the other): all of them first, then the nearest few; they must point to one value
    on the page. One side alone would read a neighbour's value once the row is gone."""
    before, after = context_words(value)
    if not before and not after:
        return None
    for width in _WIDTHS:
        left, right = before[-width:] if before else [], after[:width] if after else []
        pattern = re.compile((r"(?<!\w)" + _words(left) + r"\s*" if left else r"(?<!\w)") + f"(?P<v>{_slot(value, bounded=bool(right))})"
                             + (r"\s*" + _words(right) + r"(?!\w)" if right else r"(?!\w)"), re.IGNORECASE)
        found = {read for text in texts for match in pattern.finditer(text) if (read := _parse(value, match.group("v").strip())) is not None}
        if len(found) == 1:
            return found.pop()
        if found:
            return None  # two places give two values: which one the task meant would be a guess
    return None


def context_words(value: AnswerValue) -> tuple[list[str], list[str]]:
    """The whole words the saved run saw before and after the value: context cut at its full width
    may begin (end) inside a word, and `total` must never match inside `subtotal`."""
    before, after = value.before.split(), value.after.split()
    if len(value.before) >= EXCERPT and not value.before[0].isspace():
        before = before[1:]
    if len(value.after) >= EXCERPT and not value.after[-1].isspace():
        after = after[:-1]
    return before, after


def _words(words: list[str]) -> str:
    # The context is normalized text: any run of whitespace (a line break, a no-break space) stands between its words.
    return r"\s+".join(re.escape(w) for w in words)


def _slot(value: AnswerValue, bounded: bool) -> str:
    """The value's kind as a pattern; a string is as long as the words after it allow when they
    are looked for (`bounded`), else as many words as the saved one."""
    if isinstance(value.value, (int, float)):
        return _NUMBER
    if date_of(value.value) is not None:
        return _DATE
    if amount_of(value.value) is not None:
        return _AMOUNT
    if bounded:
        return rf"[^\n]{{1,{max(3 * len(value.value), len(value.value) + 40)}}}?"
    return r"\S+" + rf"(?:[ \t\u00a0]+\S+){{{len(value.value.split()) - 1}}}"


def _parse(value: AnswerValue, text: str) -> str | int | float | None:
    saved = value.value
    if isinstance(saved, (int, float)):
        return _number(saved, value.written, text)
    day = date_of(saved)
    if day is not None:
        new = _day(value.written, day, text)
        form = next((f for f in DATE_FORMS if _parses(saved, f) == day), None)
        return new.strftime(form) if new is not None and form is not None else None
    if normalize(text) == normalize(saved):
        return saved
    return text


def _number(saved: int | float, written: str, text: str) -> int | float | None:
    """The number `text` writes, read with the decimal mark the saved value was written with."""
    digits = text.replace(" ", "").replace("\u00a0", "").replace("\u202f", "").replace("'", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    plain = written.replace(" ", "").replace("'", "").lstrip("+-")
    mark = "," if plain and reading(plain, ",") == abs(Decimal(str(saved))) and reading(plain, ".") != abs(Decimal(str(saved))) else "."
    number = reading(digits, mark)
    if number is None:
        return None
    number *= sign
    if isinstance(saved, int):
        return int(number) if number == number.to_integral_value() else float(number)
    return float(number)


def _day(written: str, saved: dt.date, text: str) -> dt.date | None:
    """The date `text` writes, read in the form the saved one was written in when it fits (day or month first)."""
    text = " ".join(text.split())
    form = next((f for f in DATE_FORMS if _parses(written, f) == saved), None)
    if form is not None:
        read = _parses(text, form)
        if read is not None:
            return read
    return date_of(text)


def _parses(text: str, form: str) -> dt.date | None:
    try:
        return dt.datetime.strptime(" ".join(text.strip().split()), form).date()
    except ValueError:
        return None
