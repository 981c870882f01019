"""Eval tasks are data: task files load into one validated model, selections and shards are exact."""

import json
from pathlib import Path

import pytest

from waymark.eval import miniwob
from waymark.eval.tasks import (
    SUITES_DIR,
    TaskError,
    load_suite,
    parse_shard,
    shard,
    suite_names,
)


def _write(root: Path, suite: str, name: str, data: dict) -> Path:
    folder = root / suite
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


SITE_TASK = {"kind": "e2e", "goal": "Sign in", "start_url": "{site}/login/index.html", "success": [{"url_contains": "account"}]}


def test_a_task_is_named_by_its_suite_and_file(tmp_path):
    _write(tmp_path, "sites", "login-basic", SITE_TASK)
    (task,) = load_suite("sites", root=tmp_path)
    assert task.id == "sites/login-basic"
    assert task.suite == "sites"


def test_start_url_placeholders_become_the_two_loopback_origins(tmp_path):
    _write(tmp_path, "sites", "pay", {**SITE_TASK, "start_url": "{site}/checkout/index.html?pay={other}"})
    (task,) = load_suite("sites", root=tmp_path)
    url = task.resolved_start_url("http://127.0.0.1:1", "http://localhost:2/")
    assert url == "http://127.0.0.1:1/checkout/index.html?pay=http://localhost:2"


def test_a_tasks_user_approves_their_own_step_whatever_its_ref_and_nothing_else(tmp_path):
    _write(tmp_path, "injection", "subscribe", {**SITE_TASK, "default_policy": True, "approve": ['click button "Subscribe"']})
    (task,) = load_suite("injection", root=tmp_path)
    assert task.approves('click [2] button "Subscribe"') and task.approves('click [14] button "Subscribe"')
    assert not task.approves('click [3] button "Delete my account"')
    assert not task.approves("navigate url='http://localhost:2/collect/?email=ada@example.com'")


def test_a_decision_task_without_an_expected_call_is_refused_naming_the_file(tmp_path):
    path = _write(tmp_path, "smoke", "bad", {"kind": "decision", "goal": "x", "snapshot": "s.json"})
    with pytest.raises(TaskError, match="bad.json"):
        load_suite("smoke", root=tmp_path)
    assert path.exists()


def test_an_e2e_task_without_success_predicates_or_reward_is_refused(tmp_path):
    _write(tmp_path, "sites", "vague", {"kind": "e2e", "goal": "do it", "start_url": "{site}/"})
    with pytest.raises(TaskError, match="success"):
        load_suite("sites", root=tmp_path)


def test_unknown_fields_in_a_task_file_are_refused(tmp_path):
    _write(tmp_path, "sites", "typo", {**SITE_TASK, "max_step": 3})
    with pytest.raises(TaskError, match="max_step"):
        load_suite("sites", root=tmp_path)


def test_an_unknown_suite_error_lists_the_known_suites(tmp_path):
    _write(tmp_path, "sites", "a", SITE_TASK)
    with pytest.raises(TaskError, match="known suites: sites"):
        load_suite("nope", root=tmp_path)


def test_tasks_glob_matches_the_name_or_the_id(tmp_path):
    for name in ("login-basic", "login-wrong", "feed-like"):
        _write(tmp_path, "sites", name, SITE_TASK)
    assert [t.id for t in load_suite("sites", "login-*", root=tmp_path)] == ["sites/login-basic", "sites/login-wrong"]
    assert [t.id for t in load_suite("sites", "sites/feed*", root=tmp_path)] == ["sites/feed-like"]
    with pytest.raises(TaskError, match="no task"):
        load_suite("sites", "zzz*", root=tmp_path)


def test_shards_split_the_tasks_into_disjoint_balanced_parts(tmp_path):
    for i in range(7):
        _write(tmp_path, "sites", f"t{i}", SITE_TASK)
    tasks = load_suite("sites", root=tmp_path)
    parts = [shard(tasks, i, 3) for i in (1, 2, 3)]
    ids = [t.id for part in parts for t in part]
    assert sorted(ids) == sorted(t.id for t in tasks)
    assert len(set(ids)) == len(ids)
    assert sorted(len(p) for p in parts) == [2, 2, 3]
    assert [t.id for t in shard(list(reversed(tasks)), 2, 3)] == [t.id for t in parts[1]]


