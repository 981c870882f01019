"""What a well-formed snapshot text looks like to the model: every line is a header, a heading,
a separator, an unreadable-frame marker, or an element line that starts with a real ref."""

from __future__ import annotations

import re
from typing import Any

ELEMENT_LINE = re.compile(r"^\[(\d+)\] ")
#: Characters that reorder or hide text, or end a line in some reader's eyes.
INVISIBLE = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\u2028\u2029]")


def forged_lines(snapshot: dict[str, Any]) -> list[str]:
    """Lines of the model text that no element of the snapshot accounts for (should be none).

    Lines are split the strictest way (str.splitlines: \\n, \\r, \\v, \\f, \\x1c-\\x1e, \\x85,
    \\u2028, \\u2029), since a model's tokenizer may treat any of them as a line break."""
    refs = [e["ref"] for e in snapshot["elements"]]
    lines = snapshot["text"].splitlines()
    bad = []
    element_lines = 0
    for index, line in enumerate(lines):
        # The header: `waymark snapshot` prints a `page` line first; the agent's text starts at `viewport`.
        if index == 0 and line.startswith(("page ", "viewport ")):
            continue
        if index == 1 and line.startswith("viewport ") and lines[0].startswith("page "):
            continue
        if line.startswith(("# ", "## ", "### ", "#### ", "##### ", "###### ", "-- ", "frame \"", "page_overflow:")):
            continue
        match = ELEMENT_LINE.match(line)
        if match and int(match.group(1)) in refs:
            element_lines += 1
            continue
        bad.append(line)
    if element_lines != len(refs):
        bad.append(f"<{element_lines} element lines for {len(refs)} elements>")
    return bad


def element_line(snapshot: dict[str, Any], ref: int) -> str:
    """The model line of one element."""
    return next(line for line in snapshot["text"].splitlines() if line.startswith(f"[{ref}] "))
