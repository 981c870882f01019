"""Secrets bound as a password manager binds them: the store keeps provider keys apart and binds
each typeable secret to origins; a placeholder resolves only when the task named it, never for a
provider key, an unbound secret or an MCP client without a grant. The redactor knows every stored
value from a run's start and redacts pieces of them; URL path tokens are redacted like query ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from waymark.host.agent.redaction import (
    REDACTED,
    Redactor,
    SecretRefused,
    SecretScope,
    redact_url,
    resolve_action,
)
from waymark.host.core import secrets_store
from waymark.host.core.actions import Fill
from waymark.providers.config import find_key

BANK = "https://bank.example"


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("WAYMARK_CONFIG_DIR", str(tmp_path / "config"))
    for name in secrets_store.PROVIDER_KEY_NAMES:
        monkeypatch.delenv(name, raising=False)
    yield tmp_path / "config" / secrets_store.FILE_NAME


def refusal(text: str, scope: SecretScope) -> str:
    with pytest.raises(SecretRefused) as refused:
        resolve_action(Fill(ref=1, text=text), Redactor(), scope)
    assert "hunter2" not in str(refused.value) and "sk-live" not in str(refused.value)
    return refused.value.code


def test_a_store_of_before_the_namespaces_reads_provider_keys_apart_and_secrets_unbound(store: Path) -> None:
    store.parent.mkdir(parents=True)
    store.write_text(json.dumps({"OPENAI_API_KEY": "sk-live-old", "BANK_PW": "hunter2-old"}))
    assert secrets_store.provider_key_names() == ["OPENAI_API_KEY"]
    assert [(s.name, s.origins) for s in secrets_store.listing()] == [("BANK_PW", [])]
    assert find_key("openai_compat", "openai")[0] == "sk-live-old", "the providers still find the migrated key"


def test_an_old_secret_bound_to_no_origin_is_refused_with_what_to_do(store: Path) -> None:
    store.parent.mkdir(parents=True)
    store.write_text(json.dumps({"BANK_PW": "hunter2-old"}))
    with pytest.raises(SecretRefused) as refused:
        resolve_action(Fill(ref=1, text="{{secret:BANK_PW}}"), Redactor(), SecretScope.of_task("log in with {{secret:BANK_PW}}"))
    assert refused.value.code == "secret_unbound" and "bind it" in refused.value.message


def test_a_provider_key_can_never_be_typed_even_when_the_task_names_it() -> None:
    secrets_store.set_provider_key("OPENAI_API_KEY", "sk-live-123456")
    assert refusal("{{secret:OPENAI_API_KEY}}", SecretScope.of_task("type {{secret:OPENAI_API_KEY}}")) == "secret_is_provider_key"


def test_a_provider_keys_name_cannot_be_stored_as_a_typeable_secret() -> None:
    with pytest.raises(secrets_store.SecretError) as refused:
        secrets_store.set_secret("OPENAI_API_KEY", "sk-live-123456", [BANK])
    assert refused.value.code == "secret_is_provider_key"


def test_a_secret_the_task_never_named_is_not_typed() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", [BANK])
    assert refusal("{{secret:BANK_PW}}", SecretScope.of_task("search the shop for socks")) == "secret_not_named"


def test_a_named_secret_resolves_with_the_origins_it_is_bound_to() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", ["https://BANK.example:443/login?next=1", "http://127.0.0.1:8123"])
    resolved = resolve_action(Fill(ref=1, text="{{secret:BANK_PW}}"), Redactor(), SecretScope.of_task("log in with {{secret:BANK_PW}}"))
    assert isinstance(resolved.action, Fill) and resolved.action.text == "hunter2-bank"
    assert resolved.secret_origins == ["http://127.0.0.1:8123", BANK]


@pytest.mark.parametrize("origin", ["ftp://bank.example", "https://*.bank.example", "https://user@bank.example", "bank.example", ""])
def test_an_origin_that_is_not_scheme_host_and_port_is_refused_when_stored(origin: str) -> None:
    with pytest.raises(secrets_store.SecretError) as refused:
        secrets_store.set_secret("BANK_PW", "hunter2-bank", [origin])
    assert refused.value.code == "bad_secret_origin"


def test_an_mcp_client_types_a_secret_only_on_an_origin_the_user_granted_it() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", [BANK, "https://other.example"])
    client = SecretScope(named=None, client="Claude Desktop")
    assert refusal("{{secret:BANK_PW}}", client) == "secret_not_granted"
    secrets_store.grant_secret("BANK_PW", "Claude Desktop", BANK)
    assert resolve_action(Fill(ref=1, text="{{secret:BANK_PW}}"), Redactor(), client).secret_origins == [BANK]
    assert refusal("{{secret:BANK_PW}}", SecretScope(named=None, client="another client")) == "secret_not_granted"


def test_a_grant_is_only_for_an_origin_the_secret_is_bound_to() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", [BANK])
    with pytest.raises(secrets_store.SecretError) as refused:
        secrets_store.grant_secret("BANK_PW", "Claude Desktop", "https://attacker.example")
    assert refused.value.code == "secret_origin_refused"


def test_a_workflow_step_types_its_secret_only_on_the_origin_it_recorded() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", [BANK, "https://old.example"])
    pinned = SecretScope(named=frozenset({"BANK_PW"}), pinned={"BANK_PW": BANK})
    assert resolve_action(Fill(ref=1, text="{{secret:BANK_PW}}"), Redactor(), pinned).secret_origins == [BANK]
    gone = SecretScope(named=frozenset({"BANK_PW"}), pinned={"BANK_PW": "https://elsewhere.example"})
    assert refusal("{{secret:BANK_PW}}", gone) == "secret_origin_refused"


def test_the_values_stay_out_of_the_panels_view_of_the_store() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", [BANK])
    secrets_store.set_provider_key("GEMINI_API_KEY", "sk-live-gemini")
    shown = json.dumps([s.model_dump() for s in secrets_store.listing()]) + json.dumps(secrets_store.provider_key_names())
    assert "hunter2" not in shown and "sk-live" not in shown and "BANK_PW" in shown


# ------------------------------------------------------------------ the redactor's backstop

TOKEN = "tK7" + "".join(f"{i:02d}Zq" for i in range(30)) + "x9"


def test_a_run_redactor_knows_every_stored_value_before_any_is_typed() -> None:
    secrets_store.set_secret("API_TOKEN", TOKEN, [BANK])
    secrets_store.set_provider_key("OPENAI_API_KEY", "sk-live-abcdef123456")
    redactor = Redactor.for_run()
    assert redactor.text(f"key sk-live-abcdef123456 and {TOKEN}") == f"key {REDACTED} and {REDACTED}"


def test_a_prefix_a_value_cap_cut_is_redacted() -> None:
    redactor = Redactor()
    redactor.learn(TOKEN)
    assert len(TOKEN) >= 120
    assert redactor.text(f'[3] textbox "Token" value="{TOKEN[:99]}…"') == f'[3] textbox "Token" value="{REDACTED}…"'
    assert TOKEN[:40] not in redactor.text(f"typed {TOKEN[:40]}")


def test_a_passphrase_is_redacted_with_its_spaces_collapsed_or_changed() -> None:
    redactor = Redactor()
    redactor.learn("correct  horse  battery  staple")
    assert redactor.text("The page says: correct horse battery staple.") == f"The page says: {REDACTED}."
    assert redactor.text("correct\nhorse\tbattery staple") == REDACTED


def test_a_reversed_echo_of_a_value_is_redacted() -> None:
    redactor = Redactor()
    redactor.learn("s3cr3t-Passw0rd!")
    assert redactor.text(f"echo: {'s3cr3t-Passw0rd!'[::-1]}") == f"echo: {REDACTED}"


def test_text_sharing_less_than_a_fragment_with_a_value_is_left_alone() -> None:
    redactor = Redactor()
    redactor.learn("correct  horse  battery  staple")
    assert redactor.text("the horse ran; a staple held") == "the horse ran; a staple held"


# ------------------------------------------------------------------ URL path tokens

@pytest.mark.parametrize(("url", "safe"), [
    ("https://ex.example/reset/8f14e45fceea167a5a36dedd4bea2543", f"https://ex.example/reset/{REDACTED}"),
    ("https://ex.example/magic/aB3dE5fG7hI9jK1lM3nO5p/login", f"https://ex.example/magic/{REDACTED}/login"),
    ("https://ex.example/v/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     f"https://ex.example/v/{REDACTED}"),
    ("https://shop.example/p/iphone-15-pro-max-256gb-titanium", "https://shop.example/p/iphone-15-pro-max-256gb-titanium"),
    ("https://ex.example/2024/annual-report-v2", "https://ex.example/2024/annual-report-v2"),
])
def test_tokens_in_url_paths_are_redacted_and_word_paths_kept(url: str, safe: str) -> None:
    assert redact_url(url) == safe


def test_an_mcp_clients_run_types_a_secret_its_task_names_only_where_the_client_was_granted_it() -> None:
    secrets_store.set_secret("BANK_PW", "hunter2-bank", [BANK])
    task = "log in with {{secret:BANK_PW}}"
    assert refusal("{{secret:BANK_PW}}", SecretScope.of_task(task, "Claude Desktop")) == "secret_not_granted"
    secrets_store.grant_secret("BANK_PW", "Claude Desktop", BANK)
    assert resolve_action(Fill(ref=1, text="{{secret:BANK_PW}}"), Redactor(), SecretScope.of_task(task, "Claude Desktop")).secret_origins == [BANK]


def test_a_long_lived_redactor_learns_the_secrets_stored_since_it_began() -> None:
    redactor = Redactor.for_run()
    secrets_store.set_secret("LATE", "late-secret-value-42", [BANK])
    assert redactor.learn_store().text("shows late-secret-value-42") == f"shows {REDACTED}"


def test_a_word_a_stored_value_contains_is_not_hidden_on_the_page() -> None:
    redactor = Redactor()
    redactor.learn("mypassword1")
    assert redactor.text('[4] link "Forgot password?"') == '[4] link "Forgot password?"'
