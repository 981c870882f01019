"""The text of a document's bytes, as the agent reads a page: a PDF's through pypdf (a PDF library
written outside this project), a text or CSV file's decoded; anything else is refused, never
guessed at. The text is the document's own: untrusted data, like a page's."""

from __future__ import annotations

import io
import logging

log = logging.getLogger(__name__)

#: MIME types read as text besides text/*.
_TEXT_TYPES = {"application/json", "application/xml", "application/csv", "application/x-csv", "application/javascript"}
#: File endings read as text whatever MIME type the server gave.
_TEXT_ENDINGS = (".txt", ".csv", ".tsv", ".json", ".xml", ".md", ".log", ".html", ".htm")


class DocumentUnreadable(Exception):
    """Bytes that are no text Waymark can read (a binary file, a broken or encrypted PDF)."""


def is_pdf(data: bytes) -> bool:
    """Whether the bytes are a PDF (its header may come after up to 1 KB of junk, as readers allow)."""
    return b"%PDF-" in data[:1024]


def pdf_text(data: bytes) -> str:
    """The text of every page of a PDF, pages separated by a blank line."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentUnreadable("the PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        log.info("pypdf could not read a PDF: %s", exc)
        raise DocumentUnreadable(f"the PDF could not be read ({type(exc).__name__})") from None
    return "\n\n".join(p.strip() for p in pages if p.strip())


def document_text(data: bytes, mime: str = "", name: str = "") -> str:
    """The text of a downloaded file: a PDF's pages, a text file's characters (UTF-8, else
    Latin-1); raises DocumentUnreadable for anything else."""
    if is_pdf(data):
        return pdf_text(data)
    kind = mime.split(";", 1)[0].strip().lower()
    if kind.startswith("text/") or kind in _TEXT_TYPES or name.lower().endswith(_TEXT_ENDINGS):
        if b"\0" in data[:8192]:
            raise DocumentUnreadable("the file holds binary data, not text")
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return data.decode("latin-1")
    raise DocumentUnreadable(f"a {kind or 'file of unknown type'} is not a text, CSV or PDF file")
