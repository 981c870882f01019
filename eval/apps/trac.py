"""Trac (trac.edgewall.org), the issue tracker and wiki, from PyPI: its own venv, an environment
seeded by `trac_site/seed.py`, served by `tracd` on loopback with HTTP basic authentication (Trac's
own login: /login answers 401 until the browser sends the user's credentials, then sets the
`trac_auth` cookie). Judged on the environment's SQLite database."""

from __future__ import annotations

import base64
import hashlib
import subprocess
from pathlib import Path

from .base import App
from .venv import end, ensure_venv, run, serve

SEED_SCRIPT = Path(__file__).resolve().parent / "trac_site" / "seed.py"
REALM = "Waymark Tracker"


class Trac(App):
    name = "trac"
    version = "1.6"
    #: The whole closure, pinned: installed with --no-deps from wheels.
    packages = ["Trac==1.6", "Jinja2==3.1.6", "MarkupSafe==3.0.4"]
    #: admin holds TRAC_ADMIN; ada has what every signed-in user has (create, modify tickets and wiki pages).
    users = {"admin": "trac-admin-pw", "ada": "lovelace-trac"}

    def __init__(self) -> None:
        self._venv: Path | None = None
        self._server: subprocess.Popen[bytes] | None = None

    def install(self, cache: Path) -> None:
        ensure_venv(cache / f"{self.name}-{self.version}", self.packages)
        self._venv = cache / f"{self.name}-{self.version}"

    def _bin(self, program: str) -> str:
        if self._venv is None:
            raise RuntimeError("Trac.install() must run first")
        return str(self._venv / "bin" / program)

    def seed(self, pristine: Path) -> None:
        run([self._bin("python"), str(SEED_SCRIPT), str(pristine / "env")], what="seed the Trac environment")
        # Apache's {SHA} form, which Trac's basic authentication reads.
        (pristine / "htpasswd").write_text("".join(
            f"{user}:{{SHA}}{base64.b64encode(hashlib.sha1(password.encode()).digest()).decode()}\n"
            for user, password in self.users.items()), encoding="utf-8")

    def start(self, state: Path, port: int) -> None:
        self._server = serve(
            [self._bin("tracd"), "--single-env", "--hostname", "127.0.0.1", "--port", str(port),
             "--basic-auth", f"*,{state / 'htpasswd'},{REALM}", str(state / "env")],
            port, log=state / "tracd.log")

    def stop(self) -> None:
        end(self._server)
        self._server = None

    def db_path(self, state: Path) -> Path:
        return state / "env" / "db" / "trac.db"
