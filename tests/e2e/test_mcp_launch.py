"""`waymark mcp --launch` as an MCP client sees it: the official SDK's ClientSession over stdio,
a real Chromium with the extension, one server for the module."""

from __future__ import annotations

import re
from typing import Any

import mcp_types as types
import pytest
import pytest_asyncio

from tests.e2e.mcp_helpers import McpClient, ref_of, text_of
from waymark.host.core import actions as grammar
from waymark.host.core import secrets_store

pytestmark = pytest.mark.asyncio(loop_scope="session")


class Confirmations:
    """The client's user: answers Waymark's confirmation requests with `allow`, and remembers them."""

    def __init__(self) -> None:
        self.allow = False
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        return types.ElicitResult(action="accept", content={"allow": self.allow})


@pytest.fixture(scope="module")
def confirmations() -> Confirmations:
    return Confirmations()


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(confirmations: Confirmations) -> Any:
    async with McpClient("--launch", "--confirm", "ask", elicit=confirmations) as c:
        yield c


async def open_page(client: McpClient, url: str) -> str:
    return await client.text("browser_navigate", {"url": url})


async def test_the_tool_list_names_every_browser_tool_with_schemas_from_the_action_grammar(client):
    listed = {tool.name: tool for tool in (await client.session.list_tools()).tools}
    assert {"browser_snapshot", "browser_click", "browser_fill", "browser_type", "browser_press_key", "browser_select_option",
            "browser_check", "browser_hover", "browser_scroll", "browser_navigate", "browser_navigate_back", "browser_tab_list",
            "browser_tab_new", "browser_tab_select", "browser_tab_close", "browser_screenshot", "browser_extract",
            "browser_wait_for", "browser_verify", "browser_run_task"} <= set(listed)
    fill = listed["browser_fill"].input_schema
    assert set(fill["properties"]) == set(grammar.Fill.model_fields) - {"type"}
    assert fill["required"] == ["ref", "text"]
    assert listed["browser_fill"].description == " ".join(grammar.Fill.__doc__.split())


async def test_a_snapshot_is_the_compact_text_with_refs_and_pages_on_with_offset(client, site_url):
    await open_page(client, f"{site_url}/perception/many.html")
    first = await client.text("browser_snapshot", {"max_chars": 400})
    offset = int(re.search(r"offset=(\d+)", first).group(1))
    second = await client.text("browser_snapshot", {"max_chars": 400, "offset": offset})
    first_refs = set(re.findall(r"^\[(\d+)\]", first, re.MULTILINE))
    second_refs = set(re.findall(r"^\[(\d+)\]", second, re.MULTILINE))
    assert first_refs and second_refs and not first_refs & second_refs


async def test_a_click_answers_with_its_result_and_the_settled_snapshot(client, site_url):
    page = await open_page(client, f"{site_url}/dispatch/buttons.html")
    answer = await client.text("browser_click", {"ref": ref_of(page, "Open settings")})
    assert re.match(r'click \[\d+\] button "Open settings": ok', answer)
    assert ref_of(answer, "Close settings"), "the modal the click opened is in the answer's snapshot"


async def test_a_click_that_changes_little_answers_with_only_the_change(client, site_url):
    page = await open_page(client, f"{site_url}/mcp/changes.html")
    answer = await client.text("browser_click", {"ref": ref_of(page, "Mark chore 3 done")})
    assert "changes since your last snapshot" in answer
    assert re.search(r'^- \[(\d+)\] checkbox "Daily chore 3" checked=false$', answer, re.MULTILINE)
    assert re.search(r'^\+ \[(\d+)\] checkbox "Daily chore 3" checked=true$', answer, re.MULTILINE)
    assert "Daily chore 4" not in answer, "lines that did not change are not repeated"
    assert ref_of(page, "Daily chore 3") == ref_of(answer, "Daily chore 3"), "the ref stays"


async def test_a_click_that_changes_more_than_the_whole_page_answers_with_the_whole_snapshot(client, site_url):
    page = await open_page(client, f"{site_url}/mcp/changes.html")
    answer = await client.text("browser_click", {"ref": ref_of(page, "Replace the list")})
    assert "changes since your last snapshot" not in answer
    assert ref_of(answer, "Weekly chore 20") and ref_of(answer, "Mark chore 3 done") == ref_of(page, "Mark chore 3 done")


async def test_a_filled_field_verifies_with_value_equals(client, site_url):
    page = await open_page(client, f"{site_url}/dispatch/form.html")
    await client.text("browser_fill", {"ref": ref_of(page, "Full name"), "text": "Ada Lovelace"})
    verdict = await client.text("browser_verify", {"predicates": [{"value_equals": {"target": {"name": "Full name"}, "value": "Ada Lovelace"}}]})
    assert verdict.startswith("PASS")


async def test_verify_says_which_predicate_failed_and_why_as_an_error_result(client, site_url):
    await open_page(client, f"{site_url}/agent/menu.html")
    result = await client.call("browser_verify", {"predicates": [{"title_contains": "Menu"}, {"exists": {"role": "button", "name": "Nope"}}],
                                                  "timeout_s": 1})
    verdict = text_of(result)
    assert result.is_error
    assert verdict.startswith("FAIL: 1 of 2 predicate(s) fail")
    assert '✓ {"title_contains": "Menu"}' in verdict
    assert '✗ {"exists": {"role": "button", "name": "Nope"}}: 0 element(s) with role=\'button\' name=\'Nope\'' in verdict


