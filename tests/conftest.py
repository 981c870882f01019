"""Shared fixtures: real Chromium with the real extension, the real host registered in the
test profile, and fixture pages served on two loopback ports (two origins)."""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, AsyncIterator, Iterator

import pytest
import pytest_asyncio

from tests.logging_site import RESOLVER_RULES, LoggingSite
from waymark.eval.sites.serve import SiteServer

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ARTIFACTS = ROOT / "test-artifacts"


# ------------------------------------------------------------------ isolation


@pytest.fixture(scope="session", autouse=True)
def isolated_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Host logs, config, secrets and traces of the whole test run go to a temporary folder."""
    base = tmp_path_factory.mktemp("waymark-state")
    saved = {k: os.environ.get(k) for k in ("WAYMARK_STATE_DIR", "WAYMARK_CONFIG_DIR", "WAYMARK_RUNS_DIR")}
    os.environ["WAYMARK_STATE_DIR"] = str(base / "state")
    os.environ["WAYMARK_CONFIG_DIR"] = str(base / "config")
    os.environ["WAYMARK_RUNS_DIR"] = str(base / "runs")
    yield base
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def saved_settings() -> Iterator[Any]:
    """Save settings as the user would in the side panel (`saved_settings({...})`, any subset);
    the settings of before come back at the test's end. The host reads them at each run."""
    from waymark.host.settings import settings_path, update_settings

    path = settings_path()
    before = path.read_bytes() if path.exists() else None
    yield update_settings
    if before is None:
        path.unlink(missing_ok=True)
    else:
        path.write_bytes(before)


# ------------------------------------------------------------------ fixture pages


@functools.lru_cache(maxsize=None)
def _serve(directory: str) -> tuple[str, str]:
    """Serve `directory` for the whole session; returns two base URLs of different origins."""
    server = SiteServer(Path(directory)).start()
    return server.site, server.other


@pytest.fixture(scope="session")
def site() -> tuple[str, str]:
    """Base URLs of tests/fixtures on two origins: (http://127.0.0.1:P1, http://localhost:P2)."""
    return _serve(str(FIXTURES))


@pytest.fixture(scope="session")
def site_url(site: tuple[str, str]) -> str:
    """Base URL of tests/fixtures on the first origin."""
    return site[0]


@pytest.fixture(scope="session")
def other_origin(site: tuple[str, str]) -> str:
    """Base URL of tests/fixtures on a second origin (for cross-origin iframes)."""
    return site[1]


@pytest.fixture
def attacker_site() -> Iterator[LoggingSite]:
    """A loopback "attacker" site at http://attacker.test:PORT that logs every request it gets
    (path, query, headers, body) in `.log`: a test asserts that nothing reached it."""
    site = LoggingSite("attacker").start()
    yield site
    site.stop()


@pytest.fixture
def allowed_site() -> Iterator[LoggingSite]:
    """A loopback site at http://allowed.test:PORT, serving the pages a test gives it (`.pages`,
    `.redirects`) and logging its requests: the site a run is allowed on."""
    site = LoggingSite("allowed").start()
    yield site
    site.stop()


@pytest.fixture(scope="module")
def reports_site() -> Iterator[Any]:
    """The loopback reports site of tests/reports_site.py (a CSV download, a PDF behind a cookie)."""
    from tests.reports_site import ReportsSite

    site = ReportsSite().start()
    yield site
    site.stop()


WIDGETS = Path(__file__).resolve().parent / "widgets"


@pytest.fixture(scope="session")
def widgets() -> str:
    """Base URL serving tests/widgets: the npm packages of widget libraries real sites use, installed
    exactly as the lockfile says when missing, so their own dist files are what pages load
    (`{widgets}/node_modules/jquery-ui/dist/jquery-ui.min.js`). Pages of a test go beside them in
    tests/widgets/pages/."""
    if not (WIDGETS / "node_modules" / ".package-lock.json").exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed for the widget-library tests (install Node.js)"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=WIDGETS, check=True, capture_output=True, timeout=600)
    return _serve(str(WIDGETS))[0]


