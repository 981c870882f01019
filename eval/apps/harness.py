"""The `apps` suite's harness: each app installed once into the cache, seeded once per session
into a pristine folder, and run per task from a fresh copy of that folder on a free loopback
port; a task is judged by its query on the app's own database, never by the page or the agent.

The cache is WAYMARK_APPS_CACHE, else ~/.cache/waymark/apps (CI's machine installs there on its
first run; an install is kept while its pinned packages stay the same).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Iterable

from waymark.eval.apps import APPS
from waymark.eval.apps.base import App, AppError


def cache_dir() -> Path:
    """Where app venvs are kept between runs."""
    configured = os.environ.get("WAYMARK_APPS_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "waymark" / "apps"


def app_class(name: str) -> type[App]:
    """The registered app called `name`; an AppError names the known ones."""
    try:
        return APPS[name]
    except KeyError:
        raise AppError(f"unknown app {name!r}; known apps: {', '.join(sorted(APPS))}") from None


def query_rows(db: Path, sql: str) -> list[list[Any]]:
    """The rows `sql` returns on the sqlite file `db`, opened read-only (a judge cannot change what it judges)."""
    if not db.is_file():
        raise AppError(f"no database at {db}")
    with contextlib.closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as connection:
        return [list(row) for row in connection.execute(sql).fetchall()]


def judge_rows(db: Path, sql: str, expect: list[list[Any]]) -> tuple[bool, str, dict[str, Any]]:
    """Pass when the query returns exactly the expected rows (order included); the reason shows the
    rows it returned instead."""
    try:
        rows = query_rows(db, sql)
    except sqlite3.Error as exc:
        return False, f"the judge query failed on the app's database: {exc}", {"sql": sql, "expect": expect}
    details = {"sql": sql, "rows": rows, "expect": expect}
    if rows == expect:
        return True, "the app's database holds the expected rows", details
    return False, f"the judge query returned {json.dumps(rows)}, expected {json.dumps(expect)}", details


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningApp:
    """One app serving one task's fresh state."""

    app: App
    state: Path
    base_url: str

    def judge(self, sql: str, expect: list[list[Any]]) -> tuple[bool, str, dict[str, Any]]:
        """Stop the app (every request it was handling has ended) and judge its database."""
        self.app.stop()
        return judge_rows(self.app.db_path(self.state), sql, expect)


class AppStates:
    """Installed apps and their pristine states for one session; `running(name)` serves a fresh copy."""

    def __init__(self, cache: Path | None = None) -> None:
        self.cache = cache or cache_dir()
        self.root = Path(tempfile.mkdtemp(prefix="waymark-apps-"))
        self.pristine: dict[str, Path] = {}

    def prepare(self, names: Iterable[str]) -> "AppStates":
        """Install each app (idempotent) and seed its pristine state, once."""
        for name in sorted(set(names) - set(self.pristine)):
            app = app_class(name)()
            app.install(self.cache)
            pristine = self.root / name / "pristine"
            pristine.mkdir(parents=True)
            app.seed(pristine)
            self.pristine[name] = pristine
        return self

    def fresh_state(self, name: str) -> Path:
        """A new copy of `name`'s pristine state."""
        if name not in self.pristine:
            raise AppError(f"{name} was not prepared")
        state = Path(tempfile.mkdtemp(prefix="state-", dir=self.root / name))
        shutil.copytree(self.pristine[name], state, dirs_exist_ok=True)
        return state

    @contextlib.asynccontextmanager
    async def running(self, name: str) -> AsyncIterator[RunningApp]:
        """`name` serving a fresh copy of its pristine state on a free port, stopped and removed after."""
        app = app_class(name)()
        app.install(self.cache)
        state = self.fresh_state(name)
        port = free_port()
        try:
            await asyncio.to_thread(app.start, state, port)
            yield RunningApp(app, state, f"http://127.0.0.1:{port}")
        finally:
            await asyncio.to_thread(app.stop)
            shutil.rmtree(state, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
