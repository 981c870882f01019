"""A loopback HTTP site that logs every request it gets (method, path, query, headers, body):
the "attacker" of the security tests, and the allowed site they start from. Each is reached by
its own host name under `.test`, which the test browser maps to 127.0.0.1
(`--host-resolver-rules`, tests/conftest.py), so that "allowed" and "attacker" are different hosts
to the browser's parser and to declarativeNetRequest alike."""

from __future__ import annotations

import http.server
import socketserver
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: The host names the test browser resolves to 127.0.0.1.
RESOLVER_RULES = "--host-resolver-rules=MAP *.test 127.0.0.1"


@dataclass
class Logged:
    """One request as the site received it."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: str


@dataclass
class LoggingSite:
    """Serves `pages` (path -> HTML) and `redirects` (path -> URL) on 127.0.0.1; logs every request."""

    name: str
    pages: dict[str, str] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    log: list[Logged] = field(default_factory=list)
    port: int = 0
    _server: Any = None

    @property
    def url(self) -> str:
        """The site's base URL under its own host name (http://NAME.test:PORT)."""
        return f"http://{self.name}.test:{self.port}"

    def start(self) -> LoggingSite:
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                parts = urlsplit(self.path)
                site.log.append(Logged(self.command, parts.path, parts.query, dict(self.headers), body))
                if parts.path in site.redirects:
                    self.send_response(302)
                    self.send_header("Location", site.redirects[parts.path])
                    self.end_headers()
                    return
                page = site.pages.get(parts.path, "<!doctype html><title>logged</title><p>logged</p>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(page)

            do_GET = do_POST = do_HEAD = _answer

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def requests_for(self, path: str) -> list[Logged]:
        """The logged requests of one path."""
        return [r for r in self.log if r.path == path]
