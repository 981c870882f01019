"""The run's trace page (`waymark trace html`, the side panel's trace link) reads as a report:
checks in words, not JSON, and screenshots a click enlarges."""

from __future__ import annotations

import base64
from pathlib import Path

from waymark.host.agent.trace_page import check_words, render_html

STEP = {"event": "step", "step": 1, "intent": "Add the tea", "verdict": "passed", "action_line": 'click [1] button "Add to cart"',
        "checks": [{"predicate": {"exists": {"role": "button", "name": "In cart (1)"}}, "ok": True, "detail": "found"},
                   {"predicate": {"url_contains": "/cart"}, "ok": False}],
        "screenshot": "shot.jpg", "attempt": 1, "tokens": 0}


def test_a_steps_checks_read_as_words_with_their_outcome(tmp_path: Path):
    page = render_html(tmp_path, [STEP], None)
    assert '✓ exists: button &quot;In cart (1)&quot;' in page
    assert '✗ url contains &quot;/cart&quot;' in page
    assert "{&quot;exists&quot;" not in page


def test_a_steps_screenshot_can_be_focused_to_enlarge_it(tmp_path: Path):
    (tmp_path / "shot.jpg").write_bytes(base64.b64decode("/9j/4AAQSkZJRg=="))
    page = render_html(tmp_path, [STEP], None)
    assert 'tabindex="0"' in page and ".step img:focus{position:fixed" in page


def test_check_words_name_a_target_by_role_and_name_or_words_of_it():
    assert check_words({"exists": {"role": "link", "name_contains": "order"}}) == 'exists: link named with "order"'
    assert check_words({"text_present": "Order placed"}) == 'text present "Order placed"'
    assert check_words({"count": {"role": "row", "n": 3}}) == 'count: row {"n": 3}'
