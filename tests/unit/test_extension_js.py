"""The extension's JavaScript holds: its JSDoc types (`tsc --noEmit`, strict, with the
tsconfig beside the extension), ESLint, and the unit tests of its pure modules (Node's own
test runner). The tools come from the committed lockfile in tests/js."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "tests" / "js"


@pytest.fixture(scope="module")
def tools() -> Path:
    """tests/js/node_modules/.bin, installed exactly as the lockfile says when missing."""
    npm = shutil.which("npm")
    assert npm, "npm is needed to check the extension (install Node.js)"
    if not (JS / "node_modules" / ".bin" / "eslint").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True, capture_output=True, timeout=600)
    return JS / "node_modules" / ".bin"


def test_extension_type_checks_with_tsc_in_strict_mode(tools):
    done = subprocess.run([str(tools / "tsc"), "-p", str(ROOT / "extension" / "tsconfig.json")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_extension_passes_eslint(tools):
    done = subprocess.run([str(tools / "eslint"), "-c", str(JS / "eslint.config.mjs"), "extension"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_pure_extension_modules_pass_their_unit_tests():
    node = shutil.which("node")
    assert node, "node is needed for the extension's unit tests"
    done = subprocess.run([node, "--test", *sorted(str(p) for p in JS.glob("*.test.mjs"))], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout
