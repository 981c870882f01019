"""Recording a demonstration, in real Chromium with the real extension and host: the user presses
Record in the side panel, does the task by hand (Playwright's own mouse and keyboard on the page,
never Waymark's dispatch), presses Stop, reviews the steps and saves them; the workflow then
replays with no model call, on the same site and on changed copies of it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, AsyncIterator, Iterator
from urllib.parse import parse_qsl, urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import expect

from tests.agent_calls import trace_events
from tests.e2e.test_sidepanel import Panel, configure, tab_id_of
from waymark.eval.sites.serve import SITES_DIR, SiteServer

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
#: The categories page of tests/e2e/test_dialogs.py: Rename asks a prompt, Delete and Archive a confirm.
CATEGORIES = ROOT / "tests" / "fixtures" / "dialogs" / "categories.html"
#: Added to the categories page: it tells the site's server its state after each change, as an app saves it.
REPORTS_STATE = """<script>new MutationObserver(() => fetch("/collect/categories/?" + new URLSearchParams({
  name: $("name").textContent, products: $("products").textContent, status: $("status").textContent })))
  .observe(document.body, {subtree: true, childList: true, characterData: true});</script>
</body>"""
BANNER = '<body>\n<div role="note"><p>We changed how signing in looks.</p></div>'


#: A page on one origin holding a newsletter form on another origin, and a link that opens a new tab.
FRAMED = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail news</title></head><body>
<h1>Trail news</h1>
<iframe title="Newsletter" src="OTHER/framed/newsletter.html" width="500" height="200"></iframe>
<p><a href="offers.html" target="_blank">See the offers</a></p>
</body></html>"""
NEWSLETTER = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Newsletter</title></head><body>
<form id="f"><label for="email">Email</label> <input id="email" type="email"> <button type="submit">Subscribe</button></form>
<p id="out" role="status"></p>
<script>document.getElementById("f").addEventListener("submit", (e) => { e.preventDefault();
  document.getElementById("out").textContent = "Subscribed " + document.getElementById("email").value; });</script>
</body></html>"""
OFFERS = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Offers · Trail news</title></head><body>
<h1>Offers</h1><button type="button" id="claim">Claim the offer</button><p id="claimed" role="status"></p>
<script>document.getElementById("claim").addEventListener("click", () => { document.getElementById("claimed").textContent = "Offer claimed"; });</script>
</body></html>"""


def waymark(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymark.host", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ))


def _replay(name: str, *args: str) -> dict[str, Any]:
    done = waymark("workflow", "run", name, "--json", "--no-heal", *args)
    summary: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if summary["success"] else 1), done.stderr
    return summary


def _copy(base: Path, name: str, site: str, *replacements: tuple[str, str]) -> None:
    shutil.copytree(SITES_DIR / site, base / name / site)
    for page in (base / name / site).glob("*.html"):
        html = page.read_text(encoding="utf-8")
        for old, new in replacements:
            html = html.replace(old, new)
        page.write_text(html, encoding="utf-8")


@pytest.fixture(scope="module")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    """The server of the sites below (its collector hears what the categories page saves)."""
    base = tmp_path_factory.mktemp("record-sites")
    server = SiteServer(base).start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def sites(site_server: SiteServer) -> dict[str, str]:
    """The eval's sites as recorded, and changed copies: the sign-in with a banner and its button
    renamed (found again by its neighbours), and with its neighbours renamed too (matches nothing)."""
    base, server = Path(site_server.directory), site_server
    renamed = (("<body>", BANNER), (">Sign in</button>", ">Log in</button>"))
    _copy(base, "recorded", "login")
    _copy(base, "renamed", "login", *renamed)
    _copy(base, "reworded", "login", *renamed, ("Keep me signed in", "Stay logged in"), ("Forgot password?", "Reset your password"))
    _copy(base, "recorded", "spa")
    # The single-page app's Save settings saves nothing: its view shows no confirmation, its address no query.
    _copy(base, "unsaved", "spa", ("state.saved = {...state.settings};", "state.saved = null;"),
          ('history.replaceState(null, "", `?saved=1&${q}#/settings`);', ""))
    (base / "dialogs").mkdir()
    categories = CATEGORIES.read_text(encoding="utf-8").replace("</body>", REPORTS_STATE)
    (base / "dialogs" / "categories.html").write_text(categories, encoding="utf-8")
    # The same page whose Archive asks another question: the recorded answer must not be given to it.
    (base / "dialogs" / "reasked.html").write_text(categories.replace("Archive the category Shoes?", "Archive every category and its products?"),
                                                    encoding="utf-8")
    # And the page whose Archive asks nothing at all.
    (base / "dialogs" / "unasked.html").write_text(categories.replace('confirm("Archive the category Shoes?")', "true"), encoding="utf-8")
    _copy(base, "recorded", "shop")
    _copy(base, "recorded", "orders")
    _copy(base, "repriced", "orders", ("€ 1,249.00", "€ 1,312.50"))
    # The checkout page loads its payment frame from /checkout/ of the other origin: it stays at the root.
    shutil.copytree(SITES_DIR / "checkout", base / "checkout")
    (base / "framed").mkdir()
    (base / "framed" / "newsletter.html").write_text(NEWSLETTER, encoding="utf-8")
    (base / "framed" / "offers.html").write_text(OFFERS, encoding="utf-8")
    (base / "framed" / "index.html").write_text(FRAMED.replace("OTHER", server.other), encoding="utf-8")
    return {"origin": server.site, "other": server.other, "framed": f"{server.site}/framed/index.html",
           **{f"login-{n}": f"{server.site}/{n}/login/index.html" for n in ("recorded", "renamed", "reworded")},
           "shop": f"{server.site}/recorded/shop/index.html",
           **{f"spa-{n}": f"{server.site}/{n}/spa/index.html" for n in ("recorded", "unsaved")},
           "categories": f"{server.site}/dialogs/categories.html", "categories-reasked": f"{server.site}/dialogs/reasked.html",
           "categories-unasked": f"{server.site}/dialogs/unasked.html",
           **{f"orders-{n}": f"{server.site}/{n}/orders/index.html" for n in ("recorded", "repriced")},
           "checkout": f"{server.site}/checkout/index.html?pay={server.other}"}


