"""The one model-selection syntax, shared by `waymark run`, `waymark eval run`, `agent.run`
and the saved settings, for the planner and the executor alike:

    PROVIDER:MODEL                    gemini:gemini-2.5-flash
    openai_compat:PRESET:MODEL        openai_compat:llamacpp:qwen2.5-coder-1.5b
    PRESET:MODEL                      llamacpp:qwen2.5-coder-1.5b   ollama:qwen2.5:1.5b
    ...?OPTION=VALUE&OPTION=VALUE     llamacpp:qwen?base_url=http://127.0.0.1:8081/v1&temperature=0

The model name may itself hold colons (Ollama's `qwen2.5:1.5b`): only the provider and a known
preset are split off the front. Options are the provider's own (base_url, native_tools,
json_schema: constrain answers to the grammar's schema, vision, context_tokens; computer_use: the
executor is shown the screenshot every turn and answers in its coordinates, with Gemini's
computer-use tool, Anthropic's computer tool, whose version computer_tool names, or OpenAI's
computer_use_preview tool through the Responses API) and the calls'
(temperature, timeout in seconds per model call). Local servers
(the presets that need no key) default to temperature 0 and a longer call timeout, since a
model on a laptop CPU takes tens of seconds per answer and sampling noise flips its verdicts.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from waymark.providers.errors import ProviderNotConfigured


def has_computer_use(provider: str, preset: str | None) -> bool:
    """Whether this provider (and openai_compat preset) has a computer-use mode (the `computer_use`
    option): Gemini, Anthropic, and OpenAI itself (its Responses API), the default preset."""
    return provider in ("gemini", "anthropic") or (provider == "openai_compat" and (preset or "openai") == "openai")

#: Option name -> its type, for options given as text (`?temperature=0`).
_PROVIDER_OPTIONS: dict[str, type] = {"base_url": str, "preset": str, "native_tools": bool, "json_schema": bool, "vision": bool,
                                      "context_tokens": int, "computer_use": bool, "computer_tool": str}
_CALL_OPTIONS: dict[str, type] = {"temperature": float, "timeout": float}
OPTION_NAMES: tuple[str, ...] = (*_PROVIDER_OPTIONS, *_CALL_OPTIONS)
#: Per-call timeouts (seconds) when none is given: cloud APIs answer in seconds, a local model
#: on a CPU can need minutes for a plan.
CLOUD_TIMEOUT_S = 120.0
LOCAL_TIMEOUT_S = 300.0
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
_CREDENTIAL = re.compile(r"key|token|secret|password", re.IGNORECASE)


class SpecError(ProviderNotConfigured):
    """A model spec that cannot be read; the message shows the syntax."""


def _presets() -> dict[str, Any]:
    from waymark.providers.openai_compat import PRESETS

    return PRESETS


def _typed(name: str, text: Any) -> Any:
    kind = {**_PROVIDER_OPTIONS, **_CALL_OPTIONS}[name]
    if not isinstance(text, str):
        return text
    try:
        if kind is bool:
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError(text)
        return kind(text)
    except ValueError:
        raise SpecError(f"option {name} takes a {kind.__name__}, not {text[:40]!r}") from None


class ModelSpec(BaseModel):
    """A provider, a model, the provider's options and the call settings of one role."""

    model_config = ConfigDict(extra="forbid")

    provider: str
    model: str
    #: Keyword options of the provider (preset, base_url, native_tools, vision, context_tokens, script).
    options: dict[str, Any] = Field(default_factory=dict)
    temperature: float | None = Field(default=None, ge=0, le=2)
    #: Seconds per model call; None: the default for this kind of server.
    timeout: float | None = Field(default=None, gt=0, le=3600)

    @classmethod
    def parse(cls, text: str) -> "ModelSpec":
        """Read `PROVIDER[:PRESET]:MODEL[?OPTION=VALUE&...]`; raises SpecError saying the syntax."""
        from waymark.providers.registry import names

        head, _, query = text.strip().partition("?")
        first, sep, rest = head.partition(":")
        if not sep or not first or not rest:
            raise SpecError(f"a model is PROVIDER:MODEL (gemini:gemini-2.5-flash) or PRESET:MODEL (llamacpp:qwen), not {text[:80]!r}")
        presets = _presets()
        options: dict[str, Any] = {}
        if first in presets:
            provider, model = "openai_compat", rest
            options["preset"] = first
        elif first == "openai_compat":
            preset, sep2, model = rest.partition(":")
            if sep2 and preset in presets:
                options["preset"] = preset
            else:
                model = rest
            provider = first
        elif first in names():
            provider, model = first, rest
        else:
            raise SpecError(f"unknown provider {first!r}; known: {', '.join(names())}, or a preset: {', '.join(presets)}")
        extra = cls.parse_options(dict(parse_qsl(query, keep_blank_values=True))) if query else {}
        return cls.make(provider, model, {**options, **extra})

    @staticmethod
    def parse_options(raw: dict[str, Any]) -> dict[str, Any]:
        """Options given as text or JSON values, typed; raises SpecError for an unknown name."""
        unknown = [k for k in raw if k not in OPTION_NAMES]
        if unknown:
            raise SpecError(f"unknown model option {unknown[0]!r}; known: {', '.join(OPTION_NAMES)}")
        return {k: _typed(k, v) for k, v in raw.items() if v is not None and v != ""}

    @classmethod
    def make(cls, provider: str, model: str, options: dict[str, Any] | None = None) -> "ModelSpec":
        """A spec from its parts; call options (temperature, timeout) are split from the provider's."""
        options = dict(options or {})
        call = {k: options.pop(k) for k in _CALL_OPTIONS if k in options}
        if options.get("computer_use") and not has_computer_use(provider, options.get("preset")):
            where = f"{provider} preset {options['preset']}" if options.get("preset") else provider
            raise SpecError(f"computer_use is an option of gemini, anthropic and openai_compat preset openai, not of {where}")
        if "computer_tool" in options and provider != "anthropic":
            raise SpecError("computer_tool (the version of Anthropic's computer tool) is an option of anthropic only")
        return cls(provider=provider, model=model, options=options, **call)

    def with_options(self, options: dict[str, Any]) -> "ModelSpec":
        """This spec with more options (given ones win)."""
        merged = {**self.options, **({"temperature": self.temperature} if self.temperature is not None else {}),
                  **({"timeout": self.timeout} if self.timeout is not None else {}), **options}
        return ModelSpec.make(self.provider, self.model, merged)

    def is_local(self) -> bool:
        """A model on this machine: MLX in-process, a server on a loopback URL, or a preset that
        needs no key (they listen on loopback by default)."""
        if self.provider == "mlx":
            return True
        if self.provider != "openai_compat":
            return False
        base_url = self.options.get("base_url")
        if isinstance(base_url, str):
            return urlsplit(base_url).hostname in ("127.0.0.1", "localhost", "::1")
        preset = self.options.get("preset")
        return preset is not None and preset in _presets() and not _presets()[preset].needs_key

    def call_temperature(self) -> float | None:
        """The temperature of this role's calls: the given one, 0 for a local server, else the API's default."""
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.is_local() else None

    def call_timeout(self) -> float:
        """Seconds per model call."""
        return self.timeout or (LOCAL_TIMEOUT_S if self.is_local() else CLOUD_TIMEOUT_S)

    def label(self) -> str:
        """The spec as text, the way `parse` reads it back."""
        # A label is shown and stored (eval rows, logs): a credential passed as an option never is.
        options = {k: v for k, v in self.options.items() if k not in ("preset", "script") and (k in OPTION_NAMES or not _CREDENTIAL.search(k))}
        preset = self.options.get("preset")
        head = f"{self.provider}:{preset}:{self.model}" if preset else f"{self.provider}:{self.model}"
        call = {k: v for k, v in (("temperature", self.temperature), ("timeout", self.timeout)) if v is not None}
        query = urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in {**options, **call}.items()}, safe=":/")
        return f"{head}?{query}" if query else head

    def build(self) -> Any:
        """The LLMProvider this spec names (raises ProviderNotConfigured / AuthError)."""
        from waymark.providers.registry import create

        return create(self.provider, self.model, **self.options)


