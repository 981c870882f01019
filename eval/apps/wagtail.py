"""Wagtail (wagtail.org), the Django CMS, from PyPI: its own venv, the small site under
wagtail_site/ (a news page type with a Draftail body, a snippet chooser and a page chooser),
seeded by wagtail_site/seed.py and served by Django's runserver on loopback. Users sign in on
Wagtail's own login form. Judged on the site's SQLite database."""

from __future__ import annotations

import json
import os
from pathlib import Path

from waymark.eval.apps.base import App

SITE = Path(__file__).resolve().parent / "wagtail_site"


class Wagtail(App):
    name = "wagtail"
    version = "8.0.1"
    #: The whole closure, pinned (`pip freeze` after `pip install wagtail==8.0.1`).
    packages = (
        "wagtail==8.0.1", "django==5.2.19", "anyascii==0.3.3", "asgiref==3.13.0", "beautifulsoup4==4.15.0",
        "certifi==2026.10.19.post1", "charset-normalizer==3.5.3", "defusedxml==0.7.1", "django-filter==26.2",
        "django-modelcluster==6.5", "django-ninja==1.7.1", "django-permissionedforms==0.1",
        "django-stubs-ext==6.1.2", "django-taggit==6.1.0", "django-tasks==0.12.0", "django-treebeard==5.3.1",
        "djangorestframework==3.18.3", "draftjs-exporter==7.3.1", "et-xmlfile==2.0.0", "filetype==1.2.0",
        "idna==3.20", "laces==0.1.2", "modelsearch==1.3.2", "openpyxl==3.1.5", "pillow==13.0.0",
        "pillow-heif==1.8.1", "pydantic==2.14.4", "pydantic-core==2.50.5", "requests==2.34.2",
        "soupsieve==4.1.3", "sqlparse==0.6.1", "swapper==1.5.0", "telepath==0.3.1", "typing-inspection==0.4.5",
        "typing-extensions==4.16.0", "annotated-types==0.8.0", "urllib3==2.8.0", "willow==1.12.0",
    )
    #: admin is a superuser; editor is in Wagtail's own Moderators group (add, edit and publish pages).
    users = {"admin": "wagtail-admin-pw", "editor": "edith-wagtail"}
    login_path = "/admin/login/"

    def _env(self, state: Path) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(SITE), "DJANGO_SETTINGS_MODULE": "cms.settings",
                "WAYMARK_APP_STATE": str(state), "WAYMARK_APP_USERS": json.dumps(self.users)}

    def seed(self, pristine: Path) -> None:
        self._run([str(self.cached_python()), str(SITE / "seed.py")], "seed the Wagtail site", env=self._env(pristine),
                  cwd=pristine)

    def start(self, state: Path, port: int) -> None:
        command = [str(self.cached_python()), "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
        self.serve(command, port, state / "runserver.log", env=self._env(state), cwd=state, ready_path="/admin/login/")

    def db_path(self, state: Path) -> Path:
        return state / "db.sqlite3"