@pytest_asyncio.fixture
async def site_page(browser: Any) -> AsyncIterator[Any]:
    page = await browser.context.new_page()
    yield page
    await page.close()


class Recorder:
    """The side panel's recorder, used as a person uses it."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.page = panel.page

    async def record(self) -> None:
        await self.page.locator("#tab-agent").click()
        await self.page.get_by_role("button", name="Record").click()
        await expect(self.page.locator("#record-status")).to_have_text("Recording: 0 step(s)")

    async def recorded(self, n: int) -> None:
        """Wait until the panel shows `n` steps recorded (a person glances at it before going on)."""
        await expect(self.page.locator("#record-status")).to_have_text(f"Recording: {n} step(s)", timeout=20000)

    async def stop(self) -> Any:
        await self.page.get_by_role("button", name="Stop").click()
        await expect(self.page.locator("#record-status")).to_contain_text("review them", timeout=20000)
        return self.page.locator("#record-review .recorded-step")

    async def save(self, name: str) -> Any:
        await self.page.get_by_label("Recorded workflow name").fill(name)
        await self.page.locator("#record-review").get_by_role("button", name="Save").click()
        saved = self.page.locator("#record-review .saved")
        await expect(saved).not_to_be_empty()
        return saved


@pytest_asyncio.fixture
async def recorder(browser: Any, sw: Any, site_page: Any, sites: dict[str, str]) -> AsyncIterator[Recorder]:
    """The side panel pinned to the site page's tab (opened on the sign-in page)."""
    await configure(sw)
    await site_page.goto(sites["login-recorded"])
    page = await browser.context.new_page()
    await page.set_viewport_size({"width": 380, "height": 900})
    panel = Panel(page)
    await panel.open(browser.extension_id, await tab_id_of(sw, site_page.url))
    await panel.connected()
    yield Recorder(panel)
    errors = list(panel.errors)
    # A test that failed midway leaves its recording running: the next test's Record would be refused.
    await page.evaluate("() => chrome.runtime.sendMessage({kind: 'wm:recorder:stop'})")
    await page.close()
    assert errors == [], f"the side panel logged console errors: {errors}"


async def _sign_in_by_hand(recorder: Recorder, page: Any) -> None:
    await recorder.record()
    await page.click("#user")
    await page.keyboard.type("ada")
    await page.click("#pass")
    await recorder.recorded(1)
    await page.keyboard.type("lovelace")
    await page.get_by_role("button", name="Sign in").click()
    await recorder.recorded(3)
    await expect(page.locator("h1")).to_have_text("Welcome, ada")


async def _record_sign_in(recorder: Recorder, page: Any, name: str) -> Path:
    from waymark.host.workflows import store

    waymark("workflow", "delete", name)
    await _sign_in_by_hand(recorder, page)
    await recorder.stop()
    saved = await recorder.save(name)
    await expect(saved).to_have_text(f"Saved as workflow {name}.")
    return store.path_of(name)


async def test_recorded_sign_in_shows_each_step_with_a_proposed_check(recorder: Recorder, site_page: Any):
    await _sign_in_by_hand(recorder, site_page)
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Type into textbox "Username"', ' Enter the secret into textbox "Password"',
                                                        ' Click button "Sign in"'])
    await expect(steps.nth(0)).to_contain_text('Username holds "ada"')
    await expect(steps.nth(2)).to_contain_text("the address holds /account.html")
    await expect(recorder.page.get_by_label("Parameter name of step 1")).to_have_value("username")


async def test_a_recorded_sign_in_replays_with_no_model_call_and_never_holds_the_password(recorder: Recorder, site_page: Any,
                                                                                            sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret

    path = await _record_sign_in(recorder, site_page, "recorded-sign-in")
    text = path.read_text()
    assert "lovelace" not in text and "{{secret:password}}" in text and "{{param:username}}" in text
    set_secret("password", "lovelace", [sites["origin"]])
    summary = _replay("recorded-sign-in")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["tokens_total"], summary["steps_passed"]) == (0, 0, 3)


async def test_a_recorded_sign_in_replayed_on_a_copy_with_a_renamed_button_finds_it_by_its_neighbours(recorder: Recorder, site_page: Any,
                                                                                                      sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret

    await _record_sign_in(recorder, site_page, "recorded-sign-in-renamed")
    set_secret("password", "lovelace", [sites["origin"]])
    summary = _replay("recorded-sign-in-renamed", "--start-url", sites["login-renamed"])
    assert summary["success"] and summary["replay"] == "healed" and summary["model_calls"] == 0, summary["reason"]
    assert summary["heals"][0]["step"] == 3 and summary["heals"][0]["by"] == "near"


async def test_a_recorded_sign_in_replayed_on_a_copy_where_nothing_matches_fails_naming_the_step(recorder: Recorder, site_page: Any,
                                                                                                 sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret

    await _record_sign_in(recorder, site_page, "recorded-sign-in-reworded")
    set_secret("password", "lovelace", [sites["origin"]])
    summary = _replay("recorded-sign-in-reworded", "--start-url", sites["login-reworded"])
    assert summary["success"] is False and summary["replay"] == "failed"
    assert 'step 3 (Click button "Sign in")' in summary["reason"] and 'button "Sign in"' in summary["reason"], summary["reason"]


async def test_a_step_that_changed_the_page_cannot_be_saved_once_its_checks_are_dropped(recorder: Recorder, site_page: Any):
    waymark("workflow", "delete", "recorded-unchecked")
    await _sign_in_by_hand(recorder, site_page)
    steps = await recorder.stop()
    for box in await steps.nth(2).get_by_role("checkbox").all():
        await box.uncheck()
    saved = await recorder.save("recorded-unchecked")
    await expect(saved).to_contain_text('Not saved: step 3 (Click button "Sign in") changed the page but has no check')
    assert "recorded-unchecked" not in waymark("workflow", "list").stdout


async def test_a_value_the_user_marks_secret_is_never_written_in_the_workflow(recorder: Recorder, site_page: Any):
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-secret-user")
    await _sign_in_by_hand(recorder, site_page)
    await recorder.stop()
    await recorder.page.get_by_label("Step 1 is a secret").check()
    saved = await recorder.save("recorded-secret-user")
    await expect(saved).to_have_text("Saved as workflow recorded-secret-user.")
    text = store.path_of("recorded-secret-user").read_text()
    assert "ada" not in text and "lovelace" not in text and "{{secret:username}}" in text


async def test_actions_in_another_tab_are_not_recorded(recorder: Recorder, site_page: Any, browser: Any, sites: dict[str, str]):
    other = await browser.context.new_page()
    await other.goto(sites["shop"])
    await recorder.record()
    await other.get_by_label("Search products").click()
    await other.keyboard.type("socks")
    await other.keyboard.press("Enter")
    await expect(other.locator("h1")).to_contain_text("results for")
    await site_page.click("#remember")
    await recorder.recorded(1)
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Click checkbox "Keep me signed in"'])
    await expect(steps.nth(0)).to_contain_text("Keep me signed in is checked")
    await other.close()


async def test_a_basket_filled_by_hand_replays_with_no_model_call_and_a_verified_outcome(recorder: Recorder, site_page: Any,
                                                                                          sites: dict[str, str]):
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-basket")
    await site_page.goto(sites["shop"])
    await recorder.record()
    await site_page.get_by_label("Search products").click()
    await site_page.keyboard.type("socks")
    await site_page.keyboard.press("Enter")
    await recorder.recorded(2)
    await site_page.get_by_role("link", name="Trail socks (3 pack)").click()
    await recorder.recorded(3)
    await site_page.get_by_role("button", name="Add to cart").click()
    await recorder.recorded(4)
    await site_page.get_by_role("button", name="No thanks").click()
    await recorder.recorded(5)
    await site_page.get_by_role("link", name="Cart (1)").click()
    await recorder.recorded(6)
    steps = await recorder.stop()
    await expect(steps).to_have_count(6)
    await expect(recorder.page.get_by_label("Parameter name of step 1")).to_have_value("search_products")
    saved = await recorder.save("recorded-basket")
    await expect(saved).to_have_text("Saved as workflow recorded-basket.")
    workflow = store.load("recorded-basket")
    assert [p.name for p in workflow.parameters] == ["search_products"]
    summary = _replay("recorded-basket")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["steps_passed"]) == (0, 6)


async def test_a_step_in_a_cross_origin_frame_and_one_in_a_new_tab_are_recorded_and_replayed(recorder: Recorder, site_page: Any,
                                                                                                browser: Any, sites: dict[str, str]):
    waymark("workflow", "delete", "recorded-framed")
    await site_page.goto(sites["framed"])
    frame = site_page.frame_locator("iframe")
    await expect(frame.get_by_role("button", name="Subscribe")).to_be_visible()
    await recorder.record()
    await frame.get_by_label("Email").click()
    await site_page.keyboard.type("ada@example.com")
    await site_page.keyboard.press("Enter")
    await recorder.recorded(2)
    await expect(frame.get_by_role("status")).to_have_text("Subscribed ada@example.com")
    async with browser.context.expect_page() as opened:
        await site_page.get_by_role("link", name="See the offers").click()
    offers = await opened.value
    await recorder.recorded(3)
    await offers.get_by_role("button", name="Claim the offer").click()
    await recorder.recorded(4)
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Type into textbox "Email"', ' Press Enter in textbox "Email"',
                                                        ' Click link "See the offers"', ' Click button "Claim the offer"'])
    await expect(steps.nth(1)).to_contain_text("Subscribed ada@example.com")
    saved = await recorder.save("recorded-framed")
    await expect(saved).to_have_text("Saved as workflow recorded-framed.")
    await offers.close()
    # Subscribe looks like a step that commits the user: the replay asks first, as every run does, and is told yes.
    summary = _replay("recorded-framed", "--confirm", "approve")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["steps_passed"]) == (0, 4)


