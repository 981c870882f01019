"""Perception: typed snapshots of real pages in real Chromium through the real host."""

from __future__ import annotations

from tests.e2e.perception_helpers import by_name, names, snapshot


async def test_snapshot_lists_native_controls_with_roles_names_values_and_states(sw, page, site_url):
    await page.goto(f"{site_url}/perception/basic.html")
    snap = await snapshot(sw, page)
    assert by_name(snap, "Home")["role"] == "link"
    email = by_name(snap, "Email")
    assert (email["role"], email["value"], email["states"]["required"]) == ("textbox", "ann@example.com", True)
    assert by_name(snap, "I agree")["states"]["checked"] is True
    size = [e for e in snap["elements"] if e["role"] == "combobox"][0]
    assert size["value"] == "Large"
    assert by_name(snap, "Disabled")["states"]["disabled"] is True
    assert {"Clickable div", "ARIA button", "Editor", "More", "A note"} <= names(snap)
    line = next(line for line in snap["text"].splitlines() if '"Email"' in line)
    assert line == f'[{email["ref"]}] textbox "Email" value="ann@example.com" type=email required=true'


async def test_a_text_area_says_it_takes_several_lines_and_a_one_line_field_does_not(sw, page, site_url):
    # MiniWoB++ click-widget (tuning half): asked for the "textarea" widget, the model could not
    # tell it from the one-line inputs: all were `textbox ""`.
    await page.goto(f"{site_url}/perception/basic.html")
    snap = await snapshot(sw, page)
    assert by_name(snap, "A note")["states"]["multiline"] is True
    assert "multiline" not in by_name(snap, "Email")["states"]


async def test_a_field_whose_value_the_page_refuses_is_invalid_and_an_empty_required_one_is_only_required(sw, page, site_url):
    # What the page itself says of its fields (constraint validation, aria-invalid) is what the
    # form_incomplete guard reads instead of guessing from the words of a label.
    await page.goto(f"{site_url}/perception/validity.html")
    snap = await snapshot(sw, page)
    assert by_name(snap, "Work email")["states"].get("invalid") is True
    assert by_name(snap, "Postcode")["states"].get("invalid") is True
    assert "invalid" not in by_name(snap, "Backup email").get("states", {})
    assert by_name(snap, "Full name")["states"] == {"required": True}


async def _box_in_frames(page, chain: list[str], selector: str) -> list[float]:
    """Top-level box of `selector` inside the iframes `chain` (selectors from the top down),
    computed independently: each iframe's content box (rect + clientLeft/Top) plus the element's rect.
    (Playwright's own bounding_box leaves out the border of out-of-process iframes.)"""
    frame = page.main_frame
    x = y = 0.0
    for sel in chain:
        ox, oy = await frame.evaluate(
            "(s) => { const f = document.querySelector(s); const r = f.getBoundingClientRect(); return [r.x + f.clientLeft, r.y + f.clientTop]; }", sel)
        x, y = x + ox, y + oy
        frame = await (await frame.query_selector(sel)).content_frame()
    r = await frame.evaluate("(s) => { const r = document.querySelector(s).getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }", selector)
    return [x + r[0], y + r[1], r[2], r[3]]


def _close(bbox: list[float], box: list[float], tolerance: float = 0.5) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(bbox, box))


async def test_same_origin_iframe_elements_have_top_level_boxes(sw, page, site_url, other_origin):
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    button = by_name(snap, "Same origin button")
    assert button["frame"] != 0
    assert _close(button["bbox"], await _box_in_frames(page, ["#same"], "#child-button"))


async def test_cross_origin_iframe_elements_come_from_their_own_frame(sw, page, site_url, other_origin):
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    button = by_name(snap, "Cross origin button")
    assert button["frame"] not in (0, by_name(snap, "Same origin button")["frame"])
    assert _close(button["bbox"], await _box_in_frames(page, ["#cross"], "#child-button"))


async def test_nested_iframe_elements_add_up_both_frame_offsets(sw, page, site_url, other_origin):
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    nested = by_name(snap, "Nested button")
    assert _close(nested["bbox"], await _box_in_frames(page, ["#nested", "iframe"], "#child-button"))
    assert by_name(snap, "Middle link")["frame"] != nested["frame"]


async def test_frame_elements_appear_in_document_order_where_their_iframe_is(sw, page, site_url, other_origin):
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    order = [e["name"] for e in snap["elements"]]
    assert order[:5] == ["Top button", "Same origin button", "Middle link", "Nested button", "Cross origin button"]


