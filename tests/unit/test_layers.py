"""The tree's own rules, checked like behaviour: imports follow the layers in pyproject.toml
(no upward import, no circle), ruff finds nothing, and mypy passes strict on the bottom layer
and the providers."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def test_imports_keep_the_layer_contracts():
    done = _run(str(BIN / "lint-imports"), "--no-cache")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_every_host_module_stands_in_a_layer():
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    declared = {name.strip() for layer in layers for name in layer.split("|")}
    children = {f"host.{p.stem}" for p in (ROOT / "host").iterdir()
                if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert children - declared == set(), "add each new host module to a layer in pyproject.toml"


def test_ruff_finds_nothing():
    done = _run(str(BIN / "ruff"), "check", "--no-cache", "host", "providers", "eval", "tests")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_mypy_passes_strict_on_the_bottom_layer_and_providers():
    done = _run(str(BIN / "mypy"))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
