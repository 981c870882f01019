"""Egress: which addresses a run opens only after the user's yes (host/agent/egress.py)."""

from waymark.host.agent.egress import Egress, carries_data
from waymark.host.core.origins import origin_of
from waymark.host.core.snapshot import Snapshot, SnapshotElement

TASK = "Subscribe to the digest on shop.test with ada@example.com"


def _run(task: str = TASK) -> Egress:
    """A run that started on the shop's news page."""
    egress = Egress(task)
    egress.saw(Snapshot(url="http://shop.test/news.html"))
    return egress


def test_an_address_with_the_pages_data_on_an_unknown_site_is_asked_about():
    reason = _run().question("http://collector.test/c?d=ada%40example.com")
    assert reason is not None and "http://collector.test" in reason


def test_the_start_sites_own_pages_are_never_asked_about():
    assert _run().question("http://shop.test/search?q=socks") is None


def test_a_site_a_page_of_the_run_linked_to_is_not_asked_about():
    egress = _run()
    egress.saw(Snapshot(url="http://shop.test/", elements=[SnapshotElement(ref=1, role="link", href="https://pay.test/checkout")]))
    assert egress.question("https://pay.test/checkout?order=7") is None


def test_a_site_the_task_names_is_not_asked_about():
    assert _run("Look up the weather on weather.test for Paris").question("http://weather.test/?city=Paris") is None


def test_a_host_that_only_contains_a_named_host_is_still_asked_about():
    assert _run("Look up the weather on weather.test for Paris").question("http://weather.test.collector.test/?city=Paris") is not None


def test_a_plain_page_address_on_an_unknown_site_is_not_asked_about():
    assert _run().question("https://docs.test/guide/install") is None


def test_a_path_that_carries_a_value_counts_as_data():
    assert carries_data("http://collector.test/ada@example.com")
    assert carries_data("http://collector.test/Ada%20Lovelace%20lives%20at")
    assert not carries_data("http://collector.test/about-us/")


def test_credentials_and_fragments_count_as_data():
    assert carries_data("http://user:pw@collector.test/")
    assert carries_data("http://collector.test/#token=abc")


def test_an_allowed_origin_is_not_asked_again_in_the_run():
    egress = _run()
    egress.answered("http://collector.test/c?d=1", allowed=True)
    assert egress.question("http://collector.test/c?d=2") is None


def test_a_declined_origin_stays_declined_for_the_run():
    egress = _run()
    egress.answered("http://collector.test/c?d=1", allowed=False)
    assert egress.refused("http://collector.test/other?d=2")


def test_origins_compare_scheme_host_and_port():
    assert origin_of("HTTP://Shop.Test:80/a") == "http://shop.test"
    assert origin_of("https://shop.test:8443/a") == "https://shop.test:8443"
    assert origin_of("file:///etc/passwd") is None
