"""The contract every real application of the `apps` eval suite keeps.

An app is an open-source web application installed from its package registry, seeded with
data, served on loopback, and judged by its own database. One class per app, registered by
name in `waymark.eval.apps.APPS`:

- class attributes `name: str` (the registry name tasks use in `"app"`) and `version: str`
  (the pinned release); `users: dict[str, str]`, login name -> password, for logged-in tasks.
- `install(cache: Path) -> None`: idempotent; a venv of the app's own under
  `cache / f"{name}-{version}"` with its pinned packages from pip, so the app's dependencies
  never touch Waymark's venv. `App.install` does exactly that for the `packages` an app lists.
- `seed(pristine: Path) -> None`: create the seeded state (the sqlite database and any files)
  in an empty folder; the harness runs it once per session.
- `start(state: Path, port: int) -> None`: serve on 127.0.0.1:port from `state` (a fresh copy
  of the pristine folder the harness made for this task) and return once it answers HTTP.
  `App.serve` starts a command and waits for that.
- `stop() -> None`: end what `start` started (`App.stop` does, for what `serve` started).
- `db_path(state: Path) -> Path`: the app's sqlite file inside a state folder.
- `login_steps(page, base_url, user)`: log `user` in through the app's own login form with
  Playwright, so a task with `"login"` starts logged in; the default fills `login_path`'s
  form (`login_fields`, `login_submit`) and fails when the page still shows the form.

A task is a JSON file under eval/suites/apps/ naming its `app`, `start_path`, `login` (a user
name or null) and `judge: {"sql": ..., "expect": [[...], ...]}`: the rows the query must return
on the app's own database after the run (eval/apps/harness.py runs it, read-only).
"""

from __future__ import annotations

import abc
import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, ClassVar

#: How long an app may take to answer its first request after it was started.
START_TIMEOUT_S = 60.0
#: How long one pip install of an app's packages may take.
INSTALL_TIMEOUT_S = 900.0


class AppError(RuntimeError):
    """An app could not be installed, seeded, started or logged into; the message says which and why."""


class App(abc.ABC):
    """One real application: how to install, seed, serve and log into it (see the module docstring)."""

    name: ClassVar[str]
    version: ClassVar[str]
    #: Login name -> password of the seeded users a task may log in as.
    users: ClassVar[dict[str, str]] = {}
    #: Pip requirements of the app's own venv, pinned (`install` installs exactly these).
    packages: ClassVar[tuple[str, ...]] = ()
    #: The app's login form: its path, the form's user and password fields and its submit button (CSS selectors).
    login_path: ClassVar[str] = "/login"
    login_fields: ClassVar[tuple[str, str]] = ('input[name="username"]', 'input[name="password"]')
    login_submit: ClassVar[str] = '[type="submit"]'

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._cache: Path | None = None

    # ---------------------------------------------------------------- install

    def venv(self, cache: Path) -> Path:
        """The app's own venv under the cache."""
        return cache / f"{self.name}-{self.version}"

    def python(self, cache: Path) -> Path:
        """The Python of the app's venv."""
        return self.venv(cache) / "bin" / "python"

    def install(self, cache: Path) -> None:
        """Create the app's venv with its pinned `packages` unless a finished install of exactly
        those is there already (a marker written last records them)."""
        venv = self.venv(cache)
        marker = venv / ".waymark-installed.json"
        wanted = sorted(self.packages)
        if marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == wanted:
            self._cache = cache
            return
        venv.parent.mkdir(parents=True, exist_ok=True)
        self._run([sys.executable, "-m", "venv", "--clear", str(venv)], "create the venv", timeout=300)
        self._run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *wanted],
                  f"pip install {' '.join(wanted)}", timeout=INSTALL_TIMEOUT_S)
        marker.write_text(json.dumps(wanted), encoding="utf-8")
        self._cache = cache

    def cached_python(self) -> Path:
        """The venv's Python once `install` ran."""
        if self._cache is None:
            raise AppError(f"{self.name}: install(cache) must run before the app is seeded or started")
        return self.python(self._cache)

    def _run(self, command: list[str], what: str, timeout: float = 600, env: dict[str, str] | None = None,
             cwd: Path | None = None) -> None:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
        if done.returncode != 0:
            raise AppError(f"{self.name}: could not {what} (exit {done.returncode}): {(done.stderr or done.stdout)[-2000:]}")

    # ---------------------------------------------------------------- state and serving

    @abc.abstractmethod
    def seed(self, pristine: Path) -> None:
        """Create the seeded state in the empty folder `pristine`."""

    @abc.abstractmethod
    def start(self, state: Path, port: int) -> None:
        """Serve on 127.0.0.1:`port` from the state folder `state`; return once it answers HTTP."""

    @abc.abstractmethod
    def db_path(self, state: Path) -> Path:
        """The app's sqlite database inside `state`."""

    def serve(self, command: list[str], port: int, log: Path, env: dict[str, str] | None = None, cwd: Path | None = None,
              ready_path: str = "/") -> None:
        """Start `command` (its output to `log`) and wait until 127.0.0.1:`port` answers `ready_path`
        with any HTTP status; a process that exits first, or a port silent past START_TIMEOUT_S, is an AppError."""
        if self._process is not None:
            raise AppError(f"{self.name}: already started; stop() it first")
        with log.open("ab") as out:
            self._process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                             env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        url = f"http://127.0.0.1:{port}{ready_path}"
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self._process = None
                raise AppError(f"{self.name} exited before it served {url}: {log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return
            except urllib.error.HTTPError:
                return  # it answered: a 302 to a login page or a 404 is an app that serves
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise AppError(f"{self.name} did not answer {url} within {START_TIMEOUT_S:.0f} s: {log.read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        """End the served process and everything it started (its own process group)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            process.wait(timeout=10)

    # ---------------------------------------------------------------- login

    async def login_steps(self, page: Any, base_url: str, user: str) -> None:
        """Log `user` in with the app's own login form, as a person would (Playwright fills and submits it)."""
        if user not in self.users:
            raise AppError(f"{self.name} has no seeded user {user!r}; known: {', '.join(sorted(self.users))}")
        await page.goto(base_url.rstrip("/") + self.login_path)
        name_field, password_field = self.login_fields
        await page.fill(name_field, user)
        await page.fill(password_field, self.users[user])
        async with page.expect_navigation():
            await page.click(self.login_submit)
        if await page.locator(password_field).count():
            raise AppError(f"{self.name}: logging in as {user!r} left the login form on {page.url}")
