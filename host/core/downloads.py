"""The run's downloads: which files the agent may read. Only a download the extension recorded
for one of the run's own tabs, started after the run began, is the run's; `read_download` names
it by its id, never by a path, so neither the model nor a page can point the host at another file
(`~/.ssh/id_rsa`, a download the user made in another tab). The file is read where Chrome said it
landed, and only while it is still that regular file there."""

from __future__ import annotations

import os
from pathlib import Path

from waymark.host.core.documents import DocumentUnreadable, document_text
from waymark.host.core.refusals import Refused
from waymark.host.core.snapshot import Download, Snapshot

#: The largest downloaded file read (its text is cut to the read's budget afterwards).
MAX_FILE_BYTES = 32 * 1024 * 1024


class DownloadRefused(Refused):
    """A download `read_download` may not read, with an error code the model can act on."""


def download_line(d: Download) -> str:
    """One line of the snapshot text for a download (its name is the page's: shown quoted, on one line)."""
    name = " ".join(d.name.split())[:120] or "(no name yet)"
    state = d.state.replace("_", " ") + (f": {d.error}" if d.error else "")
    return f'download {d.id} "{name}" {d.mime or "unknown type"} {d.size} bytes ({state})'


class RunDownloads:
    """The downloads of one run's tabs, by id, as the extension last reported them."""

    def __init__(self, started_ms: float) -> None:
        #: When the run began (ms since the epoch): a download started before is not the run's.
        self.started_ms = started_ms
        self.by_id: dict[int, Download] = {}

    def see(self, downloads: list[Download], tabs: set[int]) -> None:
        """Take the extension's report: downloads of the run's tabs since it began, newest state kept."""
        for d in downloads:
            if d.tab_id in tabs and d.started >= self.started_ms:
                self.by_id[d.id] = d

    def listed(self) -> list[Download]:
        return sorted(self.by_id.values(), key=lambda d: d.id)

    def into(self, snap: Snapshot) -> Snapshot:
        """The snapshot with the run's downloads in place of the tab's, and their lines atop its text."""
        mine = self.listed()
        lines = "\n".join(download_line(d) for d in mine)
        text = f"{lines}\n{snap.text}" if lines else snap.text
        return snap.model_copy(update={"downloads": mine, "text": text})

    def read(self, download_id: int, max_chars: int) -> tuple[Download, str, bool]:
        """The text of one of the run's downloads, cut to `max_chars` (and whether it was cut);
        raises DownloadRefused (`unknown_download`, `download_not_complete`, `file_not_found`,
        `file_too_large`, `unreadable_file`)."""
        d = self.by_id.get(download_id)
        if d is None:
            known = ", ".join(str(i) for i in self.by_id) or "none"
            raise DownloadRefused("unknown_download", f"download {download_id} is not one this run made; its downloads: {known}")
        if d.state != "complete":
            raise DownloadRefused("download_not_complete", f"download {d.id} is {d.state.replace('_', ' ')}: wait until it is complete")
        path = Path(d.path)
        if not d.path or not path.is_absolute():
            raise DownloadRefused("file_not_found", f"Chrome has not said where download {d.id} landed")
        try:
            # The file Chrome wrote, not a link put in its place.
            if path.is_symlink() or not path.is_file():
                raise DownloadRefused("file_not_found", f"download {d.id}'s file is no longer at {path.name!r}")
            size = os.stat(path).st_size
            if size > MAX_FILE_BYTES:
                raise DownloadRefused("file_too_large", f"download {d.id} is {size} bytes; at most {MAX_FILE_BYTES} are read")
            data = path.read_bytes()
        except OSError as exc:
            raise DownloadRefused("file_not_found", f"download {d.id}'s file cannot be read ({exc.strerror})") from None
        try:
            text = document_text(data, d.mime, d.name)
        except DocumentUnreadable as exc:
            raise DownloadRefused("unreadable_file", f"download {d.id} ({d.name[:80]!r}): {exc}") from None
        return d, text[:max_chars], len(text) > max_chars
