"""`waymark providers`: every provider, whether it is configured (and where its key comes from,
never the key), and whether it answers a cheap request."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from providers.config import Target


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("providers", help="list the model providers: configured? reachable?")
    p.add_argument("--no-check", action="store_true", help="do not contact any provider")
    p.add_argument("--timeout", type=float, default=3.0, help="seconds per reachability check (default 3)")
    p.set_defaults(handler=_run)


async def reachable(target: "Target", timeout: float) -> str:
    """One line on whether the target answers a cheap request; never raises."""
    from providers import registry
    from providers.errors import AuthError, ProviderError

    if target.provider in ("mlx", "scripted"):
        return "in-process"
    try:
        provider = registry.create(target.provider, "", **({"preset": target.preset} if target.preset else {}))
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


async def _check(rows: list[tuple["Target", bool]], timeout: float) -> list[str]:
    async def one(target: "Target", configured: bool) -> str:
        return await reachable(target, timeout) if configured else "-"

    return list(await asyncio.gather(*(one(t, ok) for t, ok in rows)))


def _run(args: argparse.Namespace) -> int:
    from providers.config import status, targets

    rows = [(t, *status(t)) for t in targets()]
    if args.no_check:
        reach = ["not checked"] * len(rows)
    else:
        reach = asyncio.run(_check([(t, ok) for t, ok, _ in rows], args.timeout))
    w1 = max(len(t.label) for t, _, _ in rows)
    w2 = max(len(detail) for _, _, detail in rows)
    print(f"{'provider':<{w1}}  {'configured':<{w2}}  reachable")
    for (target, _ok, detail), line in zip(rows, reach):
        print(f"{target.label:<{w1}}  {detail:<{w2}}  {line}")
    return 0
