"""Saving part of the settings, as the side panel's Save does (`update_settings`, the host's
`settings.set`): what the patch leaves out is kept, except what belonged to a provider the role
no longer uses."""

from __future__ import annotations

import pytest

from waymark.host.settings import load_settings, update_settings


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("WAYMARK_CONFIG_DIR", str(tmp_path))


def test_a_role_moved_to_another_provider_drops_the_old_providers_options():
    update_settings({"chat": {"provider": "scripted", "model": "scripted", "options": {"script": "/tmp/demo.json"}}})
    update_settings({"chat": {"provider": "openai_compat", "model": "qwen"}})
    assert load_settings().chat.options == {}


def test_a_role_that_keeps_its_provider_keeps_its_options():
    update_settings({"chat": {"provider": "openai_compat", "model": "qwen", "options": {"preset": "llamacpp"}}})
    update_settings({"chat": {"provider": "openai_compat", "model": "qwen2.5"}})
    assert (load_settings().chat.model, load_settings().chat.options) == ("qwen2.5", {"preset": "llamacpp"})


def test_a_provider_given_an_option_it_does_not_take_says_which_instead_of_a_type_error():
    from waymark.providers import registry
    from waymark.providers.errors import ProviderNotConfigured

    with pytest.raises(ProviderNotConfigured, match="openai_compat takes no option script"):
        registry.create("openai_compat", "qwen", base_url="http://127.0.0.1:9/v1", script="/tmp/demo.json")
