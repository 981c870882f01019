"""Seeds the Wagtail site for the `apps` suite: run by eval/apps/wagtail.py with the Wagtail venv's
own Python, this folder on its path, WAYMARK_APP_STATE naming an empty state folder and
WAYMARK_APP_USERS the app class's users (JSON), so passwords are written in one place.

It makes the `newsroom` migrations there, migrates, and creates the users, the author snippets
and the pages (live ones, and one draft) that the tasks start from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import django
from django.core.management import call_command


def main(users: dict[str, str]) -> None:
    state = Path(os.environ["WAYMARK_APP_STATE"])
    package = state / "code" / "newsroom_migrations"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms.settings")
    django.setup()
    call_command("makemigrations", "newsroom", verbosity=0)
    call_command("migrate", verbosity=0)
    seed_content(users)


def seed_content(users: dict[str, str]) -> None:
    from django.contrib.auth.models import Group, User
    from newsroom.models import Author, NewsPage
    from wagtail.models import Page, Site

    User.objects.create_superuser("admin", "admin@example.com", users["admin"])
    editor = User.objects.create_user("editor", "editor@example.com", users["editor"],
                                      first_name="Edith", last_name="Editor")
    # Wagtail's own migrations make the Moderators group, allowed to add, edit and publish pages.
    editor.groups.add(Group.objects.get(name="Moderators"))

    authors = {name: Author.objects.create(name=name, role=role) for name, role in [
        ("Ada Lovelace", "Head baker"), ("Grace Hopper", "Pastry chef"), ("Alan Turing", "Bread apprentice")]}

    home = Site.objects.get(is_default_site=True).root_page
    home.title = home.draft_title = "Home"
    home.save_revision().publish()

    def add(title: str, intro: str, body: str, author: str | None = None, live: bool = True) -> Page:
        page = NewsPage(title=title, intro=intro, body=body, author=authors.get(author or ""), live=live)
        home.add_child(instance=page)
        revision = page.save_revision()
        if live:
            revision.publish()
        return page

    add("Opening hours", "When the bakery is open.",
        "<p>We are open Monday to Saturday, 8 am to 6 pm.</p>", "Ada Lovelace")
    add("About us", "Who bakes your bread.", "<p>A family bakery since 1984.</p>", "Ada Lovelace")
    add("Winter menu", "Soups and stollen.", "<p>Pumpkin soup, stollen and mulled apple juice.</p>", "Grace Hopper")
    add("Spring menu", "Rhubarb season.", "<p>Rhubarb tart and wild garlic bread.</p>")
    add("Summer recipes", "Draft: not published yet.", "<p>Strawberry shortcake.</p>", "Alan Turing", live=False)


if __name__ == "__main__":
    main(json.loads(os.environ["WAYMARK_APP_USERS"]))
