"""The agent's and a replay's handle on its browser tab: typed snapshot and act requests for the tab
it is in, following the tab an action moved it to. It sends only what the run's admission
(host.agent.admission) admitted, with the gate the admission gave it."""

from __future__ import annotations

import logging
import time

from waymark.host.agent.admission import Admission
from waymark.host.bridge import BrowserBridge, BrowserError
from waymark.host.browser import act, detach_debugger, snapshot
from waymark.host.core.actions import ActionModel
from waymark.host.core.admitted import Admitted
from waymark.host.core.browser_api import ActionResult, ActRequest, SnapshotOptions
from waymark.host.core.downloads import RunDownloads
from waymark.host.core.snapshot import Snapshot

log = logging.getLogger(__name__)

class BrowserSession:
    """One run's tab and snapshot options."""

    def __init__(self, bridge: BrowserBridge, *, tab_id: int | None = None, max_chars: int = 20_000, screenshots: bool = False,
                 upload_dir: str | None = None) -> None:
        self.bridge = bridge
        self.upload_dir = upload_dir
        #: What decides every action this session sends; the driver sets it (see own_tabs).
        self.admission: Admission | None = None
        #: The run's own tabs: the one it started in and those it opened (never one it merely
        #: switched to). The only tabs it may switch to or close.
        self.tabs: set[int] = set()
        self.tab_id = tab_id
        #: The title of a tab group to open the run's tab in, in the background (a scheduled run, which
        #: must not take the user's active tab); None: the run's tab opens active, for the user to watch.
        self.background: str | None = None
        self.max_chars = max_chars
        self.screenshots = screenshots
        #: The ref generation of the last snapshot the run saw, which its refs come from.
        self.ref_generation: int | None = None
        #: The downloads of the run's tabs since it began: what its snapshots list and read_download may read.
        self.downloads = RunDownloads(time.time() * 1000)

    def options(self, screenshot: bool = False, occlusion: bool = True) -> SnapshotOptions:
        # A screenshot always comes with its thumbnail for the panel's timeline, made by the extension.
        return SnapshotOptions(tab_id=self.tab_id, max_chars=self.max_chars, screenshot=screenshot, thumbnail=screenshot,
                               occlusion=occlusion)

    async def own_tabs(self) -> set[int]:
        """The run's own tabs, as its admission reads them."""
        return set(self.tabs)

    async def open(self, admitted: Admitted) -> int:
        """Open the admitted new_tab's URL in a new tab (the gate judges it again), active unless the
        session runs in the background, wait for it to load, and continue there."""
        where = {"active": False, "group": self.background} if self.background else {}
        data = await self.bridge.request("tabs.open", {"url": admitted.action["url"], "gate": admitted.gate.model_dump(), **where},
                                         timeout=45.0)
        self.tab_id = int(data["tab_id"])
        self.tabs.add(self.tab_id)
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
        return self._with_downloads(snap)

    def _with_downloads(self, snap: Snapshot) -> Snapshot:
        """The snapshot as the run sees it: every download of its tabs, not only this tab's (nor one before the run)."""
        self.downloads.see(snap.downloads, self.tabs)
        return self.downloads.into(snap)

    async def admit_and_act(self, action: ActionModel, snap: Snapshot | None = None, **options: bool) -> ActionResult:
        """The host's own action (reading the page's text, a repair's settle wait or scroll), decided
        by the run's admission like any other; a refusal is raised (host.agent.admission.Refusal)."""
        if self.admission is None:
            raise RuntimeError("the session has no admission: its driver never set one")
        return await self.act(await self.admission.admit(action, snap), **options)

    async def act(self, admitted: Admitted, *, screenshot: bool = False, snapshot_after: bool = True) -> ActionResult:
        """Dispatch one admitted action; the result's tab becomes the session's tab."""
        # A confirm or prompt waits for the executor's answer_dialog (ask), as a person reads it first.
        request = ActRequest(tab_id=self.tab_id, action=admitted.action, ref_generation=self.ref_generation,
                             snapshot=self.options(screenshot) if snapshot_after else None, dialogs="ask")
        result = await act(self.bridge, admitted, request, upload_dir=self.upload_dir)
        if result.new_tab is not None:
            self.tabs.add(result.new_tab.tab_id)
        if result.tab_id is not None:
            self.tab_id = result.tab_id
        elif result.new_tab is not None:
            self.tab_id = result.new_tab.tab_id
        self.downloads.see(result.downloads, self.tabs)
        if result.snapshot is not None:
            self.ref_generation = result.snapshot.ref_generation
            result.snapshot = self._with_downloads(result.snapshot)
        elif self.tab_id != request.tab_id:
            self.ref_generation = None  # refs are per tab: another tab's are not checked against this one's
        return result

    async def release(self) -> None:
        """Detach the debugger when the run ends; a browser that is already gone is fine."""
        try:
            await detach_debugger(self.bridge, tabs=sorted(self.tabs))
        except BrowserError as exc:
            log.info("could not detach the debugger at run end: %s", exc.code)
