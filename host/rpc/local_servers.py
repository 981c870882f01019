"""`providers.local`: the model servers running on this machine, found on their default ports, so
the side panel's first-run card can offer them before any cloud provider (no key, no cost).

A server counts as found when its OpenAI-compatible model listing answers; it is offered with
the models it lists. `WAYMARK_LOCAL_SERVERS` (JSON, preset -> base URL) says where to look
instead, for a server moved off its default port.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from pydantic import BaseModel

from waymark.host.methods import CallContext, method
from waymark.providers.errors import ProviderError

#: The servers looked for, in the order offered, by their openai_compat preset, with the names users know.
LOCAL_SERVERS = {"ollama": "Ollama", "lmstudio": "LM Studio", "llamacpp": "llama.cpp"}
#: A local server answers its listing at once; one that does not within this is not offered.
PROBE_TIMEOUT_S = 1.5


class LocalServer(BaseModel):
    """One server found: its preset, its name, where it listens and the models it lists."""

    preset: str
    name: str
    base_url: str
    models: list[str]


def _where() -> dict[str, str]:
    """Each preset's base URL: the preset's default unless WAYMARK_LOCAL_SERVERS names another."""
    from waymark.providers.openai_compat import PRESETS

    try:
        moved = json.loads(os.environ.get("WAYMARK_LOCAL_SERVERS") or "{}")
    except ValueError:
        moved = {}
    moved = moved if isinstance(moved, dict) else {}
    return {p: str(moved.get(p) or PRESETS[p].base_url) for p in LOCAL_SERVERS}


async def _probe(preset: str, base_url: str) -> LocalServer | None:
    from waymark.providers.registry import create

    provider = create("openai_compat", "", preset=preset, base_url=base_url)
    try:
        ids = await provider.model_ids(timeout=PROBE_TIMEOUT_S)
    except ProviderError:
        return None
    finally:
        await provider.aclose()
    return LocalServer(preset=preset, name=LOCAL_SERVERS[preset], base_url=base_url, models=ids or []) if ids is not None else None


@method("providers.local")
async def providers_local(params: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """{servers: [{preset, name, base_url, models}]}: the local model servers that answer now."""
    found = await asyncio.gather(*(_probe(p, url) for p, url in _where().items()))
    return {"servers": [s.model_dump() for s in found if s is not None]}