async def test_a_recorded_workflow_is_listed_in_the_panel_and_its_run_button_replays_it_with_no_model_call(
        recorder: Recorder, site_page: Any, browser: Any, sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret

    await _record_sign_in(recorder, site_page, "recorded-panel-run")
    set_secret("password", "lovelace", [sites["origin"]])
    listed = recorder.page.locator('#workflow-list li[data-name="recorded-panel-run"]')
    await expect(listed).to_contain_text("3 steps")
    await listed.get_by_role("button", name="Run").click()
    replayed = recorder.page.locator("#agent-summary .summary")
    await expect(replayed).to_contain_text("Replay: unchanged · 0 model calls", timeout=30000)
    await expect(replayed).to_have_attribute("data-outcome", "done")
    await expect(browser.context.pages[-1].locator("h1")).to_have_text("Welcome, ada")
    await browser.context.pages[-1].close()


async def test_a_checkout_with_a_choice_and_card_fields_in_a_payment_frame_replays_with_its_secrets_bound_to_that_frame(
        recorder: Recorder, site_page: Any, browser: Any, sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-checkout")
    await site_page.goto(sites["checkout"])
    pay = site_page.frame_locator("#pay")
    await expect(pay.get_by_label("Card number")).to_be_visible()
    await recorder.record()
    await site_page.click("#name")
    await site_page.keyboard.type("Ada Lovelace")
    await site_page.keyboard.press("Tab")
    await recorder.recorded(1)
    await site_page.keyboard.press("ArrowDown")
    await recorder.recorded(2)
    for n, (field, value) in enumerate((("Card number", "4242424242424242"), ("Expiry (MM/YY)", "12/30"), ("Security code", "123")), 3):
        await pay.get_by_label(field).click()
        await site_page.keyboard.type(value)
        if n > 3:
            await recorder.recorded(n - 1)
    await pay.get_by_role("button", name="Pay € 40.50").click()
    await recorder.recorded(6)
    await expect(site_page.locator("h1")).to_contain_text("Order confirmed")
    steps = await recorder.stop()
    await expect(steps.nth(1)).to_contain_text('Choose "Express (next day)" in combobox "Shipping"')
    saved = await recorder.save("recorded-checkout")
    await expect(saved).to_have_text("Saved as workflow recorded-checkout.")
    text = store.path_of("recorded-checkout").read_text()
    assert "4242424242424242" not in text and "{{secret:card_number}}" in text and "{{secret:security_code}}" in text
    card = store.load("recorded-checkout").steps[2]
    assert card.secret_origin == sites["other"] and card.target is not None and card.target.frame == 1
    set_secret("card_number", "4242424242424242", [sites["other"]])
    set_secret("security_code", "123", [sites["other"]])
    summary = _replay("recorded-checkout", "--confirm", "approve")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["steps_passed"]) == (0, 6)


async def _record_order_total(recorder: Recorder, page: Any, sites: dict[str, str], name: str) -> None:
    """On the orders table, mark the total of order PX-1042 as the answer (clicking it), name it, save."""
    waymark("workflow", "delete", name)
    await page.goto(sites["orders-recorded"])
    await recorder.record()
    await recorder.page.get_by_role("button", name="Mark the answer").click()
    await expect(recorder.page.locator("#record-status")).to_contain_text("click it on the page")
    await page.get_by_role("cell", name="€ 1,249.00").click()
    await recorder.recorded(1)
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Read the answer "€ 1,249.00"'])
    await recorder.page.get_by_label("Answer field of step 1").fill("total")
    saved = await recorder.save(name)
    await expect(saved).to_have_text(f"Saved as workflow {name}.")


async def test_an_answer_marked_on_a_table_replays_with_no_model_call_read_again_from_the_page(recorder: Recorder, site_page: Any,
                                                                                               sites: dict[str, str]):
    from waymark.host.workflows import store

    await _record_order_total(recorder, site_page, sites, "recorded-order-total")
    answer = store.load("recorded-order-total").answer
    assert answer is not None and answer.values[0].path == "$.total" and "px-1042" in answer.values[0].before
    summary = _replay("recorded-order-total")
    assert summary["success"], summary["reason"]
    assert (summary["model_calls"], summary["tokens_total"], summary["data"]) == (0, 0, {"total": 1249})
    assert summary["grounding"]["values"][0]["status"] == "found"


async def test_an_answer_marked_on_a_table_reads_the_new_value_on_a_copy_where_it_changed(recorder: Recorder, site_page: Any,
                                                                                          sites: dict[str, str]):
    await _record_order_total(recorder, site_page, sites, "recorded-order-repriced")
    summary = _replay("recorded-order-repriced", "--start-url", sites["orders-repriced"])
    assert summary["success"], summary["reason"]
    assert (summary["model_calls"], summary["data"]) == (0, {"total": 1312.5})


async def test_a_recording_survives_a_service_worker_chrome_stopped_midway(own_browser: Any, sites: dict[str, str]):
    from tests.e2e.worker_helpers import stop_service_worker
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-worker-stopped")
    await configure(own_browser.service_worker)
    page = await own_browser.context.new_page()
    await page.goto(sites["login-recorded"])
    panel_page = await own_browser.context.new_page()
    await panel_page.set_viewport_size({"width": 380, "height": 900})
    panel = Panel(panel_page)
    await panel.open(own_browser.extension_id, await tab_id_of(own_browser.service_worker, page.url))
    await panel.connected()
    recorder = Recorder(panel)
    await recorder.record()
    await page.click("#user")
    await page.keyboard.type("ada")
    await page.click("#pass")
    await recorder.recorded(1)
    await stop_service_worker(own_browser)
    # The page's next actions wake a fresh worker, which carries on with the step already recorded.
    await page.keyboard.type("lovelace")
    await page.get_by_role("button", name="Sign in").click()
    await recorder.recorded(3)
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Type into textbox "Username"', ' Enter the secret into textbox "Password"',
                                                        ' Click button "Sign in"'])
    saved = await recorder.save("recorded-worker-stopped")
    await expect(saved).to_have_text("Saved as workflow recorded-worker-stopped.")
    assert [s.intent for s in store.load("recorded-worker-stopped").steps] == ['Type into textbox "Username"',
                                                                                'Enter the secret into textbox "Password"',
                                                                                'Click button "Sign in"']


