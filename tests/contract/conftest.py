"""The contract suite runs every test against every provider in the registry."""

from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from tests.contract.backends import Backend, backend_for
from tests.contract.fake_server import FakeServer
from waymark.providers import registry


@pytest_asyncio.fixture(scope="session")
async def fake_server() -> AsyncIterator[FakeServer]:
    """One loopback server speaking the OpenAI, Anthropic and Gemini wire protocols."""
    server = await FakeServer().start()
    yield server
    await server.stop()


@pytest.fixture(scope="session")
def mlx_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tiny MLX models of the suite are saved."""
    return tmp_path_factory.mktemp("mlx-models")


@pytest.fixture(params=registry.names())
def backend(request: pytest.FixtureRequest, fake_server: FakeServer, mlx_models: Path) -> Iterator[Backend]:
    """Each registered provider in turn (a provider without a contract backend fails here).
    A scripted reply the official SDK types refuse fails the test with their reason."""
    if request.param == "mlx":
        pytest.importorskip("mlx_lm", reason="mlx-lm is not installed (the test extra installs it)")
    fake_server.unrealistic.clear()
    yield backend_for(request.param, fake_server, mlx_models)
    assert not fake_server.unrealistic, f"a fake answer no real API would send: {fake_server.unrealistic[0]}"
