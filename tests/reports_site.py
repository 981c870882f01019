"""A loopback reports site, as a back office serves its reports: a page with a "Download the March
report" link (a CSV), a PDF report it serves only to a signed-in browser (the page's cookie), and a
link to download that PDF. The PDF is written here byte by byte (one page of Helvetica text, its
cross-reference table counted exactly), so a real PDF reader (Chrome's viewer, pypdf) reads it."""

from __future__ import annotations

import http.server
import socketserver
import threading
from typing import Any

MARCH_CSV = b"month,region,revenue\nMarch,North,4210\nMarch,South,3980\n"
APRIL_CSV = b"month,region,revenue\nApril,North,4400\n"
#: The lines of the PDF report's one page.
PDF_LINES = ("Quarterly report", "March revenue: 4,210 EUR")
#: The cookie the site's page sets; the PDF is served only with it.
SESSION_COOKIE = "reports_session=signed-in"

REPORTS_HTML = """<!doctype html><html><head><title>Reports</title></head><body><main>
<h1>Reports</h1>
<p><a href="/march.csv" download>Download the March report</a></p>
<p><a href="/report.pdf">Open the quarterly report</a></p>
<p><a href="/report.pdf" download="quarterly.pdf">Download the quarterly report</a></p>
<p><a href="/export?month=march">Export March as CSV</a></p>
</main></body></html>"""

#: An export the page "prepares" first: its download starts two seconds after the click, by then
#: long after a debugger that leaves a quiet tab has gone.
PREPARE_HTML = """<!doctype html><html><head><title>Exports</title></head><body><main>
<h1>Exports</h1>
<button id="prepare">Prepare the March export</button><p id="status" role="status"></p>
<script>
document.getElementById("prepare").addEventListener("click", () => {
  document.getElementById("status").textContent = "Preparing your export...";
  setTimeout(() => {
    const a = Object.assign(document.createElement("a"), {href: "/march.csv", download: "march-prepared.csv"});
    document.body.append(a);
    a.click();
    document.getElementById("status").textContent = "Your export has started.";
  }, 2000);
});
</script></main></body></html>"""

USER_HTML = """<!doctype html><html><head><title>My files</title></head><body>
<a href="/april.csv" download>Download the April report</a></body></html>"""


def pdf_document(lines: tuple[str, ...]) -> bytes:
    """A one-page PDF 1.4 showing `lines` (plain ASCII without parentheses or backslashes)."""
    content = "BT /F1 14 Tf 72 720 Td 18 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("ascii")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    out += b"".join(f"{offset:010d} 00000 n \n".encode("ascii") for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode("ascii")
    return out


class ReportsSite:
    """Serves the reports on 127.0.0.1; `pdf_requests` counts the PDF's requests and whether each had the cookie."""

    def __init__(self) -> None:
        self.pdf = pdf_document(PDF_LINES)
        self.pdf_requests: list[bool] = []
        self._server: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> ReportsSite:
        site = self
        files = {"/march.csv": ("text/csv", MARCH_CSV), "/april.csv": ("text/csv", APRIL_CSV),
                 "/reports.html": ("text/html", REPORTS_HTML.encode()), "/mine.html": ("text/html", USER_HTML.encode()),
                 "/prepare.html": ("text/html", PREPARE_HTML.encode())}

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
                pass

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/report.pdf":
                    signed_in = SESSION_COOKIE in (self.headers.get("Cookie") or "")
                    site.pdf_requests.append(signed_in)
                    kind, body = ("application/pdf", site.pdf) if signed_in else ("text/plain", b"sign in first")
                    self.send_response(200 if signed_in else 403)
                elif path == "/export":
                    # An export endpoint, as back offices serve them: the browser saves what the link opens.
                    kind, body = "text/csv", MARCH_CSV
                    self.send_response(200)
                    self.send_header("Content-Disposition", 'attachment; filename="march-export.csv"')
                elif path in files:
                    kind, body = files[path]
                    self.send_response(200)
                else:
                    kind, body = "text/plain", b"not found"
                    self.send_response(404)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                if path == "/reports.html":
                    self.send_header("Set-Cookie", f"{SESSION_COOKIE}; Path=/; SameSite=Lax")
                self.end_headers()
                self.wfile.write(body)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
