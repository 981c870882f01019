"""Trac and Wagtail as the `apps` suite runs them: installed from the package registry into their
own venvs, seeded, served on loopback. The authority is each application's own database (read by
the tasks' judge queries) and its own login; nothing here is a fake of either."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

from waymark.eval.apps.base import AppError
from waymark.eval.apps.harness import AppStates, app_class, judge_rows, query_rows
from waymark.eval.tasks import load_suite

pytestmark = pytest.mark.e2e

APPS = ("trac", "wagtail")


@pytest.fixture(scope="module")
def states() -> Iterator[AppStates]:
    """Both apps installed (once, in the shared cache) and seeded for this module."""
    prepared = AppStates().prepare(APPS)
    yield prepared
    prepared.close()


def _tasks(app: str) -> list[Any]:
    return [task for task in load_suite("apps") if task.app == app]


@pytest.mark.parametrize("app", APPS)
def test_the_app_has_at_least_six_tasks_each_with_a_scripted_solution(app: str):
    tasks = _tasks(app)
    assert len(tasks) >= 6
    assert all(task.script_path() is not None and task.script_path().is_file() for task in tasks)


@pytest.mark.parametrize("app", APPS)
def test_every_task_of_the_app_fails_on_the_untouched_seed(states: AppStates, app: str):
    state = states.fresh_state(app)
    db = app_class(app)().db_path(state)
    verdicts = {task.id: judge_rows(db, task.judge.sql, task.judge.expect) for task in _tasks(app)}
    assert {task_id: passed for task_id, (passed, _, _) in verdicts.items() if passed} == {}
    # Every query ran: a judge broken by a typo would "fail on the seed" too, and forever after.
    assert all("failed on the app's database" not in reason for _, reason, _ in verdicts.values())


def test_trac_seed_holds_the_tickets_milestones_and_wiki_pages_the_tasks_start_from(states: AppStates):
    db = states.pristine["trac"] / "env" / "db" / "trac.db"
    assert query_rows(db, "SELECT id, summary, status FROM ticket WHERE id IN (1, 4, 5) ORDER BY id") == [
        [1, "Login page rejects passwords with spaces", "new"],
        [4, "Typo in the invoice footer", "new"],
        [5, "Nightly backup job fails on Sundays", "assigned"]]
    assert query_rows(db, "SELECT name FROM milestone ORDER BY name") == [["Release 1.0"], ["Release 1.1"], ["Release 1.2"]]
    assert query_rows(db, "SELECT name FROM component ORDER BY name") == [["backend"], ["reports"], ["web ui"]]
    assert query_rows(db, "SELECT name, version FROM wiki WHERE name IN ('ReleaseChecklist', 'TeamContacts') "
                          "ORDER BY name") == [["ReleaseChecklist", 1], ["TeamContacts", 1]]


def test_wagtail_seed_holds_live_pages_a_draft_and_the_author_snippets(states: AppStates):
    db = states.pristine["wagtail"] / "db.sqlite3"
    assert query_rows(db, "SELECT title, live FROM wagtailcore_page WHERE depth = 3 ORDER BY path") == [
        ["Opening hours", 1], ["About us", 1], ["Winter menu", 1], ["Spring menu", 1], ["Summer recipes", 0]]
    assert query_rows(db, "SELECT name FROM newsroom_author ORDER BY id") == [
        ["Ada Lovelace"], ["Grace Hopper"], ["Alan Turing"]]


def test_a_task_state_is_a_fresh_copy_so_one_task_never_sees_another_s_changes(states: AppStates):
    first = states.fresh_state("trac")
    with sqlite3.connect(first / "env" / "db" / "trac.db") as db:
        db.execute("UPDATE ticket SET status = 'closed' WHERE id = 4")
    second = states.fresh_state("trac")
    assert query_rows(second / "env" / "db" / "trac.db", "SELECT status FROM ticket WHERE id = 4") == [["new"]]


async def test_trac_login_answers_the_basic_auth_challenge_in_the_page_s_own_browser(states: AppStates, page: Any):
    async with states.running("trac") as running:
        await running.app.login_steps(page, running.base_url, "ada")
        await page.goto(running.base_url + "/newticket")
        # Trac's own account line, and the Cc box it offers only to a signed-in user.
        assert "logged in as ada" in (await page.inner_text("#metanav")).lower()
        assert await page.get_by_label("Add Cc: ada").count() == 1


async def test_trac_login_with_a_wrong_password_is_a_typed_error(states: AppStates, page: Any,
                                                                  monkeypatch: pytest.MonkeyPatch):
    async with states.running("trac") as running:
        monkeypatch.setattr(type(running.app), "users", {**running.app.users, "ada": "not-her-password"})
        with pytest.raises(AppError, match="logging in as 'ada' answered 401"):
            await running.app.login_steps(page, running.base_url, "ada")


async def test_wagtail_login_form_signs_the_editor_in(states: AppStates, page: Any):
    async with states.running("wagtail") as running:
        await running.app.login_steps(page, running.base_url, "editor")
        await page.goto(running.base_url + "/admin/pages/6/edit/")
        # The editor may publish: Wagtail's own action menu offers Publish, not "Submit for moderation".
        await page.get_by_role("button", name="More actions").click()
        assert await page.get_by_role("button", name="Publish").count() == 1
    assert not Path(running.state).exists()
