"""The apps suite's judge: a query on the app's own sqlite database, read-only, passing only on
exactly the expected rows and showing the rows it got otherwise; and the suite's own shape."""

import json
import sqlite3

import pytest

from waymark.eval.apps import APPS
from waymark.eval.apps.base import App, AppError
from waymark.eval.apps.harness import app_class, judge_rows
from waymark.eval.tasks import load_suite


@pytest.fixture
def books_db(tmp_path):
    db = tmp_path / "db.sqlite3"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE book (title TEXT, in_stock INTEGER)")
        connection.executemany("INSERT INTO book VALUES (?, ?)", [("Cosmos", 1), ("I, Robot", 0)])
    return db


def test_the_judge_passes_when_the_query_returns_exactly_the_expected_rows(books_db):
    passed, reason, details = judge_rows(books_db, "SELECT title FROM book WHERE in_stock = 0", [["I, Robot"]])
    assert passed, reason
    assert details["rows"] == [["I, Robot"]]


def test_the_judge_fails_showing_the_rows_the_query_returned(books_db):
    passed, reason, _ = judge_rows(books_db, "SELECT title FROM book ORDER BY title", [["Cosmos"]])
    assert not passed
    assert reason == 'the judge query returned [["Cosmos"], ["I, Robot"]], expected [["Cosmos"]]'


def test_the_judge_cannot_change_the_database_it_judges(books_db):
    passed, reason, _ = judge_rows(books_db, "DELETE FROM book", [])
    assert not passed and "readonly" in reason
    with sqlite3.connect(books_db) as connection:
        assert connection.execute("SELECT count(*) FROM book").fetchone() == (2,)


def test_a_judge_query_on_a_missing_database_is_an_app_error(tmp_path):
    with pytest.raises(AppError, match="no database"):
        judge_rows(tmp_path / "absent.sqlite3", "SELECT 1", [[1]])


def test_an_unknown_app_is_an_error_naming_the_known_ones():
    with pytest.raises(AppError, match="known apps: .*django-admin"):
        app_class("wordpress")


def test_every_registered_app_keeps_the_contract():
    for name, cls in APPS.items():
        assert issubclass(cls, App) and cls.name == name
        assert cls.version and cls.packages and all("==" in p for p in cls.packages), f"{name}: pin its packages"
        assert not getattr(cls, "__abstractmethods__", None), f"{name} leaves {cls.__abstractmethods__} abstract"


def _actions(task) -> int:
    return sum(1 for step in json.loads(task.script_path().read_text(encoding="utf-8"))["steps"] if step.get("action"))


def test_the_apps_suite_covers_every_app_with_logged_in_tasks_and_long_ones():
    tasks = load_suite("apps")
    assert {t.app for t in tasks} == set(APPS)
    assert sum(t.login is not None for t in tasks) >= 4
    assert sum(_actions(t) >= 10 for t in tasks) >= 2
