"""Provider keys: where they come from, and that only the source is ever shown."""

from __future__ import annotations

import pytest

from waymark.host.cli import main
from waymark.providers.choices import configured_summary
from waymark.providers.config import find_key, resolve_key

SECRET = "sk-test-do-not-print-1234567890"


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_key_from_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    key, source = find_key("gemini")
    assert key == SECRET and source is not None and source.describe() == "key from GEMINI_API_KEY"


def test_key_from_the_secret_store_is_found() -> None:
    secrets_store = pytest.importorskip("waymark.host.core.secrets_store")
    secrets_store.set_provider_key("ANTHROPIC_API_KEY", SECRET)
    try:
        key, source = find_key("anthropic")
        assert key == SECRET and source is not None and source.where == "secret store"
    finally:
        secrets_store.delete_provider_key("ANTHROPIC_API_KEY")


def test_explicit_key_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert resolve_key("openai_compat", "openai", "explicit") == "explicit"
    assert resolve_key("openai_compat", "openai", None) == "from-env"


def test_summary_says_not_configured_without_a_key() -> None:
    assert "gemini: not configured (set GEMINI_API_KEY or GOOGLE_API_KEY)" in configured_summary()


def test_summary_names_the_source_never_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    lines = configured_summary()
    assert "gemini: key from GEMINI_API_KEY" in lines
    assert SECRET not in "\n".join(lines)


def test_providers_command_lists_every_provider_without_keys(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", SECRET)
    assert main(["providers", "--no-check"]) == 0
    out = capsys.readouterr().out
    for label in ("gemini", "anthropic", "openai_compat:openrouter", "openai_compat:ollama", "mlx", "scripted"):
        assert label in out
    assert "key from OPENROUTER_API_KEY" in out
    assert SECRET not in out