class ChoiceError(SpecError):
    """A model choice that names too little or too much (not a spec that cannot be read)."""


class ModelChoice(BaseModel):
    """How a run's models are named, the one way for the CLI, `agent.run` and eval: a provider
    and a model for both roles, one whole spec for both, or a planner and an executor spec."""

    model_config = ConfigDict(extra="forbid")

    provider: str | None = None
    model: str | None = None
    planner: str | None = None
    executor: str | None = None

    def specs(self, options: dict[str, Any] | None = None) -> tuple[ModelSpec, ModelSpec] | None:
        """(planner, executor) with `options` applied to both, or None when nothing was named
        (the settings saved per role apply). Raises ChoiceError for a choice that names too little
        or too much, SpecError for a spec that cannot be read."""
        if self.planner or self.executor:
            if self.provider or self.model:
                raise ChoiceError("use either a provider and model (or one model spec) or a planner and an executor, not both")
            if not (self.planner and self.executor):
                raise ChoiceError("give both planner and executor (a model spec each, e.g. gemini:gemini-2.5-flash)")
            planner, executor = ModelSpec.parse(self.planner), ModelSpec.parse(self.executor)
        elif self.provider:
            if self.provider == "scripted":
                planner = executor = ModelSpec.make("scripted", self.model or "scripted")
            elif not self.model:
                raise ChoiceError(f"provider {self.provider} needs a model")
            else:
                planner = executor = ModelSpec.parse(f"{self.provider}:{self.model}")
        elif self.model:
            planner = executor = ModelSpec.parse(self.model)
        else:
            return None
        if options:
            planner, executor = planner.with_options(options), executor.with_options(options)
        return planner, executor

