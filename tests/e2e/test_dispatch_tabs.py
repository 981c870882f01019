"""Navigation and tabs: the agent follows new tabs, goes back, and always knows which tab it is in."""

from tests.conftest import wait_connected
from tests.e2e.dispatch_helpers import (
    act,
    open_page,
    ref,
    snapshot,
    tab_id_of,
)


async def close_tab(sw, tab_id):
    await sw.evaluate("(id) => chrome.tabs.remove(id).catch(() => {})", tab_id)


async def test_a_target_blank_link_opens_a_tab_the_agent_continues_in(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Open details in a new tab")})
    try:
        assert result.ok, result.error
        assert result.new_tab is not None
        assert result.new_tab.url.endswith("/dispatch/target.html")
        assert result.tab_id == result.new_tab.tab_id != tab
        assert result.url_after == result.new_tab.url
        assert not result.navigated, "the tab the agent clicked in stayed where it was"
        assert result.snapshot is not None and result.snapshot.title == "Dispatch: details"
        back = await act(sw, result.tab_id, {"type": "switch_tab", "tab_id": tab}, gate={"tabs": [tab, result.tab_id]})
        assert back.ok, back.error
        assert back.tab_id == tab
        assert back.snapshot is not None and back.snapshot.title == "Dispatch: buttons"
    finally:
        if result.new_tab:
            await close_tab(sw, result.new_tab.tab_id)


async def test_window_open_is_reported_as_a_new_tab(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Open popup window")}, snapshot=None)
    try:
        assert result.ok, result.error
        assert result.new_tab is not None
        assert "target.html?via=popup" in result.new_tab.url
        assert result.tab_id == result.new_tab.tab_id
    finally:
        if result.new_tab:
            await close_tab(sw, result.new_tab.tab_id)


async def test_navigate_back_and_forward(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    went = await act(sw, tab, {"type": "navigate", "url": f"{site_url}/dispatch/target.html"})
    assert went.ok, went.error
    assert went.path == "browser" and went.navigated
    assert went.snapshot is not None and went.snapshot.title == "Dispatch: details"
    back = await act(sw, tab, {"type": "back"})
    assert back.ok, back.error
    assert back.url_after.endswith("/dispatch/buttons.html")
    forward = await act(sw, tab, {"type": "forward"}, snapshot=None)
    assert forward.ok, forward.error
    assert forward.url_after.endswith("/dispatch/target.html")


async def test_refs_of_a_page_that_was_navigated_away_are_stale(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    count = ref(snap, "Count")
    assert (await act(sw, tab, {"type": "reload"}, snapshot=None)).ok
    result = await act(sw, tab, {"type": "click", "ref": count})
    assert result.error is not None and result.error.code == "stale_ref"
    assert result.snapshot is not None and result.snapshot.ref_generation == snap.ref_generation + 1


async def test_a_ref_of_the_earlier_page_is_stale_though_the_new_page_gives_its_number_again(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    count = ref(snap, "Count")
    reloaded = await act(sw, tab, {"type": "reload"})
    assert reloaded.snapshot is not None and ref(reloaded.snapshot, "Count") == count, "refs start again at 1"
    result = await act(sw, tab, {"type": "click", "ref": count}, ref_generation=snap.ref_generation)
    assert result.error is not None and result.error.code == "stale_ref"
    assert await page.text_content("#clicks") == "0"


async def test_navigate_refuses_javascript_urls(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "navigate", "url": "javascript:alert(1)"})
    assert not result.ok
    assert result.error.code == "url_refused"


async def test_new_tab_and_close_tab_move_the_agent_between_tabs(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    opened = await act(sw, tab, {"type": "new_tab", "url": f"{site_url}/dispatch/target.html"})
    assert opened.ok, opened.error
    assert opened.new_tab is not None and opened.tab_id == opened.new_tab.tab_id
    assert opened.snapshot is not None and opened.snapshot.title == "Dispatch: details"
    closed = await act(sw, opened.tab_id, {"type": "close_tab"}, snapshot=None)
    assert closed.ok, closed.error
    assert closed.tab_id == tab


async def test_acting_in_a_tab_that_does_not_exist_fails_as_no_such_tab(sw):
    await wait_connected(sw)
    result = await act(sw, 987654, {"type": "click", "ref": 1})
    assert not result.ok
    assert result.error.code == "no_such_tab"


async def test_extract_reads_the_main_text_within_a_budget(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "extract", "max_chars": 40}, snapshot=None)
    assert result.ok, result.error
    assert result.text is not None and result.text.startswith("Buttons")
    assert len(result.text) == 40


async def test_extract_reads_one_element(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "extract", "ref": ref(snap, "Open details")}, snapshot=None)
    assert result.ok, result.error
    assert result.text == "Open details in a new tab"


async def test_scroll_moves_the_page_down(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "scroll", "direction": "down", "amount": 500}, snapshot=None)
    assert result.ok, result.error
    assert await page.evaluate("() => window.scrollY") == 500


async def test_actions_on_a_browser_page_fail_as_restricted(sw, page):
    await wait_connected(sw)
    await page.goto("chrome://version")
    tab = await tab_id_of(sw, page)
    result = await act(sw, tab, {"type": "click", "ref": 1})
    assert not result.ok
    assert result.error.code == "restricted_page"


async def test_a_navigation_that_never_commits_fails_as_navigation_timeout(sw, page, site_url):
    import asyncio

    hanging: list[asyncio.StreamWriter] = []

    async def never_answer(reader, writer):
        hanging.append(writer)  # accept the connection, read nothing back, never respond

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
        result = await act(sw, tab, {"type": "navigate", "url": f"http://127.0.0.1:{port}/slow"}, commit_timeout_ms=600, snapshot=None)
        assert not result.ok
        assert result.error.code == "navigation_timeout"
    finally:
        for writer in hanging:
            writer.close()
        server.close()


async def test_a_client_side_route_counts_as_navigation(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "click", "ref": ref(snap, "Profile (client-side route)")}, snapshot=None)
    assert result.ok, result.error
    assert result.navigated
    assert result.url_after.endswith("/dispatch/buttons.html?view=profile")
    assert await page.text_content("#view") == "profile"


async def test_a_leave_page_prompt_is_answered_so_navigation_proceeds(sw, page, site_url):
    await wait_connected(sw)
    await page.goto(f"{site_url}/dispatch/buttons.html?guard")
    tab = await tab_id_of(sw, page)  # no listener of the test's own: the page is as a launched browser leaves it
    snap = await snapshot(sw, tab)
    assert (await act(sw, tab, {"type": "click", "ref": ref(snap, "Count")}, snapshot=None)).ok  # the page now has a user's interaction
    result = await act(sw, tab, {"type": "navigate", "url": f"{site_url}/dispatch/target.html"}, snapshot=None)
    assert result.ok, result.error
    assert [d["type"] for d in result.dialogs] == ["beforeunload"]
    assert result.url_after.endswith("/dispatch/target.html")
    assert page.url.endswith("/dispatch/target.html")


async def test_scroll_with_a_ref_inside_a_list_scrolls_the_list_not_the_page(sw, page, site_url):
    tab, snap = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "scroll", "ref": ref(snap, "First item"), "direction": "down", "amount": 200}, snapshot=None)
    assert result.ok, result.error
    assert await page.evaluate("() => document.getElementById('list').scrollTop") == 200
    assert await page.evaluate("() => window.scrollY") == 0


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_page_that_fails_to_load_is_a_snapshot_naming_the_net_error_and_url(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    dead = f"http://127.0.0.1:{_closed_port()}/newsletter"
    went = await act(sw, tab, {"type": "navigate", "url": dead})
    assert went.ok, went.error
    assert went.snapshot is not None, went.model_dump()
    assert went.snapshot.elements == []
    assert went.snapshot.text == f"page failed to load: net::ERR_CONNECTION_REFUSED at {dead} (go back, or navigate to another URL)"
    back = await act(sw, tab, {"type": "back"})
    assert back.ok, back.error
    assert back.snapshot is not None and back.snapshot.title == "Dispatch: buttons"


async def test_a_relative_url_that_reaches_the_extension_unresolved_is_refused_not_guessed(sw, page, site_url):
    tab, _ = await open_page(sw, page, f"{site_url}/dispatch/buttons.html")
    result = await act(sw, tab, {"type": "navigate", "url": "/newsletter"})
    assert not result.ok
    assert result.error.code == "bad_action" and "relative URL" in result.error.message
