"""The agent's handle on its browser tab: typed snapshot and act requests for the tab it is
in, following the tab an action moved it to."""

from __future__ import annotations

import logging

from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.browser import act, detach_debugger, snapshot
from waymark.host.core.actions import ActionModel, action_json
from waymark.host.core.browser_api import ActionResult, ActRequest, SnapshotOptions
from waymark.host.core.snapshot import Snapshot

log = logging.getLogger(__name__)

class BrowserSession:
    """One run's tab and snapshot options."""

    def __init__(self, bridge: BrowserBridge, *, tab_id: int | None = None, max_chars: int = 20_000, screenshots: bool = False,
                 upload_dir: str | None = None) -> None:
        self.bridge = bridge
        self.upload_dir = upload_dir
        self.tab_id = tab_id
        self.max_chars = max_chars
        self.screenshots = screenshots
        #: The ref generation of the last snapshot the run saw, which its refs come from.
        self.ref_generation: int | None = None

    def options(self, screenshot: bool = False, occlusion: bool = True) -> SnapshotOptions:
        # A screenshot always comes with its thumbnail for the panel's timeline, made by the extension.
        return SnapshotOptions(tab_id=self.tab_id, max_chars=self.max_chars, screenshot=screenshot, thumbnail=screenshot,
                               occlusion=occlusion)

    async def open(self, url: str) -> int:
        """Open `url` in a new active tab, wait for it to load, and continue there."""
        data = await self.bridge.request("tabs.open", {"url": url}, timeout=45.0)
        self.tab_id = int(data["tab_id"])
        return self.tab_id

    async def use_active_tab(self) -> int:
        data = await self.bridge.request("tabs.active", {})
        self.tab_id = int(data["tab_id"])
        return self.tab_id

    async def snapshot(self, screenshot: bool = False, occlusion: bool = True) -> Snapshot:
        """The tab's page (`occlusion` False: with the elements an overlay covers, which the
        model is not shown since it cannot act on them)."""
        snap = await snapshot(self.bridge, self.options(screenshot, occlusion))
        if snap.tab_id is not None:
            self.tab_id = snap.tab_id
        self.ref_generation = snap.ref_generation
        return snap

    async def act(self, action: ActionModel, *, screenshot: bool = False, snapshot_after: bool = True,
                  secret_origins: list[str] | None = None) -> ActionResult:
        """Dispatch one action (`secret_origins`: it types a secret bound to those); the result's tab becomes the session's tab."""
        request = ActRequest(tab_id=self.tab_id, action=action_json(action), ref_generation=self.ref_generation,
                             snapshot=self.options(screenshot) if snapshot_after else None, secret_origins=secret_origins)
        result = await act(self.bridge, request, upload_dir=self.upload_dir)
        if result.tab_id is not None:
            self.tab_id = result.tab_id
        elif result.new_tab is not None:
            self.tab_id = result.new_tab.tab_id
        if result.snapshot is not None:
            self.ref_generation = result.snapshot.ref_generation
        elif self.tab_id != request.tab_id:
            self.ref_generation = None  # refs are per tab: another tab's are not checked against this one's
        return result

    async def release(self) -> None:
        """Detach the debugger when the run ends; a browser that is already gone is fine."""
        try:
            await detach_debugger(self.bridge)
        except BrowserError as exc:
            log.info("could not detach the debugger at run end: %s", exc.code)
