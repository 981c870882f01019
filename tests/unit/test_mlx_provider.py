"""MLX specifics beyond the contract: the context limit and a missing model folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymark.providers import errors, registry
from waymark.providers.base import CompletionRequest, Message

pytest.importorskip("mlx_lm", reason="mlx-lm is not installed (the test extra installs it)")


async def test_prompt_longer_than_the_context_is_context_too_long(tmp_path: Path) -> None:
    from tests.contract.tiny_mlx import build

    folder = build(tmp_path / "model", "fine")
    provider = registry.create("mlx", str(folder), context_tokens=5)
    with pytest.raises(errors.ContextTooLong):
        await provider.complete(CompletionRequest(messages=[Message.text("user", "one two three four five six seven")]))


async def test_missing_model_folder_is_not_configured(tmp_path: Path) -> None:
    provider = registry.create("mlx", str(tmp_path / "nothing-here"))
    with pytest.raises(errors.ProviderNotConfigured):
        await provider.complete(CompletionRequest(messages=[Message.text("user", "hi")]))
