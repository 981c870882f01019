"""Uploading files from the user's upload folder, selecting text and the extension's clipboard,
and `select` on custom dropdowns: real Chromium, the real extension and host."""

from pathlib import Path
from typing import Any, AsyncIterator

import pytest
import pytest_asyncio

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import (
    act,
    hold_debugger,
    open_page,
    ref,
    release_debugger,
    snapshot,
    tab_id_of,
)


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
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]})
    assert result.ok, result.error
    assert await page.text_content("#doc-out") == "report.pdf:15"
    assert await page.text_content("#doc-inputs") == "1"


async def test_upload_through_a_button_that_opens_the_file_chooser(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Choose photos"), "files": ["cat.png", "report.pdf"]})
    assert result.ok, result.error
    assert await page.text_content("#photos-out") == "cat.png:100, report.pdf:15"


async def test_upload_of_two_files_to_a_single_file_input_is_refused(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["cat.png", "report.pdf"]})
    assert not result.ok
    assert result.error.code == "too_many_files"
    assert await page.text_content("#doc-out") == ""


async def test_upload_on_a_control_that_opens_no_chooser_fails_clearly(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Does nothing"), "files": ["cat.png"]})
    assert not result.ok
    assert result.error.code == "timeout"
    assert "no file chooser" in result.error.message


async def test_upload_of_a_name_with_dot_dot_is_refused(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["../secret.txt"]})
    assert not result.ok
    assert result.error.code == "bad_file_name"
    assert await page.text_content("#doc-out") == ""


async def test_upload_of_an_absolute_path_is_refused(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": [str(uploads / "report.pdf")]})
    assert not result.ok
    assert result.error.code == "bad_file_name"
    assert await page.text_content("#doc-out") == ""


async def test_upload_of_a_missing_file_names_the_files_there_are(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["invoice.pdf"]})
    assert not result.ok
    assert result.error.code == "file_not_found"
    assert "cat.png, report.pdf" in result.error.message


async def test_upload_without_an_upload_folder_is_refused(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    await set_upload_dir(sw, None)
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]})
    assert not result.ok
    assert result.error.code == "no_upload_folder"


async def test_upload_paths_given_by_a_caller_are_replaced_by_the_host(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]},
                       upload_paths=[str(uploads.parent / "secret.txt")])
    assert result.ok, result.error
    assert await page.text_content("#doc-out") == "report.pdf:15"


# ------------------------------------------------------------------ select_text and the clipboard