async def _change_check(step: Any, n: int, index: int, kind: str | None, text: str) -> None:
    """In the review, change check `n` of step `index` (counted from 1) as a person does: Change, its kind, its text, Use."""
    await step.get_by_role("button", name=f"Change check {n} of step {index}").click()
    if kind is not None:
        await step.get_by_label(f"Kind of check {n} of step {index}").select_option(kind)
    await step.get_by_label(f"Text of check {n} of step {index}").fill(text)
    await step.get_by_role("button", name="Use").click()


async def _record_sign_in_with_check(recorder: Recorder, page: Any, name: str, shows: str) -> None:
    """Record the sign-in, change the last step's first check into "the page shows `shows`", drop its others, save."""
    waymark("workflow", "delete", name)
    await _sign_in_by_hand(recorder, page)
    steps = await recorder.stop()
    last = steps.nth(2)
    await _change_check(last, 1, 3, "The page shows", shows)
    await expect(last.locator(".says").first).to_have_text(f"the page shows '{shows}'")
    for box in (await last.get_by_role("checkbox").all())[1:]:
        await box.uncheck()
    saved = await recorder.save(name)
    await expect(saved).to_have_text(f"Saved as workflow {name}.")


async def test_a_check_changed_in_the_review_is_the_one_written_and_the_replay_proves_it(recorder: Recorder, site_page: Any,
                                                                                          sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret
    from waymark.host.workflows import store

    await _record_sign_in_with_check(recorder, site_page, "recorded-edited-check", "€ 1,204.50")
    assert store.load("recorded-edited-check").steps[2].checks == [{"text_present": "€ 1,204.50"}]
    set_secret("password", "lovelace", [sites["origin"]])
    summary = _replay("recorded-edited-check")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["steps_passed"]) == (0, 3)


