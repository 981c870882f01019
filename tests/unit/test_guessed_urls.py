"""Same-site addresses the model made up are refused; every address with a reason to open is not."""

from __future__ import annotations

from waymark.host.agent.guessed_urls import made_up_url
from waymark.host.core.snapshot import Snapshot, SnapshotElement

SITE = "http://127.0.0.1:8000"
PAGE = Snapshot(url=f"{SITE}/cookies/subscribed.html?email=ada%40example.com", elements=[
    SnapshotElement(ref=1, role="link", name="Back to the news", href=f"{SITE}/cookies/index.html")])
TASK = "Subscribe ada@example.com to The Daily Loop newsletter."


def test_a_same_site_address_no_link_leads_to_is_refused():
    refusal = made_up_url(f"{SITE}/cookies/manage_choices.html", PAGE, TASK, set())
    assert refusal is not None and refusal.startswith("no link on this page leads to /cookies/manage_choices.html")


def test_a_linked_address_is_opened_whatever_its_fragment():
    assert made_up_url(f"{SITE}/cookies/index.html#top", PAGE, TASK, set()) is None


def test_a_page_the_run_has_been_to_is_opened_again():
    assert made_up_url(f"{SITE}/cookies/form.html", PAGE, TASK, {f"{SITE}/cookies/form.html"}) is None


def test_an_address_the_task_gives_is_opened():
    assert made_up_url(f"{SITE}/pricing", PAGE, "Open /pricing and read the plans", set()) is None


def test_another_site_is_left_to_the_policy():
    assert made_up_url("https://en.wikipedia.org/wiki/Ada_Lovelace", PAGE, "Look Ada up on Wikipedia", set()) is None


def test_a_page_not_seen_whole_may_have_the_link_elsewhere():
    for partial in (PAGE.model_copy(update={"next_offset": 4000}), PAGE.model_copy(update={"stats": {"occluded": 3}})):
        assert made_up_url(f"{SITE}/cookies/cart.html", partial, TASK, set()) is None
