"""Where a navigate goes: a URL as a link on the current page would resolve it."""

import pytest

from waymark.host.core.actions import absolute_url

PAGE = "http://127.0.0.1:8000/agent/contact.html?x=1"


@pytest.mark.parametrize("given,expected", [
    ("/newsletter", "http://127.0.0.1:8000/newsletter"),
    ("newsletter", "http://127.0.0.1:8000/agent/newsletter"),
    ("menu-b.html", "http://127.0.0.1:8000/agent/menu-b.html"),
    ("../index.html", "http://127.0.0.1:8000/index.html"),
    ("?q=2", "http://127.0.0.1:8000/agent/contact.html?q=2"),
    ("//localhost:9/x", "http://localhost:9/x"),
])
def test_a_relative_url_resolves_against_the_current_page(given, expected):
    assert absolute_url(given, PAGE) == expected


@pytest.mark.parametrize("given,expected", [
    ("example.com", "https://example.com"),
    ("example.com/path?a=1", "https://example.com/path?a=1"),
    ("https://example.org/a", "https://example.org/a"),
    ("javascript:alert(1)", "javascript:alert(1)"),
])
def test_a_host_name_gets_https_and_a_url_with_a_scheme_is_unchanged(given, expected):
    assert absolute_url(given, PAGE) == expected
