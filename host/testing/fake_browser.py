"""A scripted browser behind the bridge, for tests that need no real DOM: the host's one seam to
the browser is `BrowserBridge.request`, so a `FakeBrowser` passed where a bridge goes is driven
by the real `host.browser.act` and `snapshot`, as httpx's `MockTransport` stands behind its client.

Because it stands beneath `act`, everything above it is real: an action reaches it only as an
`Admitted` token turned into a request (a bare one is refused as `not_admitted` before it gets
here), so the admission, the guards, the step judge and the proof are all exercised.

The page model is a set of named `FakePage` states: their elements (with refs), their readable
text, and what a click on a ref does (go to another state). A fill or type sets the element's
value (a password field's, `"input_type": "password"`, only that it has one: as in the extension,
its value never leaves the page); a navigate goes to the state at that address. Every action
received is kept in `sent`. It answers only the methods a run and a replay use; any other is an error, never a guess.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.core.protocol import Outbound

#: Actions that set the value of the element they name.
_FILLING = frozenset({"fill", "type"})


class FakePage(BaseModel):
    """One state of the page: what a snapshot shows, what extract reads, and where clicks go."""

    model_config = ConfigDict(extra="forbid")

    url: str
    title: str = ""
    #: The page's elements as the extension lists them (host.core.snapshot.SnapshotElement fields).
    elements: list[dict[str, Any]] = Field(default_factory=list)
    #: The page's readable text (what extract reads; a field's value is not in it, as with innerText).
    text: str = ""
    #: ref -> the name of the state a click on it goes to; a ref not here leaves the page as it is.
    clicks: dict[int, str] = Field(default_factory=dict)


class FakeBrowser(BrowserBridge):
    """One tab over scripted page states: a `BrowserBridge` whose `request` is answered here,
    never sent to an extension (its events and listeners are the bridge's own)."""

    def __init__(self, pages: dict[str, FakePage], start: str, *, tab_id: int = 1) -> None:
        super().__init__(_no_extension)
        self.pages = {name: page.model_copy(deep=True) for name, page in pages.items()}
        self.state = start
        self.tab_id = tab_id
        #: Refs number again from 1 on another page: an act naming an older generation's ref is stale.
        self.generation = 1
        #: Every action the browser received, in order (the host's own reads, extract, included).
        self.sent: list[dict[str, Any]] = []

    @property
    def page(self) -> FakePage:
        return self.pages[self.state]

    @property
    def acted(self) -> list[dict[str, Any]]:
        """The actions received other than the host's reads of the page's text."""
        return [action for action in self.sent if action.get("type") != "extract"]

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> dict[str, Any]:
        """Answer one bridge request as the extension would (the timeout is not needed: it answers at once)."""
        params = params or {}
        if method == "snapshot":
            return self.snapshot()
        if method == "act":
            return self._act(params)
        if method in ("tabs.active", "tabs.open"):
            if method == "tabs.open":
                self._go_to_url(str(params.get("url", "")))
            return {"tab_id": self.tab_id}
        if method == "act.detach":
            return {"detached": True}
        raise BrowserError("unknown_method", f"the fake browser has no answer for {method!r}")

    def snapshot(self) -> dict[str, Any]:
        """The current state as a snapshot: its text, then a line per element (with its value)."""
        page = self.page
        lines = [f'[{e["ref"]}] {e["role"]} "{e.get("name", "")}"' + (f' value="{e["value"]}"' if e.get("value") else "")
                 for e in page.elements]
        text = "\n".join(([page.text] if page.text else []) + lines)
        elements = [{"in_viewport": True, **e} for e in page.elements]
        return {"url": page.url, "title": page.title, "elements": elements, "text": text, "tab_id": self.tab_id,
                "ref_generation": self.generation, "stats": {}}

    def _act(self, params: dict[str, Any]) -> dict[str, Any]:
        action = dict(params["action"])
        self.sent.append(action)
        kind, before = str(action.get("type", "")), self.page.url
        if kind == "extract":
            return self._result(kind, before, text=self.page.text)
        ref = action.get("ref")
        if ref is not None:
            element = next((e for e in self.page.elements if e["ref"] == ref), None)
            stale = params.get("ref_generation") not in (None, self.generation)
            if element is None or stale:
                return self._result(kind, before, error={"code": "stale_ref", "message": f"ref {ref} is not on the page"})
            if kind in _FILLING and element.get("input_type") == "password":
                element["states"] = {**element.get("states", {}), "has_value": bool(action.get("text"))}
            elif kind in _FILLING:
                element["value"] = str(action.get("text", ""))
            elif kind == "click" and ref in self.page.clicks:
                self._go(self.page.clicks[ref])
        elif kind == "navigate" and not self._go_to_url(str(action.get("url", ""))):
            return self._result(kind, before, error={"code": "navigation_failed", "message": "no page at that address"})
        return self._result(kind, before, snapshot=params.get("snapshot") is not None)

    def _go(self, state: str) -> None:
        if state != self.state:
            self.state, self.generation = state, self.generation + 1

    def _go_to_url(self, url: str) -> bool:
        name = next((name for name, page in self.pages.items() if page.url == url), None)
        if name is not None:
            self._go(name)
        return name is not None

    def _result(self, kind: str, before: str, *, text: str | None = None, error: dict[str, str] | None = None,
                snapshot: bool = False) -> dict[str, Any]:
        after = self.page.url
        return {"ok": error is None, "action": kind, "url_before": before, "url_after": after, "navigated": after != before,
                "tab_id": self.tab_id, "text": text, "error": error, "snapshot": self.snapshot() if snapshot else None}


def _no_extension(message: Outbound) -> None:
    """The bridge's send: never called, since `FakeBrowser.request` answers every request itself."""
    raise BrowserError("no_extension", "the fake browser sends nothing to an extension")