async def test_unreadable_frame_is_one_marker_line_with_its_origin_only(sw, page, site_url):
    # Chrome's own error page in a frame is one no extension may read; its address carried a token.
    await page.goto(f"{site_url}/perception/frame_unreachable.html")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    markers = [line for line in snap["text"].splitlines() if line.startswith("frame ")]
    assert markers == ['frame "http://127.0.0.1:9" unreadable']
    assert "s3cr3t" not in snap["text"] and "reset" not in snap["text"]


async def test_a_data_url_frame_is_read_like_any_other_frame(sw, page, site_url, other_origin):
    # Content scripts run there by the manifest's match_origin_as_fallback, as Chrome's own tree reads it.
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    assert "Data frame" in names(snap)
    assert [line for line in snap["text"].splitlines() if line.startswith("frame ")] == []


async def test_open_and_closed_shadow_root_controls_are_in_the_snapshot(sw, page, site_url):
    await page.goto(f"{site_url}/perception/shadow.html")
    snap = await snapshot(sw, page)
    assert {"Open shadow button", "Open shadow input", "Closed shadow button", "Deep link", "Slotted button"} <= names(snap)


async def test_stylesheet_hidden_and_ancestor_hidden_elements_are_left_out(sw, page, site_url):
    await page.goto(f"{site_url}/perception/hidden.html")
    snap = await snapshot(sw, page)
    shown = names(snap)
    assert {"Visible button", "Visible inside hidden"} <= shown
    left_out = {"Stylesheet hidden", "Ancestor hidden", "Visibility hidden", "Opacity zero", "Zero size",
                "Hidden attribute", "Hidden section link"}
    assert not left_out & shown
    assert snap["stats"]["hidden"] >= 5


async def test_visually_hidden_checkbox_with_a_visible_label_is_kept_at_its_label(sw, page, site_url):
    await page.goto(f"{site_url}/perception/hidden.html")
    snap = await snapshot(sw, page)
    fancy = by_name(snap, "Fancy checkbox")
    assert fancy["role"] == "checkbox"
    label = await page.locator("label.custom").bounding_box()
    assert _close(fancy["bbox"], [label["x"], label["y"], label["width"], label["height"]])


async def test_cookie_modal_is_reported_with_its_ref_and_the_buttons_under_it_are_counted_as_occluded(sw, page, site_url):
    await page.goto(f"{site_url}/perception/cookie.html")
    snap = await snapshot(sw, page)
    shown = names(snap)
    assert {"Accept all", "Reject"} <= shown
    assert not {"Buy now", "Add to cart", "Help"} & shown
    assert snap["stats"]["occluded"] == 3
    [occluder] = snap["stats"]["occluders"]
    layer = next(e for e in snap["elements"] if e["ref"] == occluder["ref"])
    assert layer["states"]["occluding"] == 3
    assert snap["text"].splitlines()[1].startswith(f"[{layer['ref']}] ")


async def test_a_dialog_that_covers_nothing_is_listed_with_the_name_its_label_gives_and_goes_when_closed(sw, page, site_url):
    # MiniWoB++ click-dialog (tuning half): its jQuery UI dialog covered nothing, so it was never
    # listed, and the plan's `absent {role: dialog}` held before the dialog was closed.
    await page.goto(f"{site_url}/perception/dialogs.html")
    snap = await snapshot(sw, page)
    dialogs = [(e["role"], e["name"]) for e in snap["elements"] if e["role"] in ("dialog", "alertdialog")]
    assert dialogs == [("dialog", "Notice"), ("alertdialog", "Unsaved changes"), ("dialog", "")]
    await page.click("button[aria-label=Close]")
    after = await snapshot(sw, page)
    assert [e["name"] for e in after["elements"] if e["role"] == "dialog"] == [""]


async def test_occlusion_filter_can_be_turned_off(sw, page, site_url):
    await page.goto(f"{site_url}/perception/cookie.html")
    snap = await snapshot(sw, page, occlusion=False)
    assert {"Buy now", "Add to cart", "Help", "Accept all"} <= names(snap)
    assert snap["stats"]["occluded"] == 0


async def test_a_span_inside_a_button_does_not_hide_the_button(sw, page, site_url):
    await page.goto(f"{site_url}/perception/basic.html")
    snap = await snapshot(sw, page)
    go = by_name(snap, "→Go now")
    assert go["role"] == "button"
    assert snap["stats"]["occluded"] == 0


async def test_buttons_under_a_transparent_overlay_are_kept(sw, page, site_url):
    await page.goto(f"{site_url}/perception/transparent.html")
    snap = await snapshot(sw, page)
    assert {"Under glass one", "Under glass two"} <= names(snap)
    assert snap["stats"]["occluded"] == 0


