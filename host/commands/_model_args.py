"""The model-selection options `waymark run` and `waymark eval run` share, read into the one
model-spec syntax (providers.spec) so both commands, `agent.run` and the settings agree."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from waymark.providers.spec import ModelChoice, ModelSpec, SpecError

SPEC_HELP = "PROVIDER:MODEL, PRESET:MODEL or openai_compat:PRESET:MODEL, with ?option=value&... (see README)"


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """--provider/--model, --planner/--executor and the options that apply to both roles."""
    p.add_argument("--provider", help="provider (or openai_compat preset) for both roles; see `waymark providers`")
    p.add_argument("--model", help=f"model for both roles: a name with --provider, else a whole spec ({SPEC_HELP})")
    p.add_argument("--planner", metavar="SPEC", help="planner model spec (with --executor)")
    p.add_argument("--executor", metavar="SPEC", help="executor model spec (with --planner)")
    p.add_argument("--base-url", help="the OpenAI-compatible server's URL (e.g. http://127.0.0.1:8080/v1)")
    p.add_argument("--temperature", type=float, help="sampling temperature of every model call (local servers: 0)")
    p.add_argument("--call-timeout", type=float, metavar="SECONDS", help="seconds per model call (local servers: 300, else 120)")
    p.add_argument("--context-tokens", type=int, help="the model's context window; sizes the page snapshot sent to it")
    p.add_argument("--native-tools", action=argparse.BooleanOptionalAction, default=None,
                   help="use the server's tool calling (default: what the provider or preset supports)")
    p.add_argument("--no-plan", dest="plan", action="store_false",
                   help="no planner: the executor works on the whole task turn by turn (for small models whose plans do not hold)")


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    pairs = (("base_url", args.base_url), ("temperature", args.temperature), ("timeout", args.call_timeout),
             ("context_tokens", args.context_tokens), ("native_tools", args.native_tools))
    return {k: v for k, v in pairs if v is not None}


def specs_from_args(args: argparse.Namespace) -> tuple[ModelSpec, ModelSpec] | None:
    """(planner, executor) from the command line, or None when no model was named (the saved
    settings then apply). Raises ValueError for a usage error."""
    choice = ModelChoice(provider=args.provider, model=args.model, planner=args.planner, executor=args.executor)
    try:
        specs = choice.specs(_overrides(args))
    except SpecError as exc:
        raise ValueError(exc.message) from None
    if specs is None and _overrides(args):
        raise ValueError("model options need a model: --provider P --model M, --model SPEC or --planner/--executor")
    return specs


def models_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The models of an `agent.run` call: the scripted provider with `--script FILE`, else the
    specs on the command line, else nothing (the providers saved per role in the settings apply).
    Raises ValueError for a usage error."""
    if args.script:
        try:
            return {"script": json.loads(Path(args.script).read_text(encoding="utf-8"))}
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read the script {args.script}: {exc}") from None
    specs = specs_from_args(args)
    models: dict[str, Any] = {"planner": specs[0].label(), "executor": specs[1].label()} if specs else {}
    if not args.plan:
        models["plan"] = False
    return models
