"""Uploading files from the user's upload folder, selecting text and the extension's clipboard,
and `select` on custom dropdowns: real Chromium, the real extension and host."""

from pathlib import Path
from typing import Any, AsyncIterator

import pytest_asyncio

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import act, ref, snapshot, tab_id_of


async def open_fixture(sw: Any, page: Any, url: str) -> tuple[int, Any]:
    await wait_connected(sw)
    await page.goto(url)
    tab = await tab_id_of(sw, page)
    return tab, await snapshot(sw, tab)


async def set_upload_dir(sw: Any, folder: str | None) -> None:
    await sw.evaluate("(folder) => globalThis.waymark.call('settings.set', {settings: {upload_dir: folder}})", folder)


@pytest_asyncio.fixture
async def uploads(sw: Any, tmp_path: Path) -> AsyncIterator[Path]:
    """An upload folder with two files, set in the host's settings for the test."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    (folder / "report.pdf").write_bytes(b"%PDF-1.4 twelve")
    (folder / "cat.png").write_bytes(b"\x89PNG" + b"\0" * 96)
    (tmp_path / "secret.txt").write_text("outside the folder")
    await wait_connected(sw)
    await set_upload_dir(sw, str(folder))
    yield folder
    await set_upload_dir(sw, None)


# ------------------------------------------------------------------ upload_file


async def test_upload_gives_the_file_input_the_file_and_fires_change(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]})
    assert result.ok, result.error
    assert await page.text_content("#doc-out") == "report.pdf:15"
    assert await page.text_content("#doc-inputs") == "1"


async def test_upload_through_a_button_that_opens_the_file_chooser(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Choose photos"), "files": ["cat.png", "report.pdf"]})
    assert result.ok, result.error
    assert await page.text_content("#photos-out") == "cat.png:100, report.pdf:15"


async def test_upload_of_two_files_to_a_single_file_input_is_refused(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["cat.png", "report.pdf"]})
    assert not result.ok
    assert result.error.code == "too_many_files"
    assert await page.text_content("#doc-out") == ""


async def test_upload_on_a_control_that_opens_no_chooser_fails_clearly(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Does nothing"), "files": ["cat.png"]})
    assert not result.ok
    assert result.error.code == "timeout"
    assert "no file chooser" in result.error.message


async def test_upload_of_a_name_with_dot_dot_is_refused(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["../secret.txt"]})
    assert not result.ok
    assert result.error.code == "bad_file_name"
    assert await page.text_content("#doc-out") == ""


async def test_upload_of_an_absolute_path_is_refused(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": [str(uploads / "report.pdf")]})
    assert not result.ok
    assert result.error.code == "bad_file_name"
    assert await page.text_content("#doc-out") == ""


async def test_upload_of_a_missing_file_names_the_files_there_are(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["invoice.pdf"]})
    assert not result.ok
    assert result.error.code == "file_not_found"
    assert "cat.png, report.pdf" in result.error.message


async def test_upload_without_an_upload_folder_is_refused(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    await set_upload_dir(sw, None)
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]})
    assert not result.ok
    assert result.error.code == "no_upload_folder"


async def test_upload_paths_given_by_a_caller_are_replaced_by_the_host(sw, page, site_url, uploads):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]},
                       upload_paths=[str(uploads.parent / "secret.txt")])
    assert result.ok, result.error
    assert await page.text_content("#doc-out") == "report.pdf:15"


# ------------------------------------------------------------------ select_text and the clipboard


async def test_select_text_selects_a_range_across_text_nodes(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/clipboard.html")
    result = await act(sw, tab, {"type": "select_text", "text": "brown fox jumps"})
    assert result.ok, result.error
    assert await page.evaluate("() => String(getSelection())") == "brown fox jumps"


async def test_select_text_of_text_that_is_not_there_fails_as_no_such_text(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/clipboard.html")
    result = await act(sw, tab, {"type": "select_text", "text": "slow cat"})
    assert not result.ok
    assert result.error.code == "no_such_text"


async def test_copied_page_text_pastes_into_another_field_as_typing(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/clipboard.html")
    assert (await act(sw, tab, {"type": "select_text", "text": "LAZY   dog"}, snapshot=None)).ok
    copied = await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)
    assert copied.ok, copied.error
    pasted = await act(sw, tab, {"type": "press", "key": "Control+V", "ref": ref(snap, "Target")}, snapshot=None)
    assert pasted.ok, pasted.error
    assert await page.input_value("#target") == "lazy dog"
    assert await page.text_content("#target-inputs") != "0"


async def test_cut_from_a_field_moves_its_selected_text(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/clipboard.html")
    assert (await act(sw, tab, {"type": "select_text", "ref": ref(snap, "Source"), "text": "beta "}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "press", "key": "Control+X"}, snapshot=None)).ok
    assert await page.input_value("#source") == "alpha gamma"
    assert (await act(sw, tab, {"type": "press", "key": "Control+V", "ref": ref(snap, "Target")}, snapshot=None)).ok
    assert await page.input_value("#target") == "beta "


async def test_copy_with_nothing_selected_fails_as_nothing_selected(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/clipboard.html")
    await page.evaluate("() => getSelection().removeAllRanges()")
    result = await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)
    assert not result.ok
    assert result.error.code == "nothing_selected"


# ------------------------------------------------------------------ select on custom widgets


async def test_select_picks_an_option_of_an_aria_listbox(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size", role="listbox"), "value": "Large"})
    assert result.ok, result.error
    assert await page.text_content("#size-out") == "Large"
    assert await page.get_attribute("#size-l", "aria-selected") == "true"


async def test_select_opens_a_div_dropdown_and_picks_its_item(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "green"})
    assert result.ok, result.error
    assert await page.text_content("#color-out") == "green"
    assert await page.text_content("#color-button") == "Color: Green"


async def test_select_opens_a_combobox_popup_listbox_and_picks_its_option(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "City", role="combobox"), "value": "Porto"})
    assert result.ok, result.error
    assert await page.input_value("#city") == "Porto"
    assert await page.text_content("#city-out") == "Porto"


async def test_select_of_a_missing_option_names_the_options(sw, page, site_url):
    tab, snap = await open_fixture(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "Purple"})
    assert not result.ok
    assert result.error.code == "no_such_option"
    assert result.error.data["options"] == ["Red", "Green", "Blue"]
    assert await page.text_content("#color-out") == ""
