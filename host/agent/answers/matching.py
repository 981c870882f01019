"""Where a value of an answer appears in a text: the forms one value can take on a page.

Texts and values are compared after `normalize` (Unicode compatibility forms, case, whitespace,
quotes and dashes). A string matches at word boundaries; a number matches any of its written
forms (`1234.5` is `1,234.50`, `1.234,5`, `1 234,50`, `$1,234.50`...), never inside a longer
number; a string that is an amount (`$1,234.50`, `12 EUR`) matches the amount with that currency
beside it; a string that is a date matches the date written in the common English forms
(`2026-03-14` is `March 14, 2026`, `14 Mar 2026`, `14/03/2026`...).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from decimal import Decimal
from typing import Callable

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u201c": '"', "\u201d": '"',
                         "\u201e": '"', "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
                         "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2007": " "})


def normalize(text: str) -> str:
    """Text as values are compared: compatibility forms, one kind of quote, dash and space, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold().split())


def find_string(value: str, text: str) -> int | None:
    """Where the normalized `value` starts in the normalized `text` at word boundaries, or None."""
    if not value:
        return None
    start = 0
    while True:
        at = text.find(value, start)
        if at < 0:
            return None
        end = at + len(value)
        before_ok = at == 0 or not (value[0].isalnum() and text[at - 1].isalnum())
        after_ok = end == len(text) or not (value[-1].isalnum() and text[end].isalnum())
        if before_ok and after_ok:
            return at
        start = at + 1


# ------------------------------------------------------------------ numbers

#: Signs of a currency as pages write them, normalized; each group is one currency.
_CURRENCIES: tuple[tuple[str, ...], ...] = (
    ("$", "usd", "us$", "dollars", "dollar"), ("€", "eur", "euro", "euros"), ("£", "gbp"), ("¥", "jpy", "cny", "yen", "円", "元"),
    ("₹", "inr"), ("chf",), ("kr", "sek", "nok", "dkk"), ("₩", "krw"), ("₽", "rub"), ("zł", "pln"), ("a$", "aud"), ("c$", "cad"),
)
_CURRENCY_SIGNS = sorted({s for group in _CURRENCIES for s in group}, key=len, reverse=True)
_AMOUNT = re.compile(r"^[-+]?\s*(?:[^\d\s.,'-]{1,4}\s?)?[-+]?\d[\d.,' ]*\s?(?:[^\d\s.,'-]{1,8})?$")


def _plain_digits(value: Decimal) -> tuple[str, str, str]:
    """(sign, integer digits, fraction digits without trailing zeros) of a number."""
    sign, digits, exponent = value.normalize().as_tuple()
    text = format(abs(value).normalize(), "f")
    whole, _, frac = text.partition(".")
    return ("-" if sign else ""), whole, frac.rstrip("0")


def _grouped(whole: str, sep: str) -> str:
    if not sep or len(whole) <= 3:
        return whole
    head = len(whole) % 3 or 3
    return whole[:head] + "".join(sep + whole[i:i + 3] for i in range(head, len(whole), 3))


def number_forms(value: Decimal) -> set[str]:
    """The ways a page writes this number, unsigned: with or without thousands separators
    (`,` `.` space `'`), a `.` or `,` decimal mark, and two decimals for amounts (`1234.5` is
    also `1,234.50`, `12` is also `12.00`)."""
    _, whole, frac = _plain_digits(value)
    fracs = {frac} if frac else {""}
    if len(frac) < 2:
        fracs.add(frac.ljust(2, "0"))
    forms = set()
    for group in ("", ",", ".", " ", "'"):
        for mark in (".", ","):
            if mark == group:
                continue
            for f in fracs:
                forms.add(_grouped(whole, group) + (mark + f if f else ""))
    return forms


def _standalone_minus(text: str, at: int) -> bool:
    """Whether a minus sign (perhaps with a currency sign between) stands right before `at`, not as a hyphen between words."""
    i = at - 1
    while i >= 0 and (text[i] == " " or text[i] in "$€£¥₹₩₽"):
        i -= 1
        if at - i > 4:
            return False
    return i >= 0 and text[i] == "-" and (i == 0 or not text[i - 1].isalnum())


#: Where a value is written in a text: (start, end), or None.
Span = tuple[int, int] | None


def number_finder(value: Decimal) -> Callable[[str], Span]:
    """Where the number is written in a normalized text, whole (not part of a longer number), with
    its sign: a negative number needs its minus (or accounting parentheses), a positive one is not
    matched by a standalone negative."""
    forms = sorted(number_forms(value), key=len, reverse=True)
    pattern = re.compile(r"(?<!\d)(?<!\d[.,'])(?:" + "|".join(map(re.escape, forms)) + r")(?!\d)(?![.,']\d)")
    negative = value < 0

    def find(text: str) -> Span:
        for match in pattern.finditer(text):
            at = match.start()
            minus = _standalone_minus(text, at) or (at > 0 and text[at - 1] == "(" and text[match.end():match.end() + 1] == ")")
            if minus == negative or value == 0:
                return at, match.end()
        return None
    return find