#: Django's wheel, pinned by version and hash: its admin scripts are the authority for the admin's widgets.
DJANGO_WHEEL = ("django==5.2.19", "5965d974a5218a2b68a11dd1276434707f23886525c23f0598eccedaf4f4ca00")
DJANGO_ADMIN_JS = WIDGETS / "django" / "admin" / "js"


@pytest.fixture(scope="session")
def django_admin(widgets: str) -> str:
    """Base URL of tests/widgets with Django admin's own scripts beside it
    (`{widgets}/django/admin/js/SelectFilter2.js`), taken from the pinned Django wheel (fetched by
    pip when missing, checked against its hash), so admin widget tests run Django's code."""
    import hashlib
    import sys
    import tempfile
    import zipfile

    if not (DJANGO_ADMIN_JS / "SelectFilter2.js").exists():
        spec, digest = DJANGO_WHEEL
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps", "--only-binary=:all:", "-q", "-d", folder],
                           check=True, capture_output=True, timeout=600)
            wheel = next(Path(folder).glob("*.whl"))
            assert hashlib.sha256(wheel.read_bytes()).hexdigest() == digest, f"{wheel.name} is not the pinned Django wheel"
            prefix = "django/contrib/admin/static/admin/js/"
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    if name.startswith(prefix) and name.count("/") == prefix.count("/"):
                        DJANGO_ADMIN_JS.mkdir(parents=True, exist_ok=True)
                        (DJANGO_ADMIN_JS / name[len(prefix):]).write_bytes(archive.read(name))
    return widgets


@pytest.fixture(scope="session")
def app_states() -> Iterator[Any]:
    """Every app of the `apps` eval suite installed (pip, into ~/.cache/waymark/apps unless
    WAYMARK_APPS_CACHE says otherwise: a fresh CI machine installs them here) and seeded once;
    `app_states.pristine[name]` is the untouched state."""
    from waymark.eval.apps import APPS
    from waymark.eval.apps.harness import AppStates

    states = AppStates().prepare(APPS)
    yield states
    states.close()


# ------------------------------------------------------------------ browser


