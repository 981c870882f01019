"""The extension's JSDoc types hold: `tsc --noEmit` over every extension module."""

import shutil
import subprocess
from pathlib import Path

JS = Path(__file__).resolve().parent.parent / "js"


def test_extension_type_checks_with_tsc():
    npm = shutil.which("npm")
    assert npm, "npm is needed to type-check the extension (install Node.js)"
    if not (JS / "node_modules" / ".bin" / "tsc").exists():
        subprocess.run([npm, "install", "--no-audit", "--no-fund", "--no-package-lock"], cwd=JS, check=True, capture_output=True, timeout=300)
    done = subprocess.run([str(JS / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json"], cwd=JS, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