async def test_five_thousand_elements_paginate_to_the_end_without_loss_or_duplicates(sw, page, site_url):
    await page.goto(f"{site_url}/perception/many.html")
    seen: list[str] = []
    offset, pages = 0, 0
    while offset is not None:
        snap = await snapshot(sw, page, max_chars=8000, offset=offset)
        assert not snap["page_overflow"]
        assert len(snap["text"]) <= 8000
        seen += [e["name"] for e in snap["elements"]]
        offset = snap["next_offset"]
        pages += 1
        assert pages < 100, "pagination does not end"
    assert pages > 5
    assert len(seen) == 5000
    assert set(seen) == {f"Item {i}" for i in range(5000)}


async def test_viewport_elements_come_first_then_the_rest_with_a_count(sw, page, site_url):
    await page.goto(f"{site_url}/perception/many.html")
    snap = await snapshot(sw, page)
    flags = [e["in_viewport"] for e in snap["elements"]]
    assert flags[0] and not flags[-1]
    assert flags == sorted(flags, reverse=True)
    assert any(line.startswith("-- outside the viewport:") for line in snap["text"].splitlines())
    assert f"offset={snap['next_offset']}" in snap["text"].splitlines()[-1]


async def test_a_page_where_no_element_fits_reports_page_overflow_instead_of_looping(sw, page, site_url):
    await page.goto(f"{site_url}/perception/tricky.html")
    await page.evaluate("() => { document.body.innerHTML = '<button>' + 'W '.repeat(300) + '</button>'; document.title = 'T'; }")
    snap = await snapshot(sw, page, max_chars=200)
    assert snap["page_overflow"] is True
    assert snap["next_offset"] is None
    assert snap["elements"] == []
    assert "max_chars >=" in snap["text"]


async def test_headings_are_context_lines_without_refs(sw, page, site_url):
    await page.goto(f"{site_url}/perception/basic.html")
    snap = await snapshot(sw, page)
    lines = snap["text"].splitlines()
    assert "# Basics" in lines
    assert lines.index("# Basics") < lines.index(f'[{by_name(snap, "Home")["ref"]}] "Home"')


async def test_frame_offsets_give_each_frames_viewport_origin_in_top_level_coordinates(sw, page, site_url, other_origin):
    await page.goto(f"{site_url}/perception/frames.html?other={other_origin}")
    await page.wait_for_load_state("load")
    snap = await snapshot(sw, page)
    offsets = await sw.evaluate("(t) => globalThis.waymark.snapshot.frameOffsets(t)", snap["tab_id"])
    cross = by_name(snap, "Cross origin button")
    origin = await _box_in_frames(page, ["#cross"], "html")
    assert _close(offsets[str(cross["frame"])]["offset"], origin[:2])
    assert offsets["0"]["offset"] == [0, 0]


async def test_snapshot_options_out_of_range_get_a_typed_error(sw):
    code = await sw.evaluate("() => globalThis.waymark.call('snapshot', {max_chars: 10}).then(() => 'resolved', e => e.code)")
    assert code == "bad_params"


async def test_a_snapshot_of_a_tab_that_does_not_exist_says_so(sw):
    code = await sw.evaluate("() => globalThis.waymark.call('snapshot', {tab_id: 987654}).then(() => 'resolved', e => e.code)")
    assert code == "no_such_tab"


async def test_an_element_overlapped_by_in_flow_content_is_kept(sw, page, site_url):
    await page.goto(f"{site_url}/perception/overlap.html")
    snap = await snapshot(sw, page)
    assert "Overlapped by layout" in names(snap)
    assert snap["stats"]["occluded"] == 0


async def test_live_regions_are_context_lines_with_the_role_chrome_gives_them(sw, page, site_url):
    # A quantity in an <output>, an alert, a status: the page's answer to an action, which a model
    # clicking "Increase quantity" could not see. Chrome's accessibility tree is the authority on the roles.
    await page.goto(f"{site_url}/perception/live.html")
    snap = await snapshot(sw, page)
    lines = snap["text"].splitlines()
    assert lines[lines.index('[1] button "Decrease quantity"') + 1] == 'status "2"'
    assert [line for line in lines if line.startswith(("status", "alert", "generic"))] == [
        'status "2"', 'alert "Card declined"', 'status "3 items in your cart"']
    assert len(snap["elements"]) == 2, "live regions are context, not elements with refs"
    cdp = await page.context.new_cdp_session(page)
    chrome = [(n["role"]["value"], n.get("name", {}).get("value", "")) for n in (await cdp.send("Accessibility.getFullAXTree"))["nodes"]
              if not n.get("ignored") and n.get("role", {}).get("value") in ("status", "alert")]
    assert [role for role, _ in chrome] == ["status", "alert", "status", "status"], "the empty status is Chrome's too, and has no line"
