"""Trac and Wagtail as the `apps` suite runs them (installed from the package registry into their
own venvs, seeded, served on loopback): the seeded state the tasks start from, read from each
application's own database, and each application's own login. Whether every task passes with its
script and fails on the seed is tests/e2e/test_eval_apps.py's, for every app."""

from __future__ import annotations

import json
from typing import Any

import pytest

from waymark.eval.apps.base import AppError
from waymark.eval.apps.harness import query_rows
from waymark.eval.tasks import load_suite

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("app", ["trac", "wagtail"])
def test_the_app_has_at_least_six_tasks_some_logged_in_some_of_ten_actions(app: str):
    tasks = [task for task in load_suite("apps") if task.app == app]
    assert len(tasks) >= 6
    assert sum(task.login is not None for task in tasks) >= 3
    scripts = [json.loads(task.script_path().read_text(encoding="utf-8")) for task in tasks]
    assert max(len(script["steps"]) for script in scripts) >= 10


def test_trac_seed_holds_the_tickets_milestones_and_wiki_pages_the_tasks_start_from(app_states: Any):
    db = app_states.pristine["trac"] / "env" / "db" / "trac.db"
    assert query_rows(db, "SELECT id, summary, status FROM ticket WHERE id IN (1, 4, 5) ORDER BY id") == [
        [1, "Login page rejects passwords with spaces", "new"],
        [4, "Typo in the invoice footer", "new"],
        [5, "Nightly backup job fails on Sundays", "assigned"]]
    assert query_rows(db, "SELECT name FROM milestone ORDER BY name") == [["Release 1.0"], ["Release 1.1"], ["Release 1.2"]]
    assert query_rows(db, "SELECT name FROM component ORDER BY name") == [["backend"], ["reports"], ["web ui"]]
    assert query_rows(db, "SELECT name, version FROM wiki WHERE name IN ('ReleaseChecklist', 'TeamContacts') "
                          "ORDER BY name") == [["ReleaseChecklist", 1], ["TeamContacts", 1]]


def test_wagtail_seed_holds_live_pages_a_draft_and_the_author_snippets(app_states: Any):
    db = app_states.pristine["wagtail"] / "db.sqlite3"
    assert query_rows(db, "SELECT title, live FROM wagtailcore_page WHERE depth = 3 ORDER BY path") == [
        ["Opening hours", 1], ["About us", 1], ["Winter menu", 1], ["Spring menu", 1], ["Summer recipes", 0]]
    assert query_rows(db, "SELECT name FROM newsroom_author ORDER BY id") == [
        ["Ada Lovelace"], ["Grace Hopper"], ["Alan Turing"]]


async def test_trac_login_answers_the_basic_auth_challenge_in_the_page_s_own_browser(app_states: Any, page: Any):
    async with app_states.running("trac") as running:
        await running.app.login_steps(page, running.base_url, "ada")
        await page.goto(running.base_url + "/newticket")
        # Trac's own account line, and the Cc box it offers only to a signed-in user.
        assert "logged in as ada" in (await page.inner_text("#metanav")).lower()
        assert await page.get_by_role("checkbox", name="Add Cc: ada").count() == 1


async def test_trac_login_with_a_wrong_password_is_a_typed_error(app_states: Any, page: Any,
                                                                  monkeypatch: pytest.MonkeyPatch):
    async with app_states.running("trac") as running:
        monkeypatch.setattr(type(running.app), "users", {**running.app.users, "ada": "not-her-password"})
        with pytest.raises(AppError, match="logging in as 'ada' answered 401"):
            await running.app.login_steps(page, running.base_url, "ada")


async def test_wagtail_editor_signs_in_on_the_form_and_may_publish(app_states: Any, page: Any):
    async with app_states.running("wagtail") as running:
        await running.app.login_steps(page, running.base_url, "editor")
        await page.goto(running.base_url + "/admin/pages/6/edit/")
        # Wagtail's own action menu offers Publish, not only "Submit to Moderators approval".
        await page.get_by_role("button", name="More actions").click()
        assert await page.get_by_role("button", name="Publish", exact=True).count() == 1
