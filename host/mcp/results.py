"""What an MCP client reads: an action's result in one compact line, then the page as Waymark's
model reads it (the compact snapshot, fenced as untrusted page data)."""

from __future__ import annotations

from host.agent.prompts import snapshot_block
from host.core.browser_api import ActionResult
from host.core.snapshot import Snapshot


def page_text(snapshot: Snapshot) -> str:
    """The snapshot as the client's model reads it: tab and URL, then the element lines fenced as
    page data, then how to page on when the text budget cut it."""
    text = snapshot_block(snapshot.url, snapshot.title, snapshot.text, snapshot.tab_id)
    if snapshot.next_offset is not None:
        text += f"\n(more elements: call browser_snapshot with offset={snapshot.next_offset})"
    return text


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
    said = ", ".join(n for n in notes if n)
    return f"{line}: ok" + (f" ({said})" if said else "")
