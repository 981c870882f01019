"""Launching Chromium with the real unpacked extension and the real host registered in its
profile: the one way the CLI, the eval harness, the benchmarks and the tests start a browser."""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waymark.host.extension import extension_dir, extension_id
from waymark.host.registration import register_profile

log = logging.getLogger(__name__)

#: Flags every launch needs on these machines: no sandbox as root, and no background
#: networking (without them Chromium floods a closed network with refused connections).
BASE_FLAGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--silent-debugger-extension-api",
    "--disable-features=DialMediaRouteProvider",
]


class LaunchError(RuntimeError):
    """The browser could not be started; the message says why in the user's words and what to do."""


class ChromiumNotFound(LaunchError):
    """No Chromium-family executable could be found."""


#: Where each platform installs the browsers that load an unpacked extension from the command
#: line, most suitable first. Branded Google Chrome comes last: from version 137 it ignores
#: `--load-extension`, so it is used only when nothing else is installed, with a warning.
_CANDIDATES: dict[str, list[str]] = {
    "linux": ["/usr/bin/chromium", "chromium", "chromium-browser", "microsoft-edge", "brave-browser", "google-chrome",
              "google-chrome-stable"],
    "darwin": ["/Applications/Chromium.app/Contents/MacOS/Chromium",
               "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
               "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
               "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
               "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"],
    "win32": [r"%LOCALAPPDATA%\Chromium\Application\chrome.exe",
              r"%ProgramFiles(x86)%\Microsoft\Edge\Application\msedge.exe",
              r"%ProgramFiles%\BraveSoftware\Brave-Browser\Application\brave.exe",
              r"%ProgramFiles%\Google\Chrome\Application\chrome.exe"],
}
_INSTALL_HINT = {
    "linux": "install Chromium (Debian/Ubuntu: `sudo apt install chromium`)",
    "darwin": "install Chromium or Chrome for Testing into /Applications",
    "win32": "install Chromium or Microsoft Edge",
}


def _platform() -> str:
    return "darwin" if sys.platform == "darwin" else "win32" if sys.platform.startswith("win") else "linux"


def _is_branded_chrome(path: str) -> bool:
    name = Path(path).name.lower()
    return name in ("google-chrome", "google-chrome-stable", "google chrome") or (name == "chrome.exe" and "google" in path.lower())


def chromium_path() -> str:
    """The browser to launch: $WAYMARK_CHROMIUM, else the first browser of this platform's list
    that loads unpacked extensions (see _CANDIDATES)."""
    override = os.environ.get("WAYMARK_CHROMIUM")
    if override:
        if not (Path(override).is_file() or shutil.which(override)):
            raise ChromiumNotFound(f"WAYMARK_CHROMIUM names {override}, which does not exist: point it at a Chromium "
                                   "executable, or unset it to let Waymark find one")
        return override
    platform = _platform()
    for candidate in _CANDIDATES[platform]:
        found = shutil.which(os.path.expandvars(candidate))
        if found:
            if _is_branded_chrome(found):
                log.warning("only Google Chrome was found (%s): from version 137 it ignores --load-extension, so the "
                            "extension may not load; install Chromium or set WAYMARK_CHROMIUM", found)
            return found
    raise ChromiumNotFound(f"no Chromium-family browser found: {_INSTALL_HINT[platform]}, or set WAYMARK_CHROMIUM to "
                           "its executable (Google Chrome 137+ ignores unpacked extensions given on the command line)")


def _check_display(headless: bool) -> None:
    """A headed browser on Linux needs a graphical session; say so before Chromium dies of it."""
    if not headless and _platform() == "linux" and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise LaunchError("no display: a visible browser (--headed) needs a graphical session, and DISPLAY is not set; "
                          "run without --headed, or under xvfb-run")


@dataclass
class LaunchedBrowser:
    """A running persistent context with the extension loaded."""

    context: Any  # playwright.async_api.BrowserContext
    service_worker: Any  # playwright.async_api.Worker
    profile_dir: Path
    extension_id: str
    #: The download folder chosen for the profile (None: the browser's own default).
    downloads_dir: Path | None = None

    async def close(self) -> None:
        await self.context.close()


async def launch_browser(
    playwright: Any,
    profile_dir: Path,
    *,
    headless: bool = True,
    viewport: tuple[int, int] = (1280, 800),
    host_env: dict[str, str] | None = None,
    extra_args: list[str] | None = None,
    extension: Path | None = None,
    downloads_dir: Path | None = None,
) -> LaunchedBrowser:
    """Register the host into `profile_dir`, launch Chromium with the extension, find its worker.

    `extension` loads another copy of the extension (the tests' diagnostic build) instead of
    the checkout's folder; it must keep the manifest's key so the ID stays the same.
    """
    _check_display(headless)
    executable = chromium_path()
    profile_dir.mkdir(parents=True, exist_ok=True)
    register_profile(profile_dir, env=host_env)
    if downloads_dir is not None:
        choose_download_folder(profile_dir, downloads_dir)
    ext = str(extension or extension_dir())
    width, height = viewport
    context = await playwright.chromium.launch_persistent_context(
        str(profile_dir),
        executable_path=executable,
        headless=headless,
        viewport={"width": width, "height": height},
        ignore_default_args=["--disable-extensions"],
        args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}", *BASE_FLAGS, *(extra_args or [])],
    )
    # Playwright dismisses a dialog itself unless someone listens for it, racing the extension's
    # answer; a listener that does nothing leaves every dialog to its one owner, the extension.
    context.on("dialog", _leave_to_extension)
    await _leave_downloads_to_browser(context)
    ext_id = extension_id()
    worker = await find_service_worker(context, ext_id)
    return LaunchedBrowser(context=context, service_worker=worker, profile_dir=profile_dir, extension_id=ext_id, downloads_dir=downloads_dir)


def choose_download_folder(profile_dir: Path, folder: Path) -> None:
    """Set the profile's download folder as Chrome's own Settings page does (its Preferences file),
    so downloads land there as they would in the user's own Chrome with that setting."""
    folder.mkdir(parents=True, exist_ok=True)
    prefs_file = profile_dir / "Default" / "Preferences"
    prefs_file.parent.mkdir(parents=True, exist_ok=True)
    try:
        prefs = json.loads(prefs_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        prefs = {}
    prefs.setdefault("download", {}).update({"default_directory": str(folder.resolve()), "prompt_for_download": False})
    prefs_file.write_text(json.dumps(prefs), encoding="utf-8")


async def _leave_downloads_to_browser(context: Any) -> None:
    """Playwright takes every download over (saved under a random name in its own temporary folder)
    unless told otherwise; given back to the browser's default, downloads land where the
    profile's settings say and Chrome's downloads API, which the extension reads, reports them
    as in the user's own Chrome (docs/perception.md, Downloads)."""
    if context.browser is None:
        return
    session = await context.browser.new_browser_cdp_session()
    try:
        await session.send("Browser.setDownloadBehavior", {"behavior": "default"})
    finally:
        await session.detach()


def _leave_to_extension(dialog: Any) -> None:
    """Playwright's dialog listener: the extension answers (docs/dispatch.md, JavaScript dialogs)."""


async def find_service_worker(context: Any, ext_id: str, timeout_ms: float = 15000) -> Any:
    """The extension's service worker in `context`, waiting for it if it has not started yet."""
    prefix = f"chrome-extension://{ext_id}/"
    for worker in context.service_workers:
        if worker.url.startswith(prefix):
            return worker
    return await context.wait_for_event("serviceworker", predicate=lambda w: w.url.startswith(prefix), timeout=timeout_ms)
