"""The `apps` eval suite end to end: real applications installed from the package registry,
seeded, served on loopback from a fresh copy of their state per task, driven through the real
extension and host, and judged only by a query on the application's own database.

The authority is each application's database: what its own code wrote after the run."""

import json
from pathlib import Path

import pytest
import pytest_asyncio

from waymark.eval.apps import APPS
from waymark.eval.apps.harness import judge_rows
from waymark.eval.report import read_rows
from waymark.eval.runner import RunConfig, run_suite
from waymark.eval.tasks import load_suite
from waymark.providers.spec import ModelSpec

SCRIPTED = ModelSpec.make("scripted", "scripted")


def test_every_apps_task_fails_on_the_untouched_seed(app_states):
    # No task may pass vacuously: its judge must see something the run has to change.
    vacuous = []
    for task in load_suite("apps"):
        assert task.app is not None and task.judge is not None
        db = APPS[task.app]().db_path(app_states.pristine[task.app])
        passed, _, details = judge_rows(db, task.judge.sql, task.judge.expect)
        if passed or "rows" not in details:
            vacuous.append(f"{task.id}: {details}")
    assert vacuous == []


# Every real-application task (Django admin, Trac, Wagtail) plus the installs (first run) and the seeds:
# about 15 minutes on a loaded machine.
@pytest.mark.timeout(2400)
async def test_scripted_run_passes_the_apps_suite(tmp_path, app_states):
    config = RunConfig(suite="apps", executor=SCRIPTED, out=tmp_path / "apps.jsonl", workers=2, app_states=app_states)
    summary = await run_suite(config)
    rows = read_rows(config.out)
    assert summary.tasks == len(load_suite("apps"))
    assert [f"{r.task}: {r.reason}" for r in rows if r.verdict != "pass"] == []


DELETE = "apps/delete-anonymous-author.json"
PRICE = "apps/cosmos-price.json"


def _custom_suite(root: Path, tasks: dict[str, tuple[str, dict | None]]) -> Path:
    """A suite under `root` of copies of checked-in apps tasks: name -> (the task file under
    eval/suites/, a script replacing its own or None)."""
    from waymark.eval.tasks import SUITES_DIR

    folder = root / "suites" / "custom"
    folder.mkdir(parents=True)
    for name, (source, script) in tasks.items():
        task = json.loads((SUITES_DIR / source).read_text(encoding="utf-8"))
        if script is not None:
            path = root / f"{name}-script.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            task["script"] = str(path)
        (folder / f"{name}.json").write_text(json.dumps(task), encoding="utf-8")
    return root / "suites"


@pytest_asyncio.fixture(scope="module")
async def custom_rows(tmp_path_factory, app_states):
    """One run of: the same deletion twice, and the price task left unsaved."""
    root = tmp_path_factory.mktemp("apps-custom")
    unsaved = {"steps": [{"intent": "Open Cosmos", "action": {"type": "click", "target": {"role": "link", "name": "Cosmos"}},
                          "verify": [{"url_contains": "/change/"}]}]}
    suites = _custom_suite(root, {"delete-first": (DELETE, None), "delete-again": (DELETE, None), "price-unsaved": (PRICE, unsaved)})
    config = RunConfig(suite="custom", executor=SCRIPTED, out=root / "custom.jsonl", suites_dir=suites,
                       app_states=app_states)
    await run_suite(config)
    return {r.task.split("/", 1)[1]: r for r in read_rows(config.out)}


@pytest.mark.timeout(600)
def test_each_app_task_starts_from_the_pristine_state(custom_rows):
    # The second deletion finds the author the first one deleted: only a fresh state has it again.
    assert custom_rows["delete-first"].verdict == "pass", custom_rows["delete-first"].reason
    assert custom_rows["delete-again"].verdict == "pass", custom_rows["delete-again"].reason


@pytest.mark.timeout(600)
def test_an_app_task_whose_database_did_not_change_fails_showing_the_rows_it_holds(custom_rows):
    row = custom_rows["price-unsaved"]
    # The agent's own run succeeded (its one step was proven); the database says otherwise.
    assert row.agent_success is True
    assert row.verdict == "fail"
    assert row.reason.startswith('the judge query returned [["Cosmos", "16.00"]], expected [["Cosmos", "18.50"]]')
    assert row.details["rows"] == [["Cosmos", "16.00"]]
