"""Serve a folder of fixture pages on loopback, on two origins (for cross-origin iframes).

`http://127.0.0.1:P1` and `http://localhost:P2` are different origins; both listen on
127.0.0.1 only. Responses are never cached, so a page edited between runs is reloaded.
`/_hold` (HOLD_PATH) is a response that stays open, for pages that never finish loading.
"""

from __future__ import annotations

import functools
import http.server
import math
import socketserver
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

SITES_DIR = Path(__file__).resolve().parent
#: A request for this path is held open, as a long poll or a stream is: see _QuietHandler.hold.
HOLD_PATH = "/_hold"
#: How often a held response sends a byte (a stream's keep-alive).
HOLD_TICK_S = 0.25


#: Where the fixture sites' collector listens: a hostile page asks the agent to send the user's data
#: under this path (on the other origin), and every request that arrives there is recorded.
COLLECT_PREFIX = "/collect/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    #: Requests the collector received, as "METHOD path?query body" (shared by one SiteServer's origins).
    collected: list[str] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass

    #: The charset declared for .html files, or None to let each page declare its own.
    html_charset: str | None = None

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path.startswith(COLLECT_PREFIX):
            self._collect()
        elif urlsplit(self.path).path == HOLD_PATH:
            self.hold()
        else:
            super().do_GET()

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        if self.path.startswith(COLLECT_PREFIX):
            self._collect()
        else:
            self.send_error(405)

    def _collect(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        self.collected.append(f"{self.command} {self.path} {body}".strip())
        page = b"<!doctype html><title>Thanks</title><h1>Thanks</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def guess_type(self, path: Any) -> str:
        kind = super().guess_type(path)
        return f"{kind}; charset={self.html_charset}" if self.html_charset and kind == "text/html" else kind

    def hold(self) -> None:
        """Answer as a long poll or a stream does: the headers and the start of a document at once,
        then a byte every HOLD_TICK_S, ending after `?seconds=N`, or without it only when the server
        closes or the browser goes away (a page that loads it in a frame never finishes loading)."""
        query = parse_qs(urlsplit(self.path).query)
        try:
            seconds = float(query["seconds"][0]) if "seconds" in query else math.inf
        except ValueError:
            self.send_error(400, "seconds must be a number")
            return
        closing: threading.Event = self.server.closing
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        ends = time.monotonic() + seconds
        try:
            # The start of a document, as a stream frame's first chunk is: a frame that got no
            # element yet is one Chrome cannot inject scripts into at all.
            self.wfile.write(b"<!doctype html><meta charset=utf-8><body>")
            self.wfile.flush()
            while time.monotonic() < ends and not closing.wait(min(HOLD_TICK_S, max(0.0, ends - time.monotonic()))):
                self.wfile.write(b" ")
                self.wfile.flush()
        except ConnectionError:
            return  # the page or its frame went away


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Set when the server stops: held responses end (see _QuietHandler.hold).
        self.closing = threading.Event()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser that closed its tab mid-transfer (a bench cutting a page at its bound) is no
        # server error; anything else is printed as the stdlib does.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class SiteServer:
    """Serves `directory` on two loopback origins while open. Use as a context manager."""

    def __init__(self, directory: Path = SITES_DIR, html_charset: str | None = None) -> None:
        self.directory = Path(directory)
        #: Declared for every .html file when set (pages whose bytes say nothing of their encoding).
        self.html_charset = html_charset
        self._servers: list[_Server] = []
        #: Base URL on the first origin (http://127.0.0.1:P1).
        self.site = ""
        #: Base URL on the second origin (http://localhost:P2).
        self.other = ""
        #: What the collector (COLLECT_PREFIX, on either origin) received, oldest first.
        self.collected: list[str] = []

    def start(self) -> "SiteServer":
        """Start both servers; returns self."""
        if not self.directory.is_dir():
            raise FileNotFoundError(f"nothing to serve: {self.directory} is not a folder")
        handler_class = type("_Handler", (_QuietHandler,), {"html_charset": self.html_charset, "collected": self.collected})
        handler = functools.partial(handler_class, directory=str(self.directory))
        for _ in range(2):
            server = _Server(("127.0.0.1", 0), handler)
            threading.Thread(target=server.serve_forever, name="site-server", daemon=True).start()
            self._servers.append(server)
        self.site = f"http://127.0.0.1:{self._servers[0].server_address[1]}"
        self.other = f"http://localhost:{self._servers[1].server_address[1]}"
        return self

    def collected_for(self, name: str) -> list[str]:
        """What the collector received under COLLECT_PREFIX + `name` (one task's own collector)."""
        prefix = f"{COLLECT_PREFIX}{name}/"
        return [hit for hit in self.collected if hit.split(" ", 2)[1].startswith(prefix)]

    def close(self) -> None:
        """Stop serving."""
        for server in self._servers:
            server.closing.set()
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def __enter__(self) -> "SiteServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
