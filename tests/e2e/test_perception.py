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
