"""Trac (trac.edgewall.org), the issue tracker and wiki, from the package registry, pinned: an
environment seeded by trac_site/seed.py, served by `tracd` on loopback with HTTP basic
authentication, Trac's own login: /login answers 401 until the request carries the user's
credentials, then sets the `trac_auth` cookie every later page reads. Judged on the
environment's SQLite database."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from waymark.eval.apps.base import App, AppError

SEED = Path(__file__).resolve().parent / "trac_site" / "seed.py"
REALM = "Waymark Tracker"


class Trac(App):
    name = "trac"
    version = "1.6"
    packages = ("trac==1.6", "jinja2==3.1.6", "markupsafe==3.0.4")
    #: admin holds TRAC_ADMIN; ada has what every signed-in user has (create and change tickets, edit the wiki).
    users = {"admin": "trac-admin-pw", "ada": "lovelace-trac"}

    def seed(self, pristine: Path) -> None:
        self._run([str(self.cached_python()), str(SEED), str(pristine / "env")], "seed the Trac environment", cwd=pristine)
        # Apache's {SHA} form of htpasswd, which Trac's basic authentication reads.
        (pristine / "htpasswd").write_text("".join(
            f"{user}:{{SHA}}{base64.b64encode(hashlib.sha1(password.encode()).digest()).decode()}\n"
            for user, password in self.users.items()), encoding="utf-8")

    def start(self, state: Path, port: int) -> None:
        tracd = self.cached_python().parent / "tracd"
        self.serve([str(tracd), "--single-env", "--hostname", "127.0.0.1", "--port", str(port),
                    "--basic-auth", f"*,{state / 'htpasswd'},{REALM}", str(state / "env")],
                   port, state / "tracd.log", cwd=state)

    def db_path(self, state: Path) -> Path:
        return state / "env" / "db" / "trac.db"

    async def login_steps(self, page: Any, base_url: str, user: str) -> None:
        """Trac's login is the browser answering /login's basic-auth challenge: the request is sent
        from the page's own browser context, so the `trac_auth` cookie it sets is the page's."""
        if user not in self.users:
            raise AppError(f"{self.name} has no seeded user {user!r}; known: {', '.join(sorted(self.users))}")
        token = base64.b64encode(f"{user}:{self.users[user]}".encode()).decode()
        answer = await page.context.request.get(base_url.rstrip("/") + "/login",
                                                headers={"Authorization": f"Basic {token}"}, max_redirects=0)
        if answer.status != 302 or "trac_auth=" not in answer.headers.get("set-cookie", ""):
            raise AppError(f"{self.name}: logging in as {user!r} answered {answer.status} with no trac_auth cookie")
