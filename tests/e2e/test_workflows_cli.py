"""`waymark workflow` as a user runs it: a scripted run of the sign-in site saved as a workflow,
replayed with no model call, and replayed on copies of the site whose markup changed (a banner,
a renamed button, renamed neighbours): found again by its nearby text, healed by the executor, or
stopped with a reason naming the step, never a false success."""

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
TASK = "Sign in to Ledger with the username ada and the password lovelace."
SIGN_IN = {
    "steps": json.loads((ROOT / "eval" / "scripts" / "sites" / "login-sign-in.json").read_text())["steps"],
    "success_criteria": [{"url_contains": "/login/account.html"}, {"text_present": "Welcome, ada"}],
}
BANNER = '<body>\n<div role="note"><p>We changed how signing in looks.</p></div>'


def waymark(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ))


def _site_copy(folder: Path, *replacements: tuple[str, str]) -> Path:
    """The login site copied with text replaced in its pages."""
    shutil.copytree(SITES_DIR / "login", folder / "login")
    for page in (folder / "login").glob("*.html"):
        html = page.read_text(encoding="utf-8")
        for old, new in replacements:
            html = html.replace(old, new)
        page.write_text(html, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The login site as recorded, with a banner and a renamed button, and with its neighbours renamed
    too, on one origin (a workflow types its password on the origin it recorded only); and the
    recorded site again on a look-alike origin."""
    base = tmp_path_factory.mktemp("workflow-sites")
    renamed = (("<body>", BANNER), (">Sign in</button>", ">Log in</button>"))
    _site_copy(base / "recorded")
    _site_copy(base / "renamed", *renamed)
    _site_copy(base / "reworded", *renamed, ("Keep me signed in", "Stay logged in"), ("Forgot password?", "Reset your password"))
    server, look_alike = SiteServer(base).start(), SiteServer(base).start()
    yield {**{name: f"{server.site}/{name}/login/index.html" for name in ("recorded", "renamed", "reworded")},
           "origin": server.site, "look-alike": f"{look_alike.site}/recorded/login/index.html", "look-alike origin": look_alike.site}
    server.close()
    look_alike.close()


@pytest.fixture(scope="module")
def saved_run(sites: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> str:
    """A successful scripted run of the sign-in task; its id."""
    from waymark.host.core.secrets_store import set_secret

    # Bound to the look-alike origin too: only the origin the workflow recorded keeps a replay off it.
    set_secret("password", "lovelace", [sites["origin"], sites["look-alike origin"]])
    script = tmp_path_factory.mktemp("script") / "sign-in.json"
    script.write_text(json.dumps(SIGN_IN))
    done = waymark("run", TASK, "--start-url", sites["recorded"], "--script", str(script), "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["run_id"])


def _save(run_id: str, name: str) -> subprocess.CompletedProcess[str]:
    waymark("workflow", "delete", name)
    return waymark("workflow", "save", run_id, "--name", name)


def _replay(name: str, *args: str) -> dict[str, Any]:
    done = waymark("workflow", "run", name, "--json", *args)
    summary: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if summary["success"] else 1), done.stderr
    return summary


def test_a_saved_run_becomes_a_workflow_with_its_typed_value_as_a_parameter_and_no_password(saved_run):
    from waymark.host.workflows import store

    saved = _save(saved_run, "sign-in")
    assert saved.returncode == 0, saved.stderr
    assert "--param username=ada" in saved.stdout
    text = store.path_of("sign-in").read_text()
    assert "lovelace" not in text and "{{secret:password}}" in text
    shown = waymark("workflow", "show", "sign-in")
    assert str(store.path_of("sign-in")) in shown.stdout and 'click button "Sign in"' in shown.stdout


def test_a_replay_on_the_unchanged_site_passes_with_no_model_call(saved_run):
    _save(saved_run, "sign-in-same")
    summary = _replay("sign-in-same")
    assert summary["success"] and summary["replay"] == "unchanged"
    assert (summary["model_calls"], summary["tokens_total"], summary["steps_passed"]) == (0, 0, 3)


def test_a_parameter_given_on_the_command_line_is_typed_and_a_sign_in_it_fails_is_no_success(saved_run, sites):
    _save(saved_run, "sign-in-param")
    summary = _replay("sign-in-param", "--param", "username=grace")
    # The site knows only ada: the value typed is the one given, and the task's criteria prove it did
    # not work. (The step judge, the run's own, drops Sign in's URL check, which no link leads to,
    # as it does in a run; the conclusion then fails the replay on the criteria.)
    assert "grace" in summary["task"]
    assert (summary["success"], summary["outcome"]) == (False, "failed")
    assert summary["reason"].startswith("success was claimed but the task's success criteria fail: url_contains"), summary["reason"]


def test_a_renamed_button_between_the_same_fields_is_found_by_its_nearby_text_without_a_model(saved_run, sites):
    _save(saved_run, "sign-in-renamed")
    summary = _replay("sign-in-renamed", "--start-url", sites["renamed"], "--no-heal")
    assert summary["success"] and summary["replay"] == "healed" and summary["model_calls"] == 0
    assert summary["heals"][0]["step"] == 3 and summary["heals"][0]["by"] == "near"


def test_with_no_model_a_step_that_matches_nothing_stops_the_replay_naming_the_step_and_its_target(saved_run, sites):
    _save(saved_run, "sign-in-reworded")
    summary = _replay("sign-in-reworded", "--start-url", sites["reworded"], "--no-heal")
    assert summary["success"] is False and summary["replay"] == "failed"
    assert 'step 3 (Sign in)' in summary["reason"] and 'button "Sign in"' in summary["reason"]


def test_the_executor_heals_a_step_once_and_the_next_replay_finds_it_by_name(saved_run, sites, tmp_path):
    from waymark.host.workflows import store

    _save(saved_run, "sign-in-healed")
    heal = tmp_path / "heal.json"
    heal.write_text(json.dumps({"steps": [{"intent": "unused", "action": {"type": "wait", "ms": 0}}] * 2 + [
        {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Log in"}}}],
        "usage": {"input_tokens": 900, "output_tokens": 30}}))
    summary = _replay("sign-in-healed", "--start-url", sites["reworded"], "--script", str(heal))
    assert summary["success"] and summary["replay"] == "healed", summary["reason"]
    assert summary["model_calls"] == 1 and summary["tokens_total"] == 930
    step = store.load("sign-in-healed").steps[2]
    assert step.target is not None and step.target.name == "Log in" and step.healed is not None and step.healed.by == "model"
    again = _replay("sign-in-healed", "--start-url", sites["reworded"], "--no-heal")
    assert again["success"] and again["replay"] == "unchanged" and again["model_calls"] == 0


def test_a_heal_turns_action_the_page_cannot_do_is_held_back_by_the_runs_guards_before_it_is_sent(saved_run, sites, tmp_path):
    _save(saved_run, "sign-in-heal-guarded")
    heal = tmp_path / "heal.json"
    # The healing model first scrolls a page that cannot scroll, then clicks the renamed button.
    heal.write_text(json.dumps({"steps": [{"intent": "unused", "action": {"type": "wait", "ms": 0}}] * 2 + [
        {"intent": "Sign in", "action": {"type": "click", "target": {"role": "button", "name": "Log in"}},
         "fail_first": 1, "wrong_action": {"type": "scroll", "direction": "down"}}]}))
    summary = _replay("sign-in-heal-guarded", "--start-url", sites["reworded"], "--script", str(heal))
    assert summary["success"] and summary["replay"] == "healed", summary["reason"]
    steps = [json.loads(line) for line in (Path(summary["trace_dir"]) / "trace.jsonl").read_text().splitlines()]
    steps = [e for e in steps if e.get("event") == "step"]
    assert not any(e["action"]["type"] == "scroll" for e in steps), [e["action"] for e in steps]
    assert any(f["guard"] == "page_at_edge" for e in steps for f in e.get("findings", [])), steps[-1]


def test_a_replay_started_on_a_look_alike_origin_types_no_password_and_reports_no_success(saved_run, sites):
    _save(saved_run, "sign-in-look-alike")
    summary = _replay("sign-in-look-alike", "--start-url", sites["look-alike"])
    assert summary["success"] is False and summary["outcome"] == "blocked", summary
    assert "secret_origin_refused" in summary["reason"] and "step 2" in summary["reason"], summary["reason"]
    assert summary["steps_passed"] == 1, "the username was typed, the password and the sign-in were not"


def test_list_and_delete(saved_run):
    _save(saved_run, "sign-in-gone")
    assert "sign-in-gone" in waymark("workflow", "list").stdout
    assert waymark("workflow", "delete", "sign-in-gone").returncode == 0
    assert "sign-in-gone" not in waymark("workflow", "list").stdout
    missing = waymark("workflow", "run", "sign-in-gone")
    assert missing.returncode == 2 and "no workflow named 'sign-in-gone'" in missing.stderr


SHOP = {"steps": [
    {"intent": "Add the tea to the cart", "action": {"type": "click", "target": {"role": "button", "name": "Add to cart"}},
     "verify": [{"exists": {"role": "button", "name": "In cart (1)"}}]},
    {"intent": "Place the order", "action": {"type": "click", "target": {"role": "button", "name": "Place order"}},
     "verify": [{"exists": {"role": "link", "name": "View order 1"}}]},
]}


@pytest.fixture(scope="module")
def order_run(site_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A scripted run that placed an order (approved on the command line); its id."""
    script = tmp_path_factory.mktemp("script") / "shop.json"
    script.write_text(json.dumps(SHOP))
    done = waymark("run", "Buy the green tea", "--start-url", f"{site_url}/sidepanel/shop.html", "--script", str(script),
                   "--confirm", "approve", "--json")
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["run_id"])