async def test_a_check_changed_in_the_review_that_does_not_hold_fails_the_replay_naming_the_step(recorder: Recorder, site_page: Any,
                                                                                                  sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret

    await _record_sign_in_with_check(recorder, site_page, "recorded-wrong-check", "€ 9,999.00")
    set_secret("password", "lovelace", [sites["origin"]])
    summary = _replay("recorded-wrong-check")
    assert summary["success"] is False and summary["replay"] == "failed"
    assert summary["reason"].startswith('step 3 (Click button "Sign in")') and "text_present (not on the page)" in summary["reason"], \
        summary["reason"]


async def test_a_check_emptied_in_the_review_is_refused_with_the_hosts_reason_and_the_step_keeps_its_check(recorder: Recorder,
                                                                                                           site_page: Any):
    await _sign_in_by_hand(recorder, site_page)
    steps = await recorder.stop()
    last = steps.nth(2)
    await _change_check(last, 1, 3, None, "  ")
    await expect(last.get_by_role("alert")).to_have_text("Not a check: url_contains takes a non-empty string")
    await expect(last.locator(".says").first).to_have_text("the address holds /account.html")


async def test_a_check_written_in_the_review_lets_a_step_whose_checks_were_dropped_be_saved(recorder: Recorder, site_page: Any):
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-written-check")
    await _sign_in_by_hand(recorder, site_page)
    steps = await recorder.stop()
    last = steps.nth(2)
    for box in await last.get_by_role("checkbox").all():
        await box.uncheck()
    await last.get_by_role("button", name="Write a check for step 3").click()
    await last.get_by_label("Kind of the new check of step 3").select_option("The title holds")
    await last.get_by_label("Text of the new check of step 3").fill("Account")
    await last.get_by_role("button", name="Use").click()
    await expect(last.locator(".says").last).to_have_text("the title holds 'Account'")
    saved = await recorder.save("recorded-written-check")
    await expect(saved).to_have_text("Saved as workflow recorded-written-check.")
    assert store.load("recorded-written-check").steps[2].checks == [{"title_contains": "Account"}]


async def test_an_answer_marked_in_the_review_of_a_recording_made_without_one_replays_with_no_model_call(
        recorder: Recorder, site_page: Any, sites: dict[str, str]):
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-review-answer")
    await recorder.record()
    # The user goes to the orders page by its address, reads the total there, and marks nothing while recording.
    await site_page.goto(sites["orders-recorded"])
    await recorder.recorded(1)
    steps = await recorder.stop()
    await recorder.page.get_by_label("Answer on the final page").select_option('text "€ 1,249.00"')
    await recorder.page.get_by_role("button", name="Mark as the answer").click()
    await expect(steps.locator("strong")).to_have_text([f' Go to {sites["orders-recorded"]}', ' Read the answer "€ 1,249.00"'])
    await recorder.page.get_by_label("Answer field of step 2").fill("total")
    saved = await recorder.save("recorded-review-answer")
    await expect(saved).to_have_text("Saved as workflow recorded-review-answer.")
    answer = store.load("recorded-review-answer").answer
    assert answer is not None and answer.values[0].path == "$.total" and "px-1042" in answer.values[0].before
    summary = _replay("recorded-review-answer")
    assert summary["success"], summary["reason"]
    assert (summary["model_calls"], summary["tokens_total"], summary["data"]) == (0, 0, {"total": 1249})
    assert summary["grounding"]["values"][0]["status"] == "found"


async def test_an_answer_typed_in_the_review_as_the_final_page_showed_it_is_read_by_the_replay(recorder: Recorder, site_page: Any,
                                                                                               sites: dict[str, str]):
    from waymark.host.core.secrets_store import set_secret

    waymark("workflow", "delete", "recorded-review-balance")
    await _sign_in_by_hand(recorder, site_page)
    steps = await recorder.stop()
    await recorder.page.get_by_label("Answer text as the page shows it").fill("€ 1,204.50")
    await recorder.page.get_by_role("button", name="Mark as the answer").click()
    await expect(steps.nth(3).locator("strong")).to_have_text(' Read the answer "€ 1,204.50"')
    await recorder.page.get_by_label("Answer field of step 4").fill("balance")
    saved = await recorder.save("recorded-review-balance")
    await expect(saved).to_have_text("Saved as workflow recorded-review-balance.")
    set_secret("password", "lovelace", [sites["origin"]])
    summary = _replay("recorded-review-balance")
    assert summary["success"], summary["reason"]
    assert (summary["model_calls"], summary["data"]) == (0, {"balance": 1204.5})


async def _record_settings(recorder: Recorder, page: Any, sites: dict[str, str], name: str) -> Any:
    """On the single-page board (hash routes, a Loading… view before each, every element redrawn
    every 1.5 s), go to Settings, type a display name, choose the dark theme and save: by hand."""
    waymark("workflow", "delete", name)
    await page.goto(sites["spa-recorded"] + "#/board")
    await expect(page.locator("h1")).to_have_text("Board")
    await recorder.record()
    await page.get_by_role("link", name="Settings").click()
    await recorder.recorded(1)
    await expect(page.locator("h1")).to_have_text("Settings")
    # The view is drawn anew every 1.5 s: Playwright's wait for a stable element keeps meeting a
    # replaced one, so the mouse goes straight to where the field is, as a person's does.
    await page.get_by_label("Display name").click(force=True)
    await page.keyboard.type("Ada")
    await page.get_by_label("Theme").click(force=True)
    await recorder.recorded(2)
    # The name's change redraws the view under that click: the person clicks the new list again.
    await page.get_by_label("Theme").click(force=True)
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Enter")
    await recorder.recorded(3)
    await page.get_by_role("button", name="Save settings").click(force=True)
    await recorder.recorded(4)
    await expect(page.get_by_role("status")).to_have_text("Settings saved")
    return await recorder.stop()


async def test_a_route_change_in_a_single_page_app_is_checked_by_the_view_it_rendered_not_its_loading_placeholder(
        recorder: Recorder, site_page: Any, sites: dict[str, str]):
    steps = await _record_settings(recorder, site_page, sites, "recorded-spa-view")
    await expect(steps.locator("strong")).to_have_text([' Click link "Settings"', ' Type into textbox "Display name"',
                                                        ' Choose "Dark" in combobox "Theme"', ' Click button "Save settings"'])
    await expect(steps.nth(0)).to_contain_text("the address holds #/settings")
    await expect(steps.nth(0)).to_contain_text("the page shows 'Settings'")
    await expect(steps.nth(0)).not_to_contain_text("Loading")
    await expect(steps.nth(3)).to_contain_text("the page shows 'Settings saved'")


async def test_a_task_recorded_on_a_single_page_app_replays_with_no_model_call_and_its_settings_saved(
        recorder: Recorder, site_page: Any, sites: dict[str, str]):
    await _record_settings(recorder, site_page, sites, "recorded-spa")
    saved = await recorder.save("recorded-spa")
    await expect(saved).to_have_text("Saved as workflow recorded-spa.")
    summary = _replay("recorded-spa", "--param", "display_name=Grace")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["steps_passed"]) == (0, 4)
    # The app's own record of what was saved: the address it left carries the saved settings.
    last = trace_events(summary["trace_dir"], "step")[-1]
    assert "saved=1&name=Grace&theme=dark" in json.dumps(last), last


