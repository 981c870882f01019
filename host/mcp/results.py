"""What an MCP client reads: an action's result in one compact line, then the page as Waymark's
model reads it (the compact snapshot, fenced as untrusted page data), or only what changed
since the snapshot the client last read, when that is shorter."""

from __future__ import annotations

import difflib
import re

from waymark.host.agent.prompts import snapshot_block, wrap_untrusted
from waymark.host.core.browser_api import ActionResult
from waymark.host.core.snapshot import Snapshot

_REF_LINE = re.compile(r"^\[(\d+)\]")


def page_text(snapshot: Snapshot) -> str:
    """The snapshot as the client's model reads it: tab and URL, then the element lines fenced as
    page data, then how to page on when the text budget cut it."""
    text = snapshot_block(snapshot.url, snapshot.title, snapshot.text, snapshot.tab_id)
    if snapshot.next_offset is not None:
        text += f"\n(more elements: call browser_snapshot with offset={snapshot.next_offset})"
    return text


def page_change(before: Snapshot, after: Snapshot) -> str | None:
    """The lines that changed between two whole snapshots of one tab (`-` gone, `+` new), each
    group anchored to the ref line above it; refs are stable, so every other line the client
    read still holds. None when the two cannot be compared (another tab or page, or a paged snapshot)."""
    if (before.tab_id, before.url) != (after.tab_id, after.url) or before.next_offset is not None or after.next_offset is not None:
        return None
    old, new = f"title: {before.title}\n{before.text}".splitlines(), f"title: {after.title}\n{after.text}".splitlines()
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        anchor = next((line for line in reversed(new[:j1]) if _REF_LINE.match(line)), None)
        lines.append(f"@@ after {_REF_LINE.match(anchor).group(0)}" if anchor else "@@ at the top")  # type: ignore[union-attr]
        lines.extend(f"- {line}" for line in old[i1:i2])
        lines.extend(f"+ {line}" for line in new[j1:j2])
    header = f"Current tab {after.tab_id}: {after.url}" if after.tab_id is not None else f"Current page: {after.url}"
    if not lines:
        return f"{header}\n(the page is unchanged since your last snapshot)"
    body = "changes since your last snapshot (every other line still holds, refs unchanged):\n" + "\n".join(lines)
    return f"{header}\n" + wrap_untrusted(body, after.url)


def page_view(before: Snapshot | None, after: Snapshot) -> str:
    """What the client reads of the page after an action: only what changed since `before` (the
    snapshot it last read in full, or after its last change) when that is shorter, else the whole snapshot."""
    whole = page_text(after)
    change = page_change(before, after) if before is not None else None
    return change if change is not None and len(change) < len(whole) else whole


def result_line(result: ActionResult, line: str) -> str:
    """One line per action: what was done, whether it worked, and what changed."""
    if not result.ok:
        error = result.error
        code, message = (error.code, error.message) if error else ("failed", "the action failed")
        extra = ""
        if error and error.data.get("occluder_ref"):
            extra = f" (covered by [{error.data['occluder_ref']}])"
        hint = "; refs changed: choose from the fresh snapshot below" if code == "stale_ref" else ""
        return f"{line}: FAILED {code}: {message}{extra}{hint}"
    notes = [f"via {result.path}" if result.path else "", f"settled in {result.settle_ms:.0f} ms" if result.settled else ""]
    if result.settled is False:
        notes.append(f"still busy after {result.settle_ms:.0f} ms")
    if result.navigated:
        notes.append(f"navigated to {result.url_after}")
    if result.new_tab is not None:
        notes.append(f"opened tab {result.new_tab.tab_id}, now current")
    for dialog in result.dialogs:
        notes.append(f"{dialog.get('type', 'dialog')} dialog {str(dialog.get('message', ''))[:120]!r} ({dialog.get('handled', '')})")
    for label, where in (("hit", result.hit), ("dropped on", result.drop)):
        if where is not None:
            notes.append(f"{label} " + (f"[{where.ref}]" if where.ref is not None else where.element[:80]))
    said = ", ".join(n for n in notes if n)
    return f"{line}: ok" + (f" ({said})" if said else "")
