"""Real applications for the `apps` eval suite: the registry of app classes by name.

The contract an app keeps is in base.py; the harness (install once, seed once per session, a fresh
copy of the state per task, the judge query on the app's own database) is harness.py."""

from __future__ import annotations

from waymark.eval.apps.base import App
from waymark.eval.apps.django_admin import DjangoAdmin
from waymark.eval.apps.trac import Trac
from waymark.eval.apps.wagtail import Wagtail

#: Registry name (a task's `"app"`) -> app class.
APPS: dict[str, type[App]] = {cls.name: cls for cls in (DjangoAdmin, Trac, Wagtail)}