async def test_a_task_recorded_on_a_single_page_app_fails_naming_the_step_on_a_copy_that_saves_nothing(
        recorder: Recorder, site_page: Any, sites: dict[str, str]):
    await _record_settings(recorder, site_page, sites, "recorded-spa-unsaved")
    saved = await recorder.save("recorded-spa-unsaved")
    await expect(saved).to_have_text("Saved as workflow recorded-spa-unsaved.")
    summary = _replay("recorded-spa-unsaved", "--start-url", sites["spa-unsaved"])
    assert summary["success"] is False and summary["replay"] == "failed"
    assert 'step 4 (Click button "Save settings")' in summary["reason"], summary["reason"]


def saved_state(server: SiteServer) -> list[dict[str, str]]:
    """What the categories page told its server after each change, oldest first."""
    return [dict(parse_qsl(urlsplit(hit.split(" ", 2)[1]).query, keep_blank_values=True)) for hit in server.collected_for("categories")]


async def _answer_as_the_user(page: Any, answers: dict[str, str | bool]) -> list[str]:
    """Answer each dialog the page opens as a person does, by its message's first word: True is OK,
    False Cancel, a string typed into the prompt and OK; the messages seen, in order."""
    seen: list[str] = []

    async def answer(dialog: Any) -> None:
        seen.append(dialog.message)
        given = answers[dialog.message.split()[0]]
        if given is False:
            await dialog.dismiss()
        else:
            await dialog.accept(given if isinstance(given, str) else None)

    page.on("dialog", answer)
    return seen


async def test_a_prompt_and_a_confirm_the_user_answered_are_recorded_with_their_answers(recorder: Recorder, site_page: Any,
                                                                                          sites: dict[str, str]):
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-dialogs")
    await site_page.goto(sites["categories"])
    seen = await _answer_as_the_user(site_page, {"New": "Boots", "Archive": True})
    await recorder.record()
    await site_page.get_by_role("button", name="Rename").click()
    await recorder.recorded(1)
    await site_page.get_by_role("button", name="Archive").click()
    await recorder.recorded(2)
    assert seen == ["New name for the category:", "Archive the category Shoes?"]
    await expect(site_page.locator("#status")).to_have_text("Archived")
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Click button "Rename"', ' Answer the prompt "New name for the category:" with "Boots"',
                                                        ' Click button "Archive"', ' Answer OK to the confirm "Archive the category Shoes?"'])
    await expect(steps.nth(0)).to_contain_text("the page asks 'New name for the category:'")
    await expect(recorder.page.get_by_label("Parameter name of step 2")).to_have_value("new_name_for_the_category")
    saved = await recorder.save("recorded-dialogs")
    await expect(saved).to_have_text("Saved as workflow recorded-dialogs.")
    workflow = store.load("recorded-dialogs")
    assert [s.action for s in workflow.steps] == [
        {"type": "click"}, {"type": "answer_dialog", "accept": True, "text": "{{param:new_name_for_the_category}}"},
        {"type": "click"}, {"type": "answer_dialog", "accept": True}]


async def test_a_recorded_prompt_answer_is_given_again_by_the_replay_and_the_page_shows_it(recorder: Recorder, site_page: Any,
                                                                                          site_server: SiteServer, sites: dict[str, str]):
    waymark("workflow", "delete", "recorded-rename")
    await site_page.goto(sites["categories"])
    await _answer_as_the_user(site_page, {"New": "Boots"})
    await recorder.record()
    await site_page.get_by_role("button", name="Rename").click()
    await recorder.recorded(1)
    await expect(site_page.locator("#status")).to_have_text("Renamed to Boots")
    await recorder.stop()
    saved = await recorder.save("recorded-rename")
    await expect(saved).to_have_text("Saved as workflow recorded-rename.")
    summary = _replay("recorded-rename", "--param", "new_name_for_the_category=Sandals")
    assert summary["success"] and summary["replay"] == "unchanged", summary["reason"]
    assert (summary["model_calls"], summary["steps_passed"]) == (0, 2)
    assert saved_state(site_server)[-1] == {"name": "Sandals", "products": "12", "status": "Renamed to Sandals"}


