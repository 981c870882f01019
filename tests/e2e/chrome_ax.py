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


async def ax_nodes(sw: Any, page: Any, tab_id: int, snapshot: dict[str, Any]) -> tuple[dict[int, dict[str, Any]], int]:
    """Chrome's AX node of each top-document snapshot element, by ref (ignored nodes left out),
    and how many top-document elements have no AX node."""
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
        ax = await _settled_ax_tree(page, cdp)
    finally:
        await cdp.detach()
    found = {ref: ax[backend] for ref, backend in backend_of.items() if backend in ax and not ax[backend].get("ignored")}
    return found, len(top) - len(found)


async def _settled_ax_tree(page: Any, cdp: Any, reads: int = 6) -> dict[int, dict[str, Any]]:
    """Chrome's AX nodes by backend id, read until two reads a frame apart agree: Chrome builds
    its tree lazily (a `<use>` instance's title, a web component's late ARIA attributes), so on a
    loaded machine one read can predate what the page already holds."""
    previous: dict[int, dict[str, Any]] | None = None
    for _ in range(reads):
        await page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        nodes = (await cdp.send("Accessibility.getFullAXTree"))["nodes"]
        current = {n["backendDOMNodeId"]: n for n in nodes if "backendDOMNodeId" in n}
        if current == previous:
            break
        previous = current
    assert previous is not None
    return previous


async def compare(sw: Any, page: Any, tab_id: int, snapshot: dict[str, Any]) -> Agreement:
    """Pair the snapshot's top-document elements with Chrome's AX nodes and compare them."""
    elements = {e["ref"]: e for e in snapshot["elements"]}
    nodes, unpaired = await ax_nodes(sw, page, tab_id, snapshot)
    result = Agreement(unpaired=unpaired)
    for ref, node in nodes.items():
        e = elements[ref]
        result.pairs.append(Pair(ref, e["role"], e["name"], str((node.get("role") or {}).get("value", "")),
                                 str((node.get("name") or {}).get("value", ""))))
    return result


#: The states the snapshot says as Chrome's tree does (CDP property names -> the snapshot's keys).
STATE_PROPERTIES = {"checked": "checked", "expanded": "expanded", "selected": "selected", "pressed": "pressed", "level": "level", "hasPopup": "haspopup"}
#: Roles whose value the snapshot says as Chrome's tree does: range widgets and comboboxes.
VALUE_ROLES = {"slider", "spinbutton", "progressbar", "meter", "scrollbar", "combobox"}


def chrome_states(node: dict[str, Any]) -> dict[str, Any]:
    """Chrome's value and states of an AX node, in the snapshot's terms: tristates as true, false
    or "mixed", numbers as the snapshot writes them, a value as text."""
    out: dict[str, Any] = {}
    for prop in node.get("properties") or []:
        key = STATE_PROPERTIES.get(prop["name"])
        if key is None:
            continue
        value = prop["value"].get("value")
        out[key] = {"true": True, "false": False}.get(value, value) if isinstance(value, str) and key != "haspopup" else value
    value = (node.get("value") or {}).get("value")
    if value is not None and value != "":
        out["value"] = _number_text(value) if isinstance(value, (int, float)) else str(value)
    return out


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def snapshot_states(element: dict[str, Any]) -> dict[str, Any]:
    """The snapshot's value and the states Chrome also has, of one element."""
    out = {k: v for k, v in element.get("states", {}).items() if k in STATE_PROPERTIES.values()}
    if element.get("value") not in (None, ""):
        out["value"] = element["value"]
    return out


def state_misses(snapshot: dict[str, Any], nodes: dict[int, dict[str, Any]]) -> list[str]:
    """Where the snapshot's value or states differ from Chrome's on the elements both have. A
    state the snapshot leaves out reads as false; a native select's implicit popup and the value
    of roles the snapshot does not give one (Chrome's textbox value of a non-field) are not compared."""
    misses = []
    for element in snapshot["elements"]:
        node = nodes.get(element["ref"])
        if node is None:
            continue
        chrome, ours = chrome_states(node), snapshot_states(element)
        if element["role"] not in VALUE_ROLES:
            chrome.pop("value", None)
            ours.pop("value", None)
        if element.get("options") is not None:
            chrome.pop("haspopup", None)
        for key in sorted(set(chrome) | set(ours)):
            if ours.get(key, False) != chrome.get(key, False):
                misses.append(f"[{element['ref']}] {element['role']} {element['name']!r} {key}: ours {ours.get(key)!r}, chrome {chrome.get(key)!r}")
    return misses


async def ax_ancestors(page: Any, nodes: dict[int, dict[str, Any]], refs: list[int], role: str) -> list[dict[str, Any]]:
    """For each element (by ref), its nearest ancestor of this role in Chrome's tree, with that
    ancestor's `children` (its child nodes): the row, article or grid a control stands in."""
    cdp = await page.context.new_cdp_session(page)
    try:
        tree = {n["nodeId"]: n for n in (await cdp.send("Accessibility.getFullAXTree"))["nodes"]}
    finally:
        await cdp.detach()
    found = []
    for ref in refs:
        node = tree[nodes[ref]["nodeId"]]
        while node["role"]["value"] != role:
            node = tree[node["parentId"]]
        found.append({**node, "children": [tree[c] for c in node.get("childIds", [])]})
    return found
