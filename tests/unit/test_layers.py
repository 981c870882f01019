"""The tree's own rules, checked like behaviour: imports follow the layers in pyproject.toml
(no upward import, no circle), ruff finds nothing, and mypy passes strict on the bottom layer
and the providers."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PACKAGES = ("host", "providers", "eval")


def _run(*command: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def package_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Python sources laid out as installed (waymark/host/..., waymark/providers/...): the
    checkout maps its top-level folders with setuptools package-dir, which import-linter and mypy,
    reading folders rather than import hooks, cannot follow."""
    tree = tmp_path_factory.mktemp("tree")
    shutil.copytree(ROOT / "waymark", tree / "waymark", ignore=shutil.ignore_patterns("__pycache__"))
    for name in PACKAGES:
        for source in (ROOT / name).rglob("*.py"):
            target = tree / "waymark" / name / source.relative_to(ROOT / name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    return tree


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def test_imports_keep_the_layer_contracts(package_tree: Path):
    done = _run(str(BIN / "lint-imports"), "--no-cache", str(ROOT / "pyproject.toml"), cwd=package_tree)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_every_host_module_stands_in_a_layer():
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    declared = {name.strip() for layer in layers for name in layer.split("|")}
    children = {f"waymark.host.{p.stem}" for p in (ROOT / "host").iterdir()
                if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert children - declared == set(), "add each new host module to a layer in pyproject.toml"


def test_ruff_finds_nothing():
    done = _run(str(BIN / "ruff"), "check", "--no-cache", "waymark", *PACKAGES, "tests")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.timeout(660)  # a cold mypy on a busy machine: the command's own deadline (600 s) decides
def test_mypy_passes_strict_on_the_bottom_layer_and_providers(package_tree: Path):
    done = _run(str(BIN / "mypy"), "--config-file", str(ROOT / "pyproject.toml"), cwd=package_tree)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
