"""Django's admin on a small catalogue project of our own (eval/apps/django_site/): authors, books
with their chapters inline, plus Django's own users, groups and permissions, seeded by
django_site/seed.py. Django comes from the package registry, pinned; the project runs in the
app's venv with the state folder given by WAYMARK_APP_STATE."""

from __future__ import annotations

import json
import os
from pathlib import Path

from waymark.eval.apps.base import App

SITE = Path(__file__).resolve().parent / "django_site"


class DjangoAdmin(App):
    name = "django-admin"
    version = "5.2.19"
    packages = ("django==5.2.19",)
    users = {"admin": "ledger-admin-7", "editor": "quill-and-ink-2", "mallory": "left-in-june-3"}
    login_path = "/admin/login/"

    def _env(self, state: Path) -> dict[str, str]:
        return {"DJANGO_SETTINGS_MODULE": "waymark_site.settings", "PYTHONPATH": str(SITE),
                "WAYMARK_APP_STATE": str(state), "WAYMARK_APP_USERS": json.dumps(self.users)}

    def seed(self, pristine: Path) -> None:
        python = str(self.cached_python())
        env = {**os.environ, **self._env(pristine)}
        self._run([python, "-m", "django", "migrate", "--run-syncdb", "-v", "0"], "create the database", env=env, cwd=pristine)
        self._run([python, str(SITE / "seed.py")], "seed the catalogue", env=env, cwd=pristine)

    def start(self, state: Path, port: int) -> None:
        command = [str(self.cached_python()), "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
        self.serve(command, port, state / "server.log", env=self._env(state), cwd=state, ready_path="/admin/login/")

    def db_path(self, state: Path) -> Path:
        return state / "db.sqlite3"