async def test_a_stale_ref_fails_with_the_fresh_snapshot_and_clicks_nothing(client, site_url):
    page = await open_page(client, f"{site_url}/mcp/rerender.html")
    old = ref_of(page, "Save")
    refreshed = await client.text("browser_click", {"ref": ref_of(page, "Refresh list")})
    result = await client.call("browser_click", {"ref": old})
    answer = text_of(result)
    assert "FAILED stale_ref" in answer
    assert ref_of(answer, "Save") != old, "the answer carries the fresh snapshot with the new ref"
    verdict = await client.text("browser_verify", {"predicates": [{"text_present": "Saves: 0"}]})
    assert verdict.startswith("PASS"), f"nothing was clicked by name: {verdict}\n{refreshed}"


async def test_tabs_open_list_select_and_close(client, site_url):
    await open_page(client, f"{site_url}/agent/menu.html")
    first = int(re.search(r"Current tab (\d+)", await client.text("browser_snapshot")).group(1))
    opened = await client.text("browser_tab_new", {"url": f"{site_url}/agent/menu-b.html"})
    second = int(re.search(r"Current tab (\d+)", opened).group(1))
    assert second != first
    listing = await client.text("browser_tab_list")
    assert f"* tab {second}:" in listing and f"  tab {first}:" in listing
    back = await client.text("browser_tab_select", {"tab_id": first})
    assert f"Current tab {first}: {site_url}/agent/menu.html" in back
    await client.text("browser_tab_close", {"tab_id": second})
    assert f"tab {second}:" not in await client.text("browser_tab_list")


async def test_a_screenshot_is_image_content_with_the_snapshot_beside_it(client, site_url):
    await open_page(client, f"{site_url}/agent/menu.html")
    result = await client.call("browser_screenshot")
    assert not result.is_error, text_of(result)
    [image] = [block for block in result.content if isinstance(block, types.ImageContent)]
    assert image.mime_type == "image/jpeg"
    assert image.data.startswith("/9j/"), "base64 of a JPEG"
    assert ref_of(text_of(result), "Open panel")


async def test_a_secret_placeholder_is_filled_at_dispatch_and_its_value_never_comes_back(client, site_url):
    secrets_store.set_secret("MCP_PASSWORD", "hunter2-correct-horse", [site_url])
    secrets_store.grant_secret("MCP_PASSWORD", "waymark-tests", site_url)
    page = await open_page(client, f"{site_url}/mcp/login.html")
    await client.text("browser_fill", {"ref": ref_of(page, "Username"), "text": "ada"})
    typed = await client.text("browser_fill", {"ref": ref_of(page, "Password"), "text": "{{secret:MCP_PASSWORD}}"})
    signed = await client.text("browser_click", {"ref": ref_of(page, "Sign in")})
    page_text = await client.text("browser_extract", {})
    assert "Signed in as ada" in page_text
    for answer in (typed, signed, page_text):
        assert "hunter2-correct-horse" not in answer
    assert "{{secret:MCP_PASSWORD}}" in typed, "the client sees the placeholder it gave"


async def test_a_secret_stored_after_the_session_began_is_redacted_from_what_the_client_reads(client, site_url):
    from tests.e2e.test_secrets import TOKEN

    secrets_store.set_secret("LATE_TOKEN", TOKEN, [site_url])
    try:
        page = await open_page(client, f"{site_url}/secrets/echo.html")
    finally:
        secrets_store.delete_secret("LATE_TOKEN")
    assert "Access token" in page
    assert TOKEN[:40] not in page and TOKEN[60:99] not in page


async def test_a_client_the_user_never_granted_a_secret_cannot_type_it(client, site_url):
    secrets_store.set_secret("BANK_PW", "hunter2-Bank-Passw0rd", [site_url])
    page = await open_page(client, f"{site_url}/mcp/login.html")
    result = await client.call("browser_type", {"ref": ref_of(page, "Password"), "text": "{{secret:BANK_PW}}"})
    assert result.is_error and text_of(result).startswith("secret_not_granted:"), text_of(result)
    assert "hunter2" not in text_of(result)
    # The browser's reading of the field: it holds nothing (a typed password would show has_value).
    field = next(line for line in (await client.text("browser_snapshot", {})).splitlines() if '"Password"' in line)
    assert "has_value" not in field, field


async def test_a_destructive_click_asks_the_clients_user_and_a_decline_clicks_nothing(client, confirmations, site_url):
    page = await open_page(client, f"{site_url}/dispatch/form.html")
    confirmations.allow = False
    result = await client.call("browser_click", {"ref": ref_of(page, "Place order")})
    assert result.is_error
    assert text_of(result).startswith("declined: the user declined click")
    assert 'button "Place order"' in confirmations.asked[-1]
    assert (await client.text("browser_verify", {"predicates": [{"url_contains": "form.html"}]})).startswith("PASS")


async def test_an_approved_destructive_click_goes_ahead(client, confirmations, site_url):
    page = await open_page(client, f"{site_url}/dispatch/form.html")
    confirmations.allow = True
    answer = await client.text("browser_click", {"ref": ref_of(page, "Place order")})
    assert "navigated to" in answer and "done.html" in answer


async def test_bad_arguments_are_a_tool_error_naming_the_field(client):
    result = await client.call("browser_click", {"ref": "twelve"})
    assert result.is_error
    assert text_of(result).startswith("bad_arguments: ref:")


async def test_the_first_snapshot_of_a_launched_browser_says_to_open_a_page_first():
    async with McpClient("--launch") as fresh:
        result = await fresh.call("browser_snapshot")
    assert result.is_error
    assert text_of(result) == ("restricted_page: the tab is blank (about:blank): no page is open in it yet; "
                               "open a web page first with browser_navigate (or browser_tab_new with a url)")


async def test_a_click_on_a_ref_that_is_not_on_the_page_is_an_error_result(client, site_url):
    await open_page(client, f"{site_url}/dispatch/buttons.html")
    result = await client.call("browser_click", {"ref": 9999})
    assert result.is_error and "FAILED" in text_of(result), text_of(result)