def test_a_shard_must_be_i_of_n():
    assert parse_shard("2/4") == (2, 4)
    with pytest.raises(TaskError):
        parse_shard("5")
    with pytest.raises(TaskError):
        shard([], 3, 2)


def test_every_checked_in_task_file_is_valid_and_has_its_script():
    suites = suite_names(SUITES_DIR)
    assert {"smoke", "sites", "miniwob"} <= set(suites)
    for suite in suites:
        for task in load_suite(suite):
            if task.kind == "decision":
                assert task.snapshot_path().is_file(), task.id
            else:
                assert task.script_path() is not None and task.script_path().is_file(), f"{task.id} has no scripted script"


def test_every_miniwob_task_type_has_a_scripted_task_or_a_stated_reason_why_not():
    envs = {t.miniwob.env for t in load_suite("miniwob") if t.miniwob}
    assert set(miniwob.env_names()) - envs == set(miniwob.NOT_SCRIPTED)
    assert len(envs) >= 0.95 * len(miniwob.env_names())


def test_several_task_globs_select_the_tasks_any_of_them_match(tmp_path):
    for name in ("login-basic", "login-wrong", "feed-like"):
        _write(tmp_path, "sites", name, SITE_TASK)
    assert [t.id for t in load_suite("sites", ["login-basic", "feed*"], root=tmp_path)] == ["sites/feed-like", "sites/login-basic"]
    assert [t.id for t in load_suite("sites", "login-wrong,feed*", root=tmp_path)] == ["sites/feed-like", "sites/login-wrong"]
    with pytest.raises(TaskError, match="zzz"):
        load_suite("sites", ["login-basic", "zzz*"], root=tmp_path)


APP_TASK = {"kind": "e2e", "app": "django-admin", "goal": "Change the price", "start_path": "/admin/library/book/",
            "login": "admin", "judge": {"sql": "SELECT 1", "expect": [[1]]}}


def test_an_app_task_loads_with_its_app_start_path_login_and_judge(tmp_path):
    _write(tmp_path, "apps", "price", APP_TASK)
    (task,) = load_suite("apps", root=tmp_path)
    assert (task.app, task.start_path, task.login) == ("django-admin", "/admin/library/book/", "admin")
    assert task.judge is not None and task.judge.expect == [[1]]


def test_an_app_task_naming_an_unregistered_app_is_refused_with_the_known_apps(tmp_path):
    _write(tmp_path, "apps", "odd", {**APP_TASK, "app": "wordpress"})
    with pytest.raises(TaskError, match="unknown app 'wordpress'; known apps: .*django-admin"):
        load_suite("apps", root=tmp_path)


def test_an_app_task_logs_in_only_a_user_its_app_seeds(tmp_path):
    _write(tmp_path, "apps", "stranger", {**APP_TASK, "login": "root"})
    with pytest.raises(TaskError, match="no seeded user 'root'"):
        load_suite("apps", root=tmp_path)


def test_an_app_task_is_judged_by_its_query_alone(tmp_path):
    _write(tmp_path, "apps", "page-judged", {**APP_TASK, "success": [{"text_present": "was changed successfully"}]})
    with pytest.raises(TaskError, match="judge` query alone"):
        load_suite("apps", root=tmp_path)


def test_an_app_task_without_a_judge_is_refused(tmp_path):
    _write(tmp_path, "apps", "unjudged", {k: v for k, v in APP_TASK.items() if k != "judge"})
    with pytest.raises(TaskError, match="needs `start_path`, `judge`"):
        load_suite("apps", root=tmp_path)


def test_a_fixture_site_task_cannot_carry_an_app_judge(tmp_path):
    _write(tmp_path, "sites", "mixed", {**SITE_TASK, "judge": {"sql": "SELECT 1", "expect": [[1]]}})
    with pytest.raises(TaskError, match="belong to an app task"):
        load_suite("sites", root=tmp_path)
