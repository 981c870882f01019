"""The telling words of a text, as the task and the page's names are compared: whole words,
case-folded, a plural's final "s" dropped; short and common words ("the", "all", "only") say
nothing of an element or a clause and are left out; numbers count."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")
_COMMON = frozenset("""a an and any are as at be by can do for from get go has have in into is it its me my
no non not of on one only or our out over so that the their them then this to up use was we with you your
all also each every here there what when which who will would page click button link field box""".split())


def words(text: str) -> set[str]:
    """The telling words of `text`: case-folded, a plural's final "s" dropped, common and short
    words left out, numbers kept."""
    found = set()
    for word in _WORD.findall(text.casefold()):
        if word.isdigit():
            found.add(word)  # "4" of "rate it 4 stars" tells the 4 stars radio from the others
            continue
        if len(word) < 3 or word in _COMMON:
            continue
        found.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return found