def amount_of(value: str) -> tuple[set[Decimal], tuple[str, ...] | None] | None:
    """A string that is an amount, as the numbers it may mean and its currency's signs: `$1,234.50`,
    `1.234,50 €`, `12 EUR`, `1234`. None for any other string. `1,234` may mean 1234 or 1.234."""
    text = normalize(value)
    if not text or not _AMOUNT.match(text) or not any(c.isdigit() for c in text):
        return None
    currency = None
    for sign in _CURRENCY_SIGNS:
        if sign in text:
            currency = next(g for g in _CURRENCIES if sign in g)
            text = text.replace(sign, " ")
            break
    text = text.replace(" ", "")
    if not re.fullmatch(r"[-+]?\d[\d.,']*", text):
        return None
    sign = "-" if text.startswith("-") else ""
    digits = text.lstrip("+-").replace("'", "")
    meanings = {sign and -m or m for m in (reading(digits, mark) for mark in (".", ",")) if m is not None}
    return (meanings, currency) if meanings else None


def reading(digits: str, mark: str) -> Decimal | None:
    """The number `digits` writes with `mark` as its decimal mark and the other as the thousands separator, or None."""
    other = "," if mark == "." else "."
    whole, frac = digits, ""
    if mark in digits:
        whole, _, frac = digits.rpartition(mark)
        if not frac.isdigit():
            return None
    groups = whole.split(other)
    if not all(g.isdigit() for g in groups):
        return None
    if len(groups) > 1 and (len(groups[0]) > 3 or any(len(g) != 3 for g in groups[1:])):
        return None
    return Decimal("".join(groups) + ("." + frac if frac else ""))


def amount_finder(value: str) -> Callable[[str], Span] | None:
    """Where an amount string's number is written in a normalized text, with its currency within a
    few characters when it names one; None when the string is no amount."""
    amount = amount_of(value)
    if amount is None:
        return None
    meanings, currency = amount
    finders = [number_finder(n) for n in meanings]

    def find(text: str) -> Span:
        for finder in finders:
            offset = 0
            while (span := finder(text[offset:])) is not None:
                at, end = span[0] + offset, span[1] + offset
                if currency is None or any(sign in text[max(0, at - 6):at + 24] for sign in currency):
                    return at, end
                offset = at + 1
        return None
    return find


# ------------------------------------------------------------------ dates

DATE_FORMS = ("%Y-%m-%d", "%B %d, %Y", "%B %d %Y", "%d %B %Y", "%b %d, %Y", "%b %d %Y", "%d %b %Y", "%b. %d, %Y",
               "%A, %B %d, %Y", "%A %d %B %Y", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d")


def date_of(value: str) -> dt.date | None:
    """The calendar date a string writes in one of the common forms, or None."""
    text = " ".join(value.strip().split())
    for form in DATE_FORMS:
        try:
            return dt.datetime.strptime(text, form).date()
        except ValueError:
            continue
    return None


def date_forms(day: dt.date) -> set[str]:
    """The ways a page writes this date (normalized): ISO, month names long and short in either
    order, and numeric day-first and month-first forms."""
    months = (day.strftime("%B"), day.strftime("%b"), day.strftime("%b") + ".")
    forms = {day.isoformat(), day.strftime("%Y/%m/%d"), f"{day.day:02d}.{day.month:02d}.{day.year}", f"{day.day}.{day.month}.{day.year}"}
    for d in {str(day.day), f"{day.day:02d}"}:
        for m in months:
            forms |= {f"{m} {d}, {day.year}", f"{m} {d} {day.year}", f"{d} {m} {day.year}", f"{d} {m}, {day.year}"}
        for mm in {str(day.month), f"{day.month:02d}"}:
            forms |= {f"{mm}/{d}/{day.year}", f"{d}/{mm}/{day.year}"}
    return {normalize(f) for f in forms}


def date_finder(value: str) -> Callable[[str], Span] | None:
    """Where a date string's date is written in a normalized text, in any of its forms; None when the string is no date."""
    day = date_of(value)
    if day is None:
        return None
    forms = sorted(date_forms(day), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w/.-])(?:" + "|".join(map(re.escape, forms)) + r")(?![\w/-])(?!\.\d)")

    def find(text: str) -> Span:
        match = pattern.search(text)
        return (match.start(), match.end()) if match else None
    return find


def value_finder(value: str | int | float) -> Callable[[str], Span]:
    """Where the value is written in a normalized text, in the first of its forms that is found: a
    number as written any usual way; a string as it is, else as the date or the amount it writes."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_finder(Decimal(str(value)))
    wanted = normalize(str(value))
    others = [f for f in (date_finder(str(value)), amount_finder(str(value))) if f is not None]

    def find(text: str) -> Span:
        at = find_string(wanted, text)
        if at is not None:
            return at, at + len(wanted)
        for other in others:
            span = other(text)
            if span is not None:
                return span
        return None
    return find