async def _record_archive(recorder: Recorder, page: Any, sites: dict[str, str], name: str, answer: bool) -> None:
    waymark("workflow", "delete", name)
    await page.goto(sites["categories"])
    await _answer_as_the_user(page, {"Archive": answer})
    await recorder.record()
    await page.get_by_role("button", name="Archive").click()
    await recorder.recorded(1)
    await recorder.stop()
    saved = await recorder.save(name)
    await expect(saved).to_have_text(f"Saved as workflow {name}.")


async def test_a_confirm_the_user_cancelled_is_cancelled_by_the_replay_and_the_page_stays_unarchived(
        recorder: Recorder, site_page: Any, site_server: SiteServer, sites: dict[str, str]):
    from waymark.host.workflows import store

    await _record_archive(recorder, site_page, sites, "recorded-archive-cancelled", answer=False)
    assert store.load("recorded-archive-cancelled").steps[1].action == {"type": "answer_dialog", "accept": False}
    site_server.collected.clear()
    summary = _replay("recorded-archive-cancelled")
    assert summary["steps_passed"] == 2, summary["reason"]
    assert all(state["status"] != "Archived" for state in saved_state(site_server))


async def test_a_recorded_confirm_answer_is_not_given_to_a_dialog_that_asks_something_else(
        recorder: Recorder, site_page: Any, site_server: SiteServer, sites: dict[str, str]):
    await _record_archive(recorder, site_page, sites, "recorded-archive-reasked", answer=True)
    site_server.collected.clear()
    summary = _replay("recorded-archive-reasked", "--start-url", sites["categories-reasked"])
    assert summary["success"] is False and summary["replay"] == "failed"
    assert 'step 1 (Click button "Archive")' in summary["reason"], summary["reason"]
    assert all(state["status"] != "Archived" for state in saved_state(site_server))


async def test_a_replay_whose_page_asks_no_question_fails_at_the_click_the_recorded_dialog_followed(
        recorder: Recorder, site_page: Any, sites: dict[str, str]):
    await _record_archive(recorder, site_page, sites, "recorded-archive-unasked", answer=True)
    summary = _replay("recorded-archive-unasked", "--start-url", sites["categories-unasked"])
    assert summary["success"] is False and summary["replay"] == "failed"
    assert 'step 1 (Click button "Archive")' in summary["reason"] and "text_present (not on the page)" in summary["reason"], summary["reason"]


async def test_a_dialog_in_a_tab_an_agent_just_acted_in_is_still_the_users_to_answer_and_recorded(recorder: Recorder, site_page: Any,
                                                                                                   sw: Any, sites: dict[str, str]):
    from tests.e2e.dispatch_helpers import act, open_page, ref

    tab, snap = await open_page(sw, site_page, sites["categories"])
    # An agent's click (through the debugger, which stays attached a while after it) before the recording.
    acted = await act(sw, tab, {"type": "click", "ref": ref(snap, "Archive")}, dialogs="dismiss", snapshot=None)
    assert acted.ok and tab in await sw.evaluate("() => globalThis.waymark.debuggerTabs()")
    seen = await _answer_as_the_user(site_page, {"Archive": True})
    await recorder.record()
    await site_page.get_by_role("button", name="Archive").click()
    await recorder.recorded(1)
    await expect(site_page.locator("#status")).to_have_text("Archived")
    assert seen == ["Archive the category Shoes?"]
    steps = await recorder.stop()
    await expect(steps.locator("strong")).to_have_text([' Click button "Archive"', ' Answer OK to the confirm "Archive the category Shoes?"'])


async def test_a_recorded_delete_is_marked_destructive_asked_before_and_not_scheduled_unapproved(
        recorder: Recorder, site_page: Any, site_server: SiteServer, sites: dict[str, str]):
    from waymark.host.workflows import store

    waymark("workflow", "delete", "recorded-delete")
    await site_page.goto(sites["categories"])
    await _answer_as_the_user(site_page, {"Delete": True})
    await recorder.record()
    await site_page.get_by_role("button", name="Delete").click()
    await recorder.recorded(1)
    await expect(site_page.locator("#products")).to_have_text("0")
    steps = await recorder.stop()
    await expect(steps.nth(0)).to_contain_text('A replay asks you first: button "Delete" looks destructive (delete)')
    saved = await recorder.save("recorded-delete")
    await expect(saved).to_have_text("Saved as workflow recorded-delete.")
    click, answer = store.load("recorded-delete").steps
    assert click.destructive == 'button "Delete" looks destructive (delete)'
    assert answer.destructive is not None and answer.destructive.startswith("OK on the confirm")
    # Asked before the Delete (no terminal answers: declined), the replay stops there and the products stay.
    site_server.collected.clear()
    summary = _replay("recorded-delete")
    assert summary["success"] is False and 'step 1 (Click button "Delete")' in summary["reason"], summary["reason"]
    assert all(state["products"] == "12" for state in saved_state(site_server))
    refused = waymark("workflow", "schedule", "recorded-delete", "--every", "1h")
    assert refused.returncode != 0 and "step 1" in refused.stderr and "--approve-destructive" in refused.stderr, refused.stderr
