"""A workflow of a task that asks something (`waymark workflow run` as a user runs it): the saved
run's answer is read again on the replay's page, where the run found it, with no model call; a
value that changed since is read as the page writes it today; one the page no longer shows fails
the replay, naming the value, never a stale answer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from waymark.eval.sites.serve import SITES_DIR, SiteServer

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
TASK_FILE = json.loads((ROOT / "eval" / "suites" / "sites" / "orders-total-number.json").read_text())
ROW = '<tr><td>PX-1042</td><td>9 March 2026</td><td>3</td><td class="num">€ 1,249.00</td><td>Delivered</td></tr>'


def waymark(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          env=dict(os.environ))


def _orders_copy(folder: Path, old: str = "", new: str = "") -> Path:
    shutil.copytree(SITES_DIR / "orders", folder / "orders")
    page = folder / "orders" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert old in html
    page.write_text(html.replace(old, new), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The orders page as recorded, with the order's total changed since, and without the order."""
    base = tmp_path_factory.mktemp("answer-sites")
    variants = {"recorded": _orders_copy(base / "recorded"),
                "repriced": _orders_copy(base / "repriced", "€ 1,249.00", "€ 1,312.50"),
                "gone": _orders_copy(base / "gone", ROW, ""),
                "relaid": _orders_copy(base / "relaid", ROW, ROW.replace("<td>9 March 2026</td><td>3</td>", "")
                                       .replace("<td>Delivered</td>", "<td>Delivered on 12 March, 3 items</td>"))}
    servers = {name: SiteServer(path).start() for name, path in variants.items()}
    yield {name: f"{server.site}/orders/index.html" for name, server in servers.items()}
    for server in servers.values():
        server.close()


@pytest.fixture(scope="module")
def run_id(sites: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """A scripted run of "what is the total of order PX-1042?"; its id."""
    folder = tmp_path_factory.mktemp("answer-run")
    schema = folder / "schema.json"
    schema.write_text(json.dumps(TASK_FILE["output_schema"]))
    done = waymark("run", TASK_FILE["goal"], "--start-url", sites["recorded"], "--output-schema", str(schema),
                   "--script", str(ROOT / "eval" / "scripts" / "sites" / "orders-total-number.json"), "--json")
    run = json.loads(done.stdout)
    assert run["success"] and run["data"] == {"total": 1249}, done.stderr[-2000:]
    return str(run["run_id"])


def _save(run_id: str, name: str) -> str:
    waymark("workflow", "delete", name)
    saved = waymark("workflow", "save", run_id, "--name", name)
    assert saved.returncode == 0, saved.stdout + saved.stderr
    return name


@pytest.fixture(scope="module")
def workflow(run_id: str) -> str:
    """The run saved as the workflow order-total."""
    return _save(run_id, "order-total")


def _replay(name: str, *args: str) -> dict[str, Any]:
    done = waymark("workflow", "run", name, "--json", "--no-heal", *args)
    summary: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if summary["success"] else 1), done.stderr
    return summary


def test_a_replay_gives_the_saved_runs_answer_again_found_on_the_page_with_no_model_call(workflow):
    summary = _replay(workflow)
    assert summary["success"] and summary["data"] == {"total": 1249}
    assert (summary["model_calls"], summary["tokens_total"]) == (0, 0)
    (value,) = summary["grounding"]["values"]
    assert value["status"] == "found" and "1,249.00" in value["source"]["excerpt"]


def test_a_total_that_changed_since_the_run_was_saved_is_read_as_the_page_writes_it_today(workflow, sites):
    summary = _replay(workflow, "--start-url", sites["repriced"])
    assert summary["success"] and summary["data"] == {"total": 1312.5}
    assert summary["grounding"]["values"][0]["status"] == "found"


def test_an_answer_the_page_no_longer_shows_fails_the_replay_naming_the_value(workflow, sites):
    summary = _replay(workflow, "--start-url", sites["gone"])
    assert summary["success"] is False and summary["replay"] == "failed"
    assert "$.total" in summary["reason"] and summary["data"] is None


def test_show_says_where_each_value_of_the_answer_is_read_again(workflow):
    shown = waymark("workflow", "show", workflow)
    assert 'answer $.total (saved 1249): read between "delivered px-1042 9 march 2026 3 €" and "delivered px-1043 14 march 2026 2 €"' in shown.stdout


def test_the_executor_heals_an_answer_once_and_the_next_replay_reads_it_where_the_page_shows_it_now(run_id, sites, tmp_path):
    name = _save(run_id, "order-total-healed")
    assert not _replay(name, "--start-url", sites["relaid"])["success"]
    heal = tmp_path / "heal.json"
    heal.write_text(json.dumps({"steps": [], "result": "€ 1,249.00", "data": {"total": 1249},
                                "usage": {"input_tokens": 700, "output_tokens": 20}}))
    done = waymark("workflow", "run", name, "--json", "--start-url", sites["relaid"], "--script", str(heal))
    healed = json.loads(done.stdout)
    assert healed["success"] and healed["replay"] == "healed" and healed["data"] == {"total": 1249}
    assert (healed["model_calls"], healed["tokens_total"]) == (1, 720)
    again = _replay(name, "--start-url", sites["relaid"])
    assert again["success"] and again["replay"] == "unchanged" and again["model_calls"] == 0 and again["data"] == {"total": 1249}


def test_an_executor_answer_the_page_does_not_show_is_not_taken(run_id, sites, tmp_path):
    name = _save(run_id, "order-total-made-up")
    heal = tmp_path / "heal.json"
    heal.write_text(json.dumps({"steps": [], "result": "about 1300", "data": {"total": 1300}}))
    done = waymark("workflow", "run", name, "--json", "--start-url", sites["relaid"], "--script", str(heal))
    summary = json.loads(done.stdout)
    assert summary["success"] is False and "$.total" in summary["reason"] and "not on this page" in summary["reason"]
