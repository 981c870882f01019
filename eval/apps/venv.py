"""An application's own virtual environment and server process: the app's packages never touch
Waymark's venv, and its server is one child process on loopback that we start and end by its id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


class AppError(RuntimeError):
    """An application could not be installed, seeded or started; the message says which step and why."""


def ensure_venv(target: Path, packages: list[str]) -> Path:
    """A venv at `target` holding exactly `packages` (pinned, wheels only); returns its Python.
    Idempotent: a venv whose marker names the same packages is kept as it is."""
    python = target / "bin" / "python"
    marker = target / "waymark-packages.json"
    wanted = json.dumps(sorted(packages))
    if python.is_file() and marker.is_file() and marker.read_text(encoding="utf-8") == wanted:
        return python
    run([sys.executable, "-m", "venv", "--clear", str(target)], what=f"create the venv {target}")
    run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", "--only-binary=:all:",
         "--no-deps", *packages], what=f"install {', '.join(packages)}")
    marker.write_text(wanted, encoding="utf-8")
    return python


def run(command: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run one step of an install or seed; a failure raises AppError with the step's own output."""
    try:
        done = subprocess.run(command, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AppError(f"could not {what}: {exc}") from exc
    if done.returncode != 0:
        raise AppError(f"could not {what} (exit {done.returncode}): {(done.stdout + done.stderr)[-3000:]}")
    return done


def serve(command: list[str], port: int, log: Path, cwd: Path | None = None, env: dict[str, str] | None = None,
          path: str = "/", timeout: float = 60) -> subprocess.Popen[bytes]:
    """Start a server and return once http://127.0.0.1:port{path} answers (any HTTP status)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(command, cwd=cwd, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AppError(f"{command[0]} exited with {process.returncode}: {log.read_text(errors='replace')[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5):
                return process
        except urllib.error.HTTPError:
            return process
        except OSError:
            time.sleep(0.2)
    end(process)
    raise AppError(f"{command[0]} did not answer on port {port} within {timeout:.0f} s")


def end(process: subprocess.Popen[bytes] | None) -> None:
    """End a server we started, by its own process, and wait for it."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
