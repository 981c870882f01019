"""The run's downloads (host/core/downloads.py): only a download of the run's own tabs since it
began is listed and readable, by its id, never by a path; the file's text is read as Chrome wrote
it (text, CSV, PDF through pypdf) within a budget; the `downloaded` check proves a step by one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.reports_site import MARCH_CSV, PDF_LINES, pdf_document
from waymark.host.agent.verifier import check, parse_predicate
from waymark.host.core.actions import offered_actions
from waymark.host.core.documents import DocumentUnreadable, document_text, pdf_text
from waymark.host.core.downloads import DownloadRefused, RunDownloads
from waymark.host.core.snapshot import Download, Snapshot

RUN_TAB, USER_TAB, STARTED = 7, 9, 1_000_000.0


def _download(path: Path, id: int = 1, tab: int = RUN_TAB, started: float = STARTED + 5, state: str = "complete",  # noqa: A002
              mime: str = "text/csv") -> Download:
    return Download(id=id, tab_id=tab, name=path.name, path=str(path), mime=mime, size=path.stat().st_size if path.exists() else 0,
                    state=state, started=started)


def _run(*downloads: Download) -> RunDownloads:
    run = RunDownloads(STARTED)
    run.see(list(downloads), {RUN_TAB})
    return run


def _refused(run: RunDownloads, download_id: int) -> str:
    with pytest.raises(DownloadRefused) as refused:
        run.read(download_id, 4000)
    return refused.value.code


def test_a_download_of_the_run_is_read_as_the_file_on_disk_holds_it(tmp_path):
    (tmp_path / "march.csv").write_bytes(MARCH_CSV)
    download, text, cut = _run(_download(tmp_path / "march.csv")).read(1, 4000)
    assert (download.name, text, cut) == ("march.csv", MARCH_CSV.decode(), False)


def test_a_read_is_cut_to_its_budget(tmp_path):
    (tmp_path / "march.csv").write_bytes(MARCH_CSV)
    _, text, cut = _run(_download(tmp_path / "march.csv")).read(1, 10)
    assert (text, cut) == (MARCH_CSV.decode()[:10], True)


def test_a_download_of_another_tab_is_not_the_runs_and_is_refused(tmp_path):
    (tmp_path / "april.csv").write_bytes(b"april")
    run = _run(_download(tmp_path / "april.csv", tab=USER_TAB))
    assert run.listed() == [] and _refused(run, 1) == "unknown_download"


def test_a_download_from_before_the_run_began_is_refused(tmp_path):
    (tmp_path / "old.csv").write_bytes(b"old")
    assert _refused(_run(_download(tmp_path / "old.csv", started=STARTED - 1)), 1) == "unknown_download"


def test_an_id_the_run_never_downloaded_is_refused_whatever_file_it_names(tmp_path):
    (tmp_path / "march.csv").write_bytes(MARCH_CSV)
    assert _refused(_run(_download(tmp_path / "march.csv")), 2) == "unknown_download"


def test_a_download_still_in_progress_is_not_read(tmp_path):
    (tmp_path / "march.csv").write_bytes(MARCH_CSV)
    assert _refused(_run(_download(tmp_path / "march.csv", state="in_progress")), 1) == "download_not_complete"


def test_a_link_put_in_place_of_the_downloaded_file_is_not_followed(tmp_path):
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    landed = tmp_path / "march.csv"
    landed.write_bytes(MARCH_CSV)
    run = _run(_download(landed))
    landed.unlink()
    os.symlink(secret, landed)
    assert _refused(run, 1) == "file_not_found"


def test_a_binary_download_is_refused_as_unreadable(tmp_path):
    (tmp_path / "tool.bin").write_bytes(b"\x7fELF\x00\x01\x02")
    assert _refused(_run(_download(tmp_path / "tool.bin", mime="application/octet-stream")), 1) == "unreadable_file"


def test_a_pdf_is_read_with_pypdf():
    assert pdf_text(pdf_document(PDF_LINES)).splitlines() == list(PDF_LINES)


def test_a_pdf_is_read_as_a_pdf_whatever_type_the_server_gave():
    assert document_text(pdf_document(PDF_LINES), "application/octet-stream", "report") == pdf_text(pdf_document(PDF_LINES))


def test_a_broken_pdf_is_a_typed_error():
    with pytest.raises(DocumentUnreadable):
        pdf_text(b"%PDF-1.4\nnot a pdf at all")


def test_the_snapshot_lists_the_runs_downloads_above_the_page(tmp_path):
    (tmp_path / "march.csv").write_bytes(MARCH_CSV)
    snap = _run(_download(tmp_path / "march.csv")).into(Snapshot(url="http://reports.test/", text="[1] link \"Reports\""))
    assert snap.text.splitlines()[0] == f'download 1 "march.csv" text/csv {len(MARCH_CSV)} bytes (complete)'
    assert [d.id for d in snap.downloads] == [1]


def _snap(*downloads: Download) -> Snapshot:
    return Snapshot(url="http://reports.test/", downloads=list(downloads))


def test_downloaded_holds_for_a_complete_download_of_that_name(tmp_path):
    predicate = parse_predicate({"downloaded": {"name": "MARCH"}})
    assert check(predicate, _snap(_download(tmp_path / "march (1).csv"))).ok
    assert not check(predicate, _snap(_download(tmp_path / "april.csv"))).ok
    assert not check(predicate, _snap()).ok


def test_downloaded_does_not_hold_while_the_file_is_in_progress_or_interrupted(tmp_path):
    predicate = parse_predicate({"downloaded": {}})
    assert not check(predicate, _snap(_download(tmp_path / "march.csv", state="in_progress"))).ok
    assert not check(predicate, _snap(_download(tmp_path / "march.csv", state="interrupted"))).ok


def test_downloaded_matches_a_pattern_and_refuses_a_bad_one(tmp_path):
    assert check(parse_predicate({"downloaded": {"pattern": r"\.pdf$"}}), _snap(_download(tmp_path / "q1.pdf"))).ok
    with pytest.raises(ValueError):
        parse_predicate({"downloaded": {"pattern": "(unclosed"}})


def test_read_download_is_offered_only_once_the_run_has_a_download():
    assert "read_download" not in offered_actions(multi_tab=False)
    assert "read_download" in offered_actions(multi_tab=False, downloads=True)