async def test_select_text_selects_a_range_across_text_nodes(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    result = await act(sw, tab, {"type": "select_text", "text": "brown fox jumps"})
    assert result.ok, result.error
    assert await page.evaluate("() => String(getSelection())") == "brown fox jumps"


async def test_select_text_of_text_that_is_not_there_fails_as_no_such_text(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    result = await act(sw, tab, {"type": "select_text", "text": "slow cat"})
    assert not result.ok
    assert result.error.code == "no_such_text"


async def test_copied_page_text_pastes_into_another_field_as_typing(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    assert (await act(sw, tab, {"type": "select_text", "text": "LAZY   dog"}, snapshot=None)).ok
    copied = await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)
    assert copied.ok, copied.error
    pasted = await act(sw, tab, {"type": "press", "key": "Control+V", "ref": ref(snap, "Target")}, snapshot=None)
    assert pasted.ok, pasted.error
    assert await page.input_value("#target") == "lazy dog"
    assert await page.text_content("#target-inputs") != "0"


async def test_cut_from_a_field_moves_its_selected_text(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    assert (await act(sw, tab, {"type": "select_text", "ref": ref(snap, "Source"), "text": "beta "}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "press", "key": "Control+X"}, snapshot=None)).ok
    assert await page.input_value("#source") == "alpha gamma"
    assert (await act(sw, tab, {"type": "press", "key": "Control+V", "ref": ref(snap, "Target")}, snapshot=None)).ok
    assert await page.input_value("#target") == "beta "


async def test_copy_with_nothing_selected_fails_as_nothing_selected(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    await page.evaluate("() => getSelection().removeAllRanges()")
    result = await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)
    assert not result.ok
    assert result.error.code == "nothing_selected"


# ------------------------------------------------------------------ select on custom widgets


async def test_select_picks_an_option_of_an_aria_listbox(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size", role="listbox"), "value": "Large"})
    assert result.ok, result.error
    assert await page.text_content("#size-out") == "Large"
    assert await page.get_attribute("#size-l", "aria-selected") == "true"


async def test_select_on_a_listbox_proves_the_choice_by_the_option_it_marked_chosen(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size", role="listbox"), "value": "Small"})
    assert result.ok, result.error
    assert result.model_extra["selected"] == {"label": "Small", "custom": True, "sign": "marked"}


async def test_select_on_a_listbox_whose_options_take_no_clicks_fails_as_not_selected(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Shipping", role="listbox"), "value": "Express"})
    assert not result.ok
    assert result.error.code == "not_selected"
    assert result.error.data == {"option": "Express", "path": "cdp"}
    assert "showed no sign of taking it" in result.error.message


async def test_select_on_a_listbox_that_ignores_synthetic_clicks_fails_as_not_selected_without_the_debugger(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size", role="listbox"), "value": "Small"})
    finally:
        await release_debugger(sw, tab)
    assert not result.ok
    assert result.error.code == "not_selected"
    assert "synthetic events" in result.error.message
    assert await page.text_content("#size-out") == "Medium"


async def test_select_opens_a_div_dropdown_and_picks_its_item(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "green"})
    assert result.ok, result.error
    assert await page.text_content("#color-out") == "green"
    assert await page.text_content("#color-button") == "Color: Green"


async def test_select_opens_a_combobox_popup_listbox_and_picks_its_option(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "City", role="combobox"), "value": "Porto"})
    assert result.ok, result.error
    assert await page.input_value("#city") == "Porto"
    assert await page.text_content("#city-out") == "Porto"


async def test_select_of_a_missing_option_names_the_options(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "Purple"})
    assert not result.ok
    assert result.error.code == "no_such_option"
    assert result.error.data["options"] == ["Red", "Green", "Blue"]
    assert await page.text_content("#color-out") == ""


# ------------------------------------------------------------------ stale refs, frames, no debugger






async def test_upload_to_a_removed_input_fails_as_stale_ref(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    doc = ref(snap, "Document")
    await page.evaluate("() => document.getElementById('doc').remove()")
    result = await act(sw, tab, {"type": "upload_file", "ref": doc, "files": ["report.pdf"]})
    assert not result.ok
    assert result.error.code == "stale_ref"


async def test_upload_without_the_debugger_fails_as_debugger_unavailable(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Document"), "files": ["report.pdf"]})
    finally:
        await release_debugger(sw, tab)
    assert not result.ok
    assert result.error.code == "debugger_unavailable"
    assert await page.text_content("#doc-out") == ""


async def test_select_text_in_a_removed_field_fails_as_stale_ref(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    source = ref(snap, "Source")
    await page.evaluate("() => document.getElementById('source').remove()")
    result = await act(sw, tab, {"type": "select_text", "ref": source, "text": "beta"})
    assert not result.ok
    assert result.error.code == "stale_ref"


async def test_a_password_field_is_never_copied(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    await page.evaluate("() => { const pin = document.getElementById('pin'); pin.focus(); pin.select(); }")
    result = await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)
    assert not result.ok
    assert result.error.code == "not_editable"


async def test_paste_without_the_debugger_inserts_with_input_events(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/clipboard.html")
    assert (await act(sw, tab, {"type": "select_text", "text": "quick brown"}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)).ok
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "press", "key": "Control+V", "ref": ref(snap, "Target")}, snapshot=None)
    finally:
        await release_debugger(sw, tab)
    assert result.ok, result.error
    assert result.path == "synthetic"
    assert await page.input_value("#target") == "quick brown"
    assert await page.text_content("#target-inputs") != "0"


async def test_select_on_a_div_dropdown_without_the_debugger_clicks_synthetically(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/widgets.html")
    await hold_debugger(sw, tab)
    try:
        result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "Blue"})
    finally:
        await release_debugger(sw, tab)
    assert result.ok, result.error
    assert result.path == "synthetic"
    assert await page.text_content("#color-out") == "blue"


async def test_text_selected_in_a_cross_origin_frame_pastes_into_its_field(sw, page, site_url, other_origin):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/frame_text.html?other={other_origin}")
    await page.wait_for_function("() => window.frames.length === 2 && Array.from(window.frames).every((f) => f)")
    for frame in page.frames[1:]:
        await frame.wait_for_load_state()
    tab = await tab_id_of(sw, page)
    snap = await snapshot(sw, tab)
    assert (await act(sw, tab, {"type": "select_text", "text": "Card payment"}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "press", "key": "Control+C"}, snapshot=None)).ok
    assert (await act(sw, tab, {"type": "select_text", "ref": ref(snap, "Coupon"), "text": "SPRING25"}, snapshot=None)).ok
    pasted = await act(sw, tab, {"type": "press", "key": "Control+V"}, snapshot=None)
    assert pasted.ok, pasted.error
    coupon = next(f for f in page.frames if "frame_coupon.html" in f.url and "tracker" not in f.url)
    assert await coupon.input_value("#code") == "Card payment"


# ------------------------------------------------------------------ custom selects in frames and at DPR 2


async def open_framed(sw: Any, page: Any, site_url: str, src: str, other: str | None) -> tuple[int, Any, Any]:
    """`src` inside an iframe of framed.html (cross-origin when `other` is given): tab, snapshot, the frame."""
    await wait_connected(sw)
    query = f"src={src}" + (f"&other={other}" if other else "")
    await page.goto(f"{site_url}/dispatch/framed.html?{query}")
    await page.wait_for_function("() => window.frames.length === 1 && window.frames[0]")
    frame = next(f for f in page.frames if f.url.endswith(f"/dispatch/{src}"))
    await frame.wait_for_load_state()
    tab = await tab_id_of(sw, page)
    return tab, await snapshot(sw, tab), frame


ORIGINS = pytest.mark.parametrize("cross", [False, True], ids=["same_origin", "cross_origin"])


@ORIGINS
async def test_select_picks_an_aria_listbox_option_inside_an_iframe(sw, page, site_url, other_origin, cross):
    tab, snap, frame = await open_framed(sw, page, site_url, "widgets.html", other_origin if cross else None)
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Size", role="listbox"), "value": "Large"})
    assert result.ok, result.error
    assert await frame.text_content("#size-out") == "Large"


@ORIGINS
async def test_select_opens_a_div_dropdown_inside_an_iframe_and_picks_its_item(sw, page, site_url, other_origin, cross):
    tab, snap, frame = await open_framed(sw, page, site_url, "widgets.html", other_origin if cross else None)
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "green"})
    assert result.ok, result.error
    assert await frame.text_content("#color-out") == "green"


