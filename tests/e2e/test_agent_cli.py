"""`waymark demo`, `waymark run` and `waymark trace` as a user runs them: separate processes that
launch their own Chromium with the real extension and host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def waymark(*args: str, timeout: float = 240, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def test_demo_runs_the_shop_to_the_declined_place_order_and_prints_the_timeline():
    done = waymark("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "✓  5  Close the upsell drawer that covers the page" in out
    assert 'confirmation needed: click' in out and '"Place order"' in out
    assert "declined automatically (the demo never places an order)" in out
    assert "STOPPED AT CONFIRMATION: 9/10 steps verified" in out
    run_id = out.rsplit("waymark trace show ", 1)[1].split()[0]
    shown = waymark("trace", "show", run_id)
    assert shown.returncode == 0 and "Place the order" in shown.stdout
    page = waymark("trace", "html", run_id)
    assert page.returncode == 0
    html = Path(page.stdout.split("wrote ", 1)[1].strip()).read_text(encoding="utf-8")
    assert "data:image/jpeg;base64," in html and "Close the upsell drawer" in html


def test_run_json_prints_one_summary_object_and_exits_1_when_the_task_fails(tmp_path, site_url):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"intent": "Open a button that does not exist",
                                             "action": {"type": "click", "target": {"name": "Nope"}}, "verify": []}]}))
    done = waymark("run", "Click Nope", "--start-url", f"{site_url}/agent/menu.html", "--script", str(script), "--json")
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert {"success", "duration_ms", "tokens_total", "steps_passed", "steps_total"} <= set(summary)
    assert summary["success"] is False


def test_run_json_exits_0_when_every_step_is_verified(tmp_path, site_url):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"intent": "Open the panel", "action": {"type": "click", "target": {"name": "Open panel"}},
                                             "verify": [{"text_present": "Opened the first panel"}]}]}))
    done = waymark("run", "Open the panel", "--start-url", f"{site_url}/agent/menu.html", "--script", str(script), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steps_passed"] == 1


def test_run_without_a_model_choice_or_saved_settings_is_a_usage_error(tmp_path):
    # A config folder of its own: other tests save settings in the session's shared one.
    done = waymark("run", "Do something", "--start-url", "http://127.0.0.1:9/", env={"WAYMARK_CONFIG_DIR": str(tmp_path)})
    assert done.returncode == 2
    assert "--provider P --model M" in done.stderr


def test_run_without_a_model_says_so_before_starting_a_browser(tmp_path):
    # No browser can start here (WAYMARK_CHROMIUM names none): only a refusal that comes first is seen.
    env = {"WAYMARK_CONFIG_DIR": str(tmp_path), "WAYMARK_CHROMIUM": str(tmp_path / "no-browser")}
    done = waymark("run", "Do something", "--start-url", "http://127.0.0.1:9/", env=env)
    assert done.returncode == 2
    first, hint = done.stderr.strip().splitlines()
    assert first == "waymark run: provider_not_configured: no provider is configured for planner: choose one in the side panel's settings"
    assert hint.startswith("choose the model: --provider P --model M")


def test_run_with_a_provider_but_no_model_is_a_usage_error():
    done = waymark("run", "Do something", "--start-url", "http://127.0.0.1:9/", "--provider", "openai")
    assert done.returncode == 2
    assert "provider openai needs a model" in done.stderr


def test_run_refuses_a_start_url_on_a_domain_the_saved_settings_block(tmp_path, site_url, saved_settings):
    saved_settings({"block_domains": ["127.0.0.1"]})
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"intent": "Open the panel", "action": {"type": "click", "target": {"name": "Open panel"}},
                                             "verify": [{"text_present": "Opened the first panel"}]}]}))
    done = waymark("run", "Open the panel", "--start-url", f"{site_url}/agent/menu.html", "--script", str(script), "--json")
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["outcome"] == "blocked"
    assert summary["reason"] == "the start URL is not allowed: 127.0.0.1 is on the block list"
