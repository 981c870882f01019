"""Chrome's own accessibility tree as the authority on names and roles: every snapshot element of
a page's top document is paired with the AX node of the same DOM node (through a marker
attribute the extension writes and the DevTools protocol's backend node ids), and role and name
are compared."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MARK = "data-wm-ax"
#: Our roles that Chrome names differently, and pseudo-roles with no AX counterpart.
_SAME_ROLE = {"searchbox": {"searchbox", "textbox"}, "textbox": {"textbox", "searchbox"}, "button": {"button", "PopUpButton"},
              "combobox": {"combobox", "ComboBoxSelect", "ComboBoxMenuButton"}}
_NO_AX_ROLE = {"clickable"}


@dataclass
class Pair:
    ref: int
    ours_role: str
    ours_name: str
    chrome_role: str
    chrome_name: str

    def name_agrees(self) -> bool:
        # Both collapsed alike: a no-break space the author wrote stays in both names (accname).
        ours, chrome = " ".join(self.ours_name.split()), " ".join(self.chrome_name.split())
        # A long name is cut with an ellipsis: it agrees when Chrome's starts with what we kept.
        return ours == chrome or (ours.endswith("…") and chrome.startswith(ours[:-1]))

    def role_agrees(self) -> bool:
        return self.chrome_role in _SAME_ROLE.get(self.ours_role, {self.ours_role})


@dataclass
class Agreement:
    pairs: list[Pair] = field(default_factory=list)
    unpaired: int = 0

    def named(self) -> list[Pair]:
        """Pairs where Chrome has a name (the ones a name can agree on)."""
        return [p for p in self.pairs if p.chrome_name.strip()]

    def name_misses(self) -> list[Pair]:
        return [p for p in self.named() if not p.name_agrees()]

    def role_misses(self) -> list[Pair]:
        return [p for p in self.pairs if p.ours_role not in _NO_AX_ROLE and not p.role_agrees()]


async def compare(sw: Any, page: Any, tab_id: int, snapshot: dict[str, Any]) -> Agreement:
    """Pair the snapshot's top-document elements with Chrome's AX nodes and compare them."""
    elements = {e["ref"]: e for e in snapshot["elements"]}
    places = await sw.evaluate("([t, r]) => globalThis.waymark.snapshot.localRefs(t, r)", [tab_id, list(elements)])
    top = {p["localRef"]: p["ref"] for p in places if p["frameId"] == 0}
    await sw.evaluate("([t, r, a]) => globalThis.waymark.snapshot.markRefs(t, r, a)", [tab_id, list(top.values()), MARK])
    cdp = await page.context.new_cdp_session(page)
    try:
        await cdp.send("DOM.enable")
        await cdp.send("Accessibility.enable")
        # One walk of the whole DOM (shadow roots included) finds every marked node's backend id.
        document = (await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True}))["root"]
        backend_of: dict[int, int] = {}
        stack = [document]
        while stack:
            node = stack.pop()
            attrs = node.get("attributes") or []
            marks = dict(zip(attrs[::2], attrs[1::2]))
            if MARK in marks and int(marks[MARK]) in top:
                backend_of[top[int(marks[MARK])]] = node["backendNodeId"]
            stack.extend(node.get("children") or [])
            stack.extend(node.get("shadowRoots") or [])
        ax = {n["backendDOMNodeId"]: n for n in (await cdp.send("Accessibility.getFullAXTree"))["nodes"] if "backendDOMNodeId" in n}
    finally:
        await cdp.detach()
    result = Agreement()
    for ref, backend in backend_of.items():
        node = ax.get(backend)
        if node is None or node.get("ignored"):
            result.unpaired += 1
            continue
        e = elements[ref]
        result.pairs.append(Pair(ref, e["role"], e["name"], str((node.get("role") or {}).get("value", "")),
                                 str((node.get("name") or {}).get("value", ""))))
    result.unpaired += len(top) - len(backend_of)
    return result