@ORIGINS
async def test_select_opens_a_combobox_inside_an_iframe_and_picks_its_option(sw, page, site_url, other_origin, cross):
    tab, snap, frame = await open_framed(sw, page, site_url, "widgets.html", other_origin if cross else None)
    result = await act(sw, tab, {"type": "select", "ref": ref(snap, "City", role="combobox"), "value": "Porto"})
    assert result.ok, result.error
    assert await frame.input_value("#city") == "Porto"
    assert await frame.text_content("#city-out") == "Porto"


@pytest_asyncio.fixture
async def dpr2_page(dpr2_browser: Any) -> AsyncIterator[Any]:
    page = await dpr2_browser.context.new_page()
    yield page
    await page.close()


async def test_select_on_a_div_dropdown_and_a_combobox_at_device_pixel_ratio_2(dpr2_browser, dpr2_page, site_url):
    sw = dpr2_browser.service_worker
    tab, _ = await open_page(sw, dpr2_page, f"{site_url}/dispatch/widgets.html")
    snap = await snapshot(sw, tab, screenshot=True)
    assert snap.screenshot_scale == 2, "the premise: the screenshot has two pixels per CSS pixel"
    color = await act(sw, tab, {"type": "select", "ref": ref(snap, "Color: none"), "value": "Blue"})
    city = await act(sw, tab, {"type": "select", "ref": ref(snap, "City", role="combobox"), "value": "Faro"})
    assert color.ok and city.ok, (color.error, city.error)
    assert await dpr2_page.text_content("#color-out") == "blue"
    assert await dpr2_page.text_content("#city-out") == "Faro"


async def test_select_on_a_listbox_in_a_cross_origin_iframe_at_device_pixel_ratio_2(dpr2_browser, dpr2_page, site_url, other_origin):
    tab, snap, frame = await open_framed(dpr2_browser.service_worker, dpr2_page, site_url, "widgets.html", other_origin)
    result = await act(dpr2_browser.service_worker, tab, {"type": "select", "ref": ref(snap, "Size", role="listbox"), "value": "Small"})
    assert result.ok, result.error
    assert await frame.text_content("#size-out") == "Small"


# ------------------------------------------------------------------ upload inside frames


@ORIGINS
async def test_upload_to_a_file_input_hidden_behind_its_label_inside_an_iframe(sw, page, site_url, other_origin, uploads, cross):
    tab, snap, frame = await open_framed(sw, page, site_url, "upload.html", other_origin if cross else None)
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Upload avatar"), "files": ["cat.png"]})
    assert result.ok, result.error
    assert await frame.text_content("#avatar-out") == "cat.png:100"


async def test_upload_to_a_file_input_hidden_behind_its_label(sw, page, site_url, uploads):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/upload.html")
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Upload avatar"), "files": ["cat.png"]})
    assert result.ok, result.error
    assert await page.text_content("#avatar-out") == "cat.png:100"


async def test_upload_through_a_button_inside_a_cross_origin_iframe_that_opens_the_file_chooser(sw, page, site_url, other_origin, uploads):
    tab, snap, frame = await open_framed(sw, page, site_url, "upload.html", other_origin)
    result = await act(sw, tab, {"type": "upload_file", "ref": ref(snap, "Choose photos"), "files": ["cat.png", "report.pdf"]})
    assert result.ok, result.error
    assert await frame.text_content("#photos-out") == "cat.png:100, report.pdf:15"
