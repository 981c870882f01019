"""The MiniWoB++ split: a fixed rule puts every task type in the tuning or the held-out half,
and a run selects a half and a number of seeds per type."""

import hashlib
import json
from pathlib import Path

import pytest

from waymark.eval.runner import RunConfig, RunnerError
from waymark.eval.split import half_of, select_half, task_half, with_seeds
from waymark.eval.tasks import TaskError, load_suite
from waymark.providers.spec import ModelSpec

SCRIPTED = ModelSpec.parse("scripted:script")


def _miniwob_suite(root: Path, envs: list[str], seed: int = 3) -> None:
    folder = root / "miniwob"
    folder.mkdir(parents=True)
    for env in envs:
        (folder / f"{env}.json").write_text(json.dumps({"kind": "e2e", "miniwob": {"env": env, "seed": seed}}), encoding="utf-8")


def test_the_half_of_a_type_is_the_parity_of_its_names_sha256_first_byte():
    for env in ("click-button", "enter-text", "book-flight"):
        even = hashlib.sha256(env.encode()).digest()[0] % 2 == 0
        assert half_of(env) == ("tuning" if even else "heldout")


def test_the_split_of_the_checked_in_types_is_about_half_each_and_stable():
    envs = [t.miniwob.env for t in load_suite("miniwob") if t.miniwob]
    tuning = [e for e in envs if half_of(e) == "tuning"]
    assert 0.35 * len(envs) <= len(tuning) <= 0.65 * len(envs)
    assert [half_of(e) for e in envs] == [half_of(e) for e in envs]


def test_a_half_selects_only_its_miniwob_types(tmp_path):
    envs = ["click-button", "enter-text", "book-flight", "click-tab", "choose-list", "drag-box"]
    _miniwob_suite(tmp_path, envs)
    tasks = load_suite("miniwob", root=tmp_path)
    tuning, heldout = select_half(tasks, "tuning"), select_half(tasks, "heldout")
    assert {t.miniwob.env for t in tuning} == {e for e in envs if half_of(e) == "tuning"}
    assert {t.miniwob.env for t in heldout} == {e for e in envs if half_of(e) == "heldout"}
    assert select_half(tasks, None) == tasks


def test_a_half_of_a_suite_without_miniwob_types_is_refused(tmp_path):
    folder = tmp_path / "sites"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps({"kind": "e2e", "goal": "g", "start_url": "{site}/", "success": [{"url_changed": True}]}))
    with pytest.raises(TaskError, match="MiniWoB"):
        select_half(load_suite("sites", root=tmp_path), "tuning")


def test_seeds_start_at_the_tasks_own_seed_and_run_every_type_before_any_second_seed(tmp_path):
    _miniwob_suite(tmp_path, ["click-button", "enter-text", "drag-box"], seed=3)
    runs = with_seeds(load_suite("miniwob", root=tmp_path), 2)
    assert len(runs) == 6
    assert [t.miniwob.seed for t in runs] == [3, 3, 3, 4, 4, 4]
    assert [t.id for t in runs[:3]] == [t.id for t in runs[3:]]


def test_zero_seeds_are_refused(tmp_path):
    _miniwob_suite(tmp_path, ["click-button"])
    with pytest.raises(TaskError, match="seeds"):
        with_seeds(load_suite("miniwob", root=tmp_path), 0)


def test_a_run_selects_its_half_and_seeds_and_rows_name_them(tmp_path):
    envs = ["click-button", "enter-text", "book-flight", "click-tab"]
    _miniwob_suite(tmp_path, envs)
    config = RunConfig.from_cli(suite="miniwob", specs=(SCRIPTED, SCRIPTED), tasks=None, workers=1, shard=None,
                                out=tmp_path / "r.jsonl", half="heldout", seeds=3)
    config.suites_dir = tmp_path
    selected = config.select()
    assert len(selected) == 3 * sum(half_of(e) == "heldout" for e in envs)
    assert {task_half(t) for t in selected} == {"heldout"}


def test_a_run_refuses_an_unknown_half_and_a_budget_of_no_time(tmp_path):
    with pytest.raises(RunnerError, match="half"):
        RunConfig.from_cli(suite="miniwob", specs=(SCRIPTED, SCRIPTED), tasks=None, workers=1, shard=None, out=tmp_path / "r", half="x")
    with pytest.raises(RunnerError, match="budget"):
        RunConfig.from_cli(suite="miniwob", specs=(SCRIPTED, SCRIPTED), tasks=None, workers=1, shard=None, out=tmp_path / "r",
                           budget_minutes=0)