def test_a_destructive_step_asks_again_on_replay_and_a_declined_one_ends_it_without_success(order_run):
    _save(order_run, "order-tea")
    summary = _replay("order-tea", "--confirm", "decline")
    assert summary["success"] is False and summary["outcome"] == "declined"
    assert 'button "Place order"' in summary["reason"] and summary["steps_passed"] == 1


def test_a_destructive_step_approved_for_the_workflow_is_not_asked(order_run):
    waymark("workflow", "delete", "order-tea-approved")
    saved = waymark("workflow", "save", order_run, "--name", "order-tea-approved", "--approve-destructive")
    assert saved.returncode == 0, saved.stderr
    summary = _replay("order-tea-approved", "--confirm", "decline")
    assert summary["success"] and summary["steps_passed"] == 2


def test_a_replay_that_leaves_the_start_page_as_its_run_did_is_not_failed_by_the_start_pages_title(tmp_path):
    # Kanbanish spa-help: the run's criterion was the board's own title, which held where the run
    # began and not on Help; the run succeeded on its proven link click, and so must its replay.
    script = tmp_path / "help.json"
    script.write_text(json.dumps({"steps": [{"intent": "Click on the 'Help' link", "verify": [{"text_present": "Board · Kanbanish"}],
                                             "action": {"type": "click", "target": {"role": "link", "name": "Help"}}}],
                                  "success_criteria": [{"title_contains": "Board · Kanbanish"}]}))
    with SiteServer() as sites:
        done = waymark("run", "Open the Help page of Kanbanish.", "--start-url", f"{sites.site}/spa/index.html", "--script", str(script), "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        assert _save(str(json.loads(done.stdout)["run_id"]), "open-help").returncode == 0
        summary = _replay("open-help")
    assert (summary["success"], summary["outcome"]) == (True, "done"), summary


def test_a_replay_refuses_a_start_url_on_a_domain_the_saved_settings_block(saved_run, saved_settings):
    _save(saved_run, "sign-in-blocked")
    saved_settings({"block_domains": ["127.0.0.1"]})
    summary = _replay("sign-in-blocked")
    assert not summary["success"] and summary["outcome"] == "blocked"
    assert "127.0.0.1 is on the block list" in summary["reason"]