@pytest_asyncio.fixture(scope="session")
async def playwright_instance() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def test_extension(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension as tests load it: a copy whose worker installs `globalThis.waymark`."""
    from waymark.eval.sw_handle import diagnostic_extension

    return diagnostic_extension(tmp_path_factory.mktemp("extension"))


@pytest_asyncio.fixture(scope="session")
async def browser(playwright_instance: Any, tmp_path_factory: pytest.TempPathFactory, test_extension: Path) -> AsyncIterator[Any]:
    """One Chromium for the session with the extension's diagnostic build and the real host registered."""
    from waymark.host.launch import launch_browser

    profile = tmp_path_factory.mktemp("profile")
    launched = await launch_browser(playwright_instance, profile, host_env=_host_env(), extension=test_extension,
                                    extra_args=[RESOLVER_RULES], downloads_dir=tmp_path_factory.mktemp("downloads"))
    await wait_connected(launched.service_worker)
    yield launched
    await launched.close()


@pytest_asyncio.fixture(scope="module")
async def dpr2_browser(playwright_instance: Any, tmp_path_factory: pytest.TempPathFactory, test_extension: Path) -> AsyncIterator[Any]:
    """A second Chromium at device-pixel-ratio 2 (screenshots have two pixels per CSS pixel),
    for one test module: left running, it is a second browser for the MCP attach tests."""
    from waymark.host.launch import launch_browser

    profile = tmp_path_factory.mktemp("profile-dpr2")
    launched = await launch_browser(playwright_instance, profile, host_env=_host_env(), extension=test_extension,
                                    extra_args=["--force-device-scale-factor=2"])
    await wait_connected(launched.service_worker)
    yield launched
    await launched.close()


@pytest_asyncio.fixture
async def own_browser(playwright_instance: Any, tmp_path: Path, test_extension: Path) -> AsyncIterator[Any]:
    """A browser of this test's own, with the host registered: its worker may be stopped, its host killed."""
    from waymark.host.launch import launch_browser

    launched = await launch_browser(playwright_instance, tmp_path / "profile", host_env=_host_env(), extension=test_extension,
                                    downloads_dir=tmp_path / "downloads")
    await wait_connected(launched.service_worker)
    yield launched
    await launched.close()


def _host_env() -> dict[str, str]:
    return {k: os.environ[k] for k in ("WAYMARK_STATE_DIR", "WAYMARK_CONFIG_DIR", "WAYMARK_RUNS_DIR") if k in os.environ}


@pytest.fixture
def sw(browser: Any) -> Any:
    """The extension's service worker (evaluate code inside it)."""
    return browser.service_worker


@pytest_asyncio.fixture
async def page(browser: Any, request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A fresh page per test; on failure its screenshot is saved under test-artifacts/."""
    pg = await browser.context.new_page()
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        try:
            await pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        except Exception:
            pass
    await pg.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    rep = yield
    setattr(item, f"rep_{rep.when}", rep)
    return rep


def screenshot_jpeg(width: int, height: int) -> str:
    """A real base64 JPEG of this size, as captureVisibleTab makes them (computer-use tests read its size)."""
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (240, 240, 240)).save(buffer, format="JPEG", quality=60)
    return base64.b64encode(buffer.getvalue()).decode()


async def wait_connected(worker: Any, min_connects: int = 1, timeout_s: float = 20.0) -> dict:
    """Wait until the extension's native port has completed `min_connects` handshakes."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        state = await worker.evaluate("() => globalThis.waymark && globalThis.waymark.state()")
        if state and state["status"] == "connected" and state["connects"] >= min_connects:
            return state
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"extension never connected to the host: {state}")
        await asyncio.sleep(0.05)


@pytest.fixture
def host_process() -> Iterator[Any]:
    """A host started over pipes exactly as Chrome starts it."""
    from waymark.host.pipe_client import HostProcess

    with HostProcess() as proc:
        yield proc


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Everything under tests/e2e needs the browser."""
    for item in items:
        if "/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


def pytest_sessionstart(session: pytest.Session) -> None:
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS, ignore_errors=True)


@pytest_asyncio.fixture
async def serve() -> AsyncIterator[Any]:
    """Start loopback models (tests.reliability.fake_model) for a test; all are stopped at its end."""
    from tests.reliability.fake_model import FakeModel

    started: list[FakeModel] = []

    async def start(plan: list[dict[str, Any]], **options: Any) -> FakeModel:
        model = await FakeModel(plan=plan, **options).start()
        started.append(model)
        return model

    yield start
    for model in started:
        await model.stop()


class CountingSite:
    """tests/fixtures served on loopback by a server that keeps its own state, as a shop keeps a
    basket: each POST to a path adds one to that path's count and answers `{"count": n}` (a form's
    post is answered as shops answer it: a redirect back to the page it came from), and
    `GET /flaky/...` answers 503 the first time each path is asked for, then serves the file (a
    page that failed to load, then loads). Tests judge by `posts(path)`, the server's own count."""

    def __init__(self) -> None:
        import http.server
        import json
        import threading

        counts: dict[str, int] = {}
        asked: set[str] = set()
        lock = threading.Lock()

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, directory=str(FIXTURES), **kwargs)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
                pass

            def end_headers(self) -> None:
                self.send_header("Cache-Control", "no-store")
                super().end_headers()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    counts[self.path] = counts.get(self.path, 0) + 1
                    body = json.dumps({"count": counts[self.path]}).encode()
                if self.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
                    self.send_response(303)
                    self.send_header("Location", self.headers.get("referer") or "/")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.startswith("/flaky/"):
                    with lock:
                        first = self.path not in asked
                        asked.add(self.path)
                    if first:
                        self.send_error(503, "Service Unavailable")
                        return
                    self.path = self.path.removeprefix("/flaky")
                super().do_GET()

        self._counts, self._lock = counts, lock
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="counting-site", daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def posts(self, path: str) -> int:
        """How many POSTs the server took at `path`."""
        with self._lock:
            return self._counts.get(path, 0)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def counting_site() -> Iterator[CountingSite]:
    """A fresh CountingSite for one test (its counts start at zero)."""
    site = CountingSite()
    yield site
    site.close()
