"""Privacy on the host: trace folders, config and secret files are the user's alone; secrets
and password values are redacted from everything written; placeholders resolve only at dispatch."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from waymark.host.agent.redaction import (
    REDACTED,
    Redactor,
    SecretMissing,
    SecretScope,
    protect_typed_text,
    resolve_action,
)
from waymark.host.agent.trace import RunSummary, TraceWriter
from waymark.host.core import secrets_store
from waymark.host.core.actions import Fill
from waymark.host.core.snapshot import Snapshot


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def private_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("WAYMARK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("WAYMARK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("WAYMARK_RUNS_DIR", str(tmp_path / "state" / "runs"))
    # The most permissive umask: only modes the code sets itself can make files private.
    old = os.umask(0)
    try:
        yield tmp_path
    finally:
        os.umask(old)


def test_a_run_folder_and_every_file_in_it_are_user_only(private_env: Path) -> None:
    trace = TraceWriter("run-1", Redactor())
    trace.event("step", note="x")
    trace.artifact_text("fail-001-model.txt", "raw")
    trace.artifact_json("fail-001-snapshot.json", {"a": 1})
    trace.artifact_b64("step-001.jpg", "aGk=")
    trace.summary(RunSummary(success=True, duration_ms=1, tokens_total=0, steps_passed=1, steps_total=1))
    folders = [trace.dir, trace.dir.parent, trace.dir / "artifacts"]
    assert all(mode(f) == 0o700 for f in folders), {str(f): oct(mode(f)) for f in folders}
    files = [p for p in trace.dir.rglob("*") if p.is_file()]
    assert len(files) == 5
    assert all(mode(f) == 0o600 for f in files), {str(f): oct(mode(f)) for f in files}


def test_the_secret_store_and_the_settings_file_are_user_only(private_env: Path) -> None:
    from waymark.host.settings import Settings, save_settings, settings_path

    secrets_store.set_secret("BANK", "hunter2")
    save_settings(Settings())
    config = private_env / "config"
    assert mode(config) == 0o700
    assert mode(secrets_store.store_path()) == 0o600
    assert mode(settings_path()) == 0o600
    assert "hunter2" not in settings_path().read_text()


def test_the_log_folder_is_user_only(private_env: Path) -> None:
    import logging

    from waymark.host.logs import configure_logging

    handler = configure_logging()
    try:
        logging.getLogger("privacy").info("hello")
        assert mode(private_env / "state") == 0o700
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()


def test_a_placeholder_resolves_only_in_the_dispatched_action_and_the_value_is_redacted_after(private_env: Path) -> None:
    secrets_store.set_secret("BANK_PASSWORD", "correct-horse", ["https://bank.example"])
    redactor = Redactor()
    action = Fill(ref=4, text="{{secret:BANK_PASSWORD}}")
    dispatched = resolve_action(action, redactor, SecretScope.of_task("sign in with {{secret:BANK_PASSWORD}}")).action
    assert isinstance(dispatched, Fill) and dispatched.text == "correct-horse"
    assert action.text == "{{secret:BANK_PASSWORD}}", "what the model and the trace see keeps the placeholder"
    assert redactor.text("typed correct-horse into [4]") == f"typed {REDACTED} into [4]"
    assert "correct-horse" not in json.dumps(redactor.obj({"events": [{"echo": "correct-horse!"}]}))


def test_a_placeholder_naming_a_missing_secret_stops_with_its_name_not_a_value(private_env: Path) -> None:
    with pytest.raises(SecretMissing) as missing:
        resolve_action(Fill(ref=1, text="{{secret:NOPE}}"), Redactor(), SecretScope.of_task("{{secret:NOPE}}"))
    assert "NOPE" in str(missing.value)


def test_a_literal_typed_into_a_password_field_is_learned_and_redacted_from_later_snapshots() -> None:
    snap = Snapshot.model_validate({"url": "http://127.0.0.1/login", "text": '[2] textbox "Password" has_value=true',
                                    "elements": [{"ref": 2, "role": "textbox", "name": "Password", "states": {"has_value": True}}]})
    redactor = Redactor()
    protect_typed_text(Fill(ref=2, text="pa55-word"), snap, redactor)
    later = Snapshot.model_validate({"url": "http://127.0.0.1/echo", "text": '[5] textbox "Echo" value="pa55-word"',
                                     "elements": [{"ref": 5, "role": "textbox", "name": "Echo", "value": "pa55-word"}]})
    safe = redactor.snapshot(later)
    assert "pa55-word" not in safe.model_dump_json()


def test_a_password_fields_value_is_redacted_from_a_snapshot_whatever_the_page_reported() -> None:
    snap = Snapshot.model_validate({"url": "http://127.0.0.1/login", "text": "",
                                    "elements": [{"ref": 2, "role": "textbox", "name": "Password", "value": "leaked-by-a-bug"},
                                                 {"ref": 3, "role": "textbox", "name": "PIN", "value": "1234"}]})
    safe = Redactor().snapshot(snap)
    assert [e.value for e in safe.elements] == [REDACTED, REDACTED]


@pytest.mark.parametrize(("url", "safe"), [
    ("http://u:p@127.0.0.1:8000/a?token=x1&q=1&sid=2", "http://127.0.0.1:8000/a?q=1"),
    ("https://bank.example/cb?code=4/0AbC&state=xyz&page=3", "https://bank.example/cb?page=3"),
    ("https://ex.example/p?id=a1b2c3d4e5f6a7b8c9d0e1f2a3#access_token=abc", "https://ex.example/p"),
    ("https://ex.example/p#section-2", "https://ex.example/p#section-2"),
])
def test_urls_lose_credentials_and_secret_parameters_before_a_trace_sees_them(url: str, safe: str) -> None:
    from waymark.host.agent.redaction import redact_url

    assert redact_url(url) == safe


def test_a_folder_that_exists_already_keeps_its_mode_and_is_reported_when_others_can_open_it(
        private_env: Path, caplog: pytest.LogCaptureFixture) -> None:
    from waymark.host.core.paths import private_dir

    shared = private_env / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    with caplog.at_level("WARNING"):
        assert private_dir(shared) == shared
    assert mode(shared) == 0o755
    assert f"{shared} is open to other users (mode 755)" in caplog.text


def test_every_folder_private_dir_creates_is_user_only_even_under_umask_0(private_env: Path) -> None:
    from waymark.host.core.paths import private_dir

    deep = private_dir(private_env / "a" / "b" / "c")
    assert [mode(f) for f in (deep, deep.parent, deep.parent.parent)] == [0o700, 0o700, 0o700]


def test_a_secret_name_with_a_trailing_newline_is_refused(private_env: Path) -> None:
    with pytest.raises(secrets_store.SecretError):
        secrets_store.set_secret("BANK\n", "hunter2")
