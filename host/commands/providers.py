"""`waymark providers`: every provider, whether it is configured (and where its key comes from,
never the key), and whether it answers a cheap request; then the models saved per role in the
settings, and any given with --model, checked at the endpoint they will really use (a local
server on another port than its preset's default is checked there)."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from waymark.providers.choices import ProviderChoice
    from waymark.providers.spec import ModelSpec


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("providers", help="list the model providers: configured? reachable?")
    p.add_argument("--no-check", action="store_true", help="do not contact any provider")
    p.add_argument("--timeout", type=float, default=3.0, help="seconds per reachability check (default 3)")
    p.add_argument("--model", action="append", default=[], metavar="SPEC",
                   help="also check this model spec (e.g. llamacpp:qwen?base_url=http://127.0.0.1:8081/v1); repeatable")
    p.set_defaults(handler=_run)


async def reachable(target: "ProviderChoice", timeout: float) -> str:
    """One line on whether the target answers a cheap request; never raises."""
    from waymark.providers.spec import ModelSpec

    return await spec_reachable(ModelSpec.make(target.provider, "", {"preset": target.preset} if target.preset else {}), timeout)


async def spec_reachable(spec: "ModelSpec", timeout: float) -> str:
    """One line on whether the endpoint of this spec answers a cheap request; never raises."""
    from waymark.providers.errors import AuthError, ProviderError

    if spec.provider in ("mlx", "scripted"):
        return "in-process"
    try:
        provider = spec.build()
    except ProviderError as exc:
        return f"not checked: {exc.message}"
    where = getattr(provider, "base_url", "")
    try:
        return "yes, " + await provider.ping(timeout)
    except AuthError as exc:
        return f"answers, but refused the key (HTTP {exc.status})"
    except ProviderError as exc:
        return f"no ({type(exc).__name__} at {where})" if where else f"no ({type(exc).__name__})"
    finally:
        await provider.aclose()


async def _check(rows: list[tuple["ProviderChoice", bool]], timeout: float) -> list[str]:
    async def one(target: "ProviderChoice", configured: bool) -> str:
        return await reachable(target, timeout) if configured else "-"

    return list(await asyncio.gather(*(one(t, ok) for t, ok in rows)))


def _chosen(args: argparse.Namespace) -> list[tuple[str, "ModelSpec | None", str]]:
    """(label, spec or None, why not) of each role's saved model and each --model spec."""
    from waymark.host.settings import ROLES, effective_role, load_settings, role_spec
    from waymark.providers.errors import ProviderError
    from waymark.providers.spec import ModelSpec, SpecError

    rows: list[tuple[str, ModelSpec | None, str]] = []
    settings = load_settings()
    for role in ROLES:
        if not effective_role(settings, role).provider:
            continue
        try:
            spec = role_spec(role, settings)
            rows.append((f"settings {role}: {spec.label()}", spec, ""))
        except ProviderError as exc:
            rows.append((f"settings {role}", None, exc.message))
    for text in args.model:
        try:
            spec = ModelSpec.parse(text)
            rows.append((f"--model {spec.label()}", spec, ""))
        except SpecError as exc:
            rows.append((f"--model {text}", None, exc.message))
    return rows


def _run(args: argparse.Namespace) -> int:
    from waymark.providers.choices import choices, status

    rows = [(t, *status(t)) for t in choices()]
    if args.no_check:
        reach = ["not checked"] * len(rows)
    else:
        reach = asyncio.run(_check([(t, ok) for t, ok, _ in rows], args.timeout))
    w1 = max(len(t.label) for t, _, _ in rows)
    w2 = max(len(detail) for _, _, detail in rows)
    print(f"{'provider':<{w1}}  {'configured':<{w2}}  reachable")
    for (target, _ok, detail), line in zip(rows, reach):
        print(f"{target.label:<{w1}}  {detail:<{w2}}  {line}")
    chosen = _chosen(args)
    if chosen:
        print("\nmodels in use")
        for label, spec, problem in chosen:
            if spec is None:
                line = f"not usable: {problem}"
            elif args.no_check:
                line = "not checked"
            else:
                line = asyncio.run(spec_reachable(spec, args.timeout))
            print(f"{label}  reachable: {line}")
    return 0
