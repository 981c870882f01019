"""One model-selection syntax for `waymark run`, `waymark eval run`, `agent.run` and the
settings: every provider, preset, local server and call option reachable from each."""

from __future__ import annotations

import argparse

import pytest

from waymark.host.agent.budgets import MAX_SNAPSHOT_CHARS, snapshot_chars
from waymark.host.commands._model_args import add_model_arguments, specs_from_args
from waymark.providers.spec import LOCAL_TIMEOUT_S, ModelSpec, SpecError


@pytest.mark.parametrize(("text", "provider", "model", "options"), [
    ("gemini:gemini-2.5-flash", "gemini", "gemini-2.5-flash", {}),
    ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", {}),
    ("openai_compat:llamacpp:qwen", "openai_compat", "qwen", {"preset": "llamacpp"}),
    ("llamacpp:qwen", "openai_compat", "qwen", {"preset": "llamacpp"}),
    ("ollama:qwen2.5:1.5b", "openai_compat", "qwen2.5:1.5b", {"preset": "ollama"}),
    ("openai_compat:qwen2.5:1.5b", "openai_compat", "qwen2.5:1.5b", {}),
    ("llamacpp:qwen?base_url=http://127.0.0.1:8081/v1&native_tools=no&context_tokens=16384", "openai_compat", "qwen",
     {"preset": "llamacpp", "base_url": "http://127.0.0.1:8081/v1", "native_tools": False, "context_tokens": 16384}),
])
def test_a_spec_names_the_provider_the_model_and_the_options(text, provider, model, options):
    spec = ModelSpec.parse(text)
    assert (spec.provider, spec.model, spec.options) == (provider, model, options)
    assert ModelSpec.parse(spec.label()) == spec


def test_call_options_in_a_spec_set_the_temperature_and_the_per_call_timeout():
    spec = ModelSpec.parse("gemini:gemini-2.5-flash?temperature=0.3&timeout=45")
    assert (spec.call_temperature(), spec.call_timeout()) == (0.3, 45.0)
    assert "temperature" not in spec.options


def test_a_local_server_defaults_to_temperature_zero_and_a_longer_timeout():
    local, cloud = ModelSpec.parse("llamacpp:qwen"), ModelSpec.parse("gemini:gemini-2.5-flash")
    assert (local.call_temperature(), local.call_timeout()) == (0.0, LOCAL_TIMEOUT_S)
    assert cloud.call_temperature() is None and cloud.call_timeout() < LOCAL_TIMEOUT_S
    assert ModelSpec.parse("openai_compat:m?base_url=http://127.0.0.1:9000/v1").is_local()


@pytest.mark.parametrize(("text", "message"), [
    ("qwen", "a model is PROVIDER:MODEL"),
    ("bogus:model", "unknown provider 'bogus'"),
    ("llamacpp:qwen?temp=0", "unknown model option 'temp'"),
    ("llamacpp:qwen?temperature=warm", "temperature takes a float"),
])
def test_a_spec_that_cannot_be_read_says_the_syntax(text, message):
    with pytest.raises(SpecError, match=message):
        ModelSpec.parse(text)


def test_a_credential_given_as_an_option_never_appears_in_the_label():
    spec = ModelSpec.make("openai_compat", "m", {"api_key": "sk-live-123", "base_url": "http://127.0.0.1:9/v1"})
    assert "sk-live" not in spec.label() and "api_key" not in spec.label()


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_command_line_reaches_a_local_server_through_its_preset():
    planner, executor = specs_from_args(_args("--provider", "openai_compat:llamacpp", "--model", "qwen"))
    assert planner == executor and executor.options == {"preset": "llamacpp"}
    assert executor.build().base_url == "http://127.0.0.1:8080/v1"


def test_command_line_options_apply_to_both_roles_and_win_over_the_spec():
    planner, executor = specs_from_args(_args("--planner", "gemini:gemini-2.5-pro", "--executor", "llamacpp:qwen?temperature=0.5",
                                              "--temperature", "0.2", "--base-url", "http://127.0.0.1:8081/v1", "--no-native-tools"))
    assert planner.provider == "gemini" and executor.options["preset"] == "llamacpp"
    assert executor.temperature == planner.temperature == 0.2
    assert executor.options["base_url"] == "http://127.0.0.1:8081/v1" and executor.options["native_tools"] is False


def test_a_whole_spec_can_be_given_as_the_model():
    _, executor = specs_from_args(_args("--model", "ollama:qwen2.5:1.5b", "--call-timeout", "600"))
    assert (executor.model, executor.options["preset"], executor.call_timeout()) == ("qwen2.5:1.5b", "ollama", 600.0)


def test_no_model_on_the_command_line_leaves_the_choice_to_the_settings():
    assert specs_from_args(_args()) is None
    with pytest.raises(ValueError, match="model options need a model"):
        specs_from_args(_args("--temperature", "0"))


def test_the_snapshot_is_sized_to_the_executors_context_window():
    assert snapshot_chars(128_000) == MAX_SNAPSHOT_CHARS
    assert snapshot_chars(4096) < snapshot_chars(8192) < MAX_SNAPSHOT_CHARS


def test_an_eval_run_on_a_local_server_needs_no_cloud_key(tmp_path, monkeypatch):
    import asyncio

    from waymark.eval.runner import RunConfig, _check_providers

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    specs = specs_from_args(_args("--provider", "llamacpp", "--model", "qwen"))
    config = RunConfig.from_cli(suite="smoke", specs=specs, tasks=None, workers=1, shard=None, out=tmp_path / "r.jsonl")
    asyncio.run(_check_providers(config))
    assert config.executor.label() == "openai_compat:llamacpp:qwen"


def test_the_settings_saved_for_a_role_give_its_spec_with_the_call_options():
    from waymark.host.settings import RoleSettings, Settings, role_spec

    settings = Settings(chat=RoleSettings(provider="gemini", model="gemini-2.5-flash"),
                        executor=RoleSettings(provider="openai_compat", model="qwen",
                                              options={"preset": "llamacpp", "temperature": 0.1, "context_tokens": 16384}))
    executor = role_spec("executor", settings)
    assert (executor.options, executor.call_temperature()) == ({"preset": "llamacpp", "context_tokens": 16384}, 0.1)
    assert role_spec("planner", settings).label() == "gemini:gemini-2.5-flash"


def test_an_eval_task_on_a_local_model_gets_a_longer_wall_clock(tmp_path):
    from waymark.eval.runner import LOCAL_TASK_TIMEOUT_S, TASK_TIMEOUT_S, RunConfig

    local = RunConfig.from_cli(suite="sites", specs=specs_from_args(_args("--model", "llamacpp:qwen")), tasks=None, workers=1,
                               shard=None, out=tmp_path / "a.jsonl")
    cloud = RunConfig.from_cli(suite="sites", specs=specs_from_args(_args("--model", "gemini:gemini-2.5-flash")), tasks=None, workers=1,
                               shard=None, out=tmp_path / "b.jsonl")
    assert (local.task_timeout(), cloud.task_timeout()) == (LOCAL_TASK_TIMEOUT_S, TASK_TIMEOUT_S)
