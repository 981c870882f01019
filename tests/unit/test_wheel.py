"""The wheel a user installs: everything under one `waymark` package, the extension inside it,
and `waymark install-host` pointing Chrome at that installed extension, not at a checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "waymark", "host", "providers", "eval", "extension")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """site-packages-like folder holding the wheel built from this checkout (once per module). The
    build runs on a copy so that setuptools' build/ and egg-info stay out of the checkout."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copyfile(path, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    # -v: the build backend's own warnings are what the install used to bury the user in.
    built = subprocess.run([*pip[:-1], "-v", "wheel", "--no-deps", "-w", str(base / "dist"), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (base / "build.log").write_text(built.stdout + built.stderr)
    (wheel,) = (base / "dist").glob("waymark-*.whl")
    target = base / "site"
    done = subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return target


def _run_installed(target: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Python with the installed wheel first on its path, started outside the checkout."""
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("WAYMARK_EXTENSION_DIR", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_wheel_installs_only_the_waymark_package(installed: Path):
    top_level = {p.name for p in installed.iterdir() if not p.name.endswith(".dist-info") and p.name != "bin"}
    assert top_level == {"waymark"}


def test_the_wheel_holds_every_python_module_of_the_tree(installed: Path):
    missing = [str(p.relative_to(ROOT)) for name in ("host", "providers", "eval") for p in (ROOT / name).rglob("*.py")
               if "__pycache__" not in p.parts and not (installed / "waymark" / p.relative_to(ROOT)).is_file()]
    assert missing == []


def test_building_the_package_gives_setuptools_nothing_to_warn_about(installed: Path):
    log = (installed.parent / "build.log").read_text()
    assert "would be ignored" not in log and "SetuptoolsDeprecationWarning" not in log


def test_the_wheel_ships_the_extension_inside_the_package(installed: Path):
    shipped = installed / "waymark" / "extension"
    assert (shipped / "manifest.json").read_bytes() == (ROOT / "extension" / "manifest.json").read_bytes()
    missing = [str(p.relative_to(ROOT)) for p in (ROOT / "extension").rglob("*")
               if p.is_file() and not (shipped / p.relative_to(ROOT / "extension")).is_file()]
    assert missing == []


def test_the_installed_package_imports_as_waymark_host(installed: Path, tmp_path: Path):
    done = _run_installed(installed, "-c", "import waymark.host.cli; print(waymark.host.cli.__file__)", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(installed / "waymark" / "host")


def test_install_host_from_the_wheel_registers_the_installed_extension(installed: Path, tmp_path: Path):
    done = _run_installed(installed, "-m", "waymark.host", "install-host", "--user-data-dir", str(tmp_path / "profile"),
                          "--launcher-dir", str(tmp_path / "bin"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(installed / "waymark" / "extension") in done.stdout
    launcher = (tmp_path / "bin" / "waymark-native-host").read_text()
    assert f"PYTHONPATH={installed}" in launcher and "-m waymark.host host" in launcher
