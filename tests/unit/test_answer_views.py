"""Where an answer shows in text and HTML: `waymark run` / `trace show` lines and `waymark trace html`."""

from __future__ import annotations

from waymark.host.agent.timeline import summary_lines
from waymark.host.agent.trace_page import answer_html

SUMMARY = {
    "success": False, "outcome": "unproven", "reason": "the answer holds values not found", "data": {"total": 1249, "note": "<b>x</b>"},
    "grounding": {"grounded": 1, "ungrounded": 1, "computed": 0, "values": [
        {"path": "$.total", "value": 1249, "status": "found", "required": True,
         "source": {"url": "http://127.0.0.1:1/orders", "where": "element", "element": '[8] cell "€ 1,249.00"', "excerpt": "€ 1,249.00"}},
        {"path": "$.note", "value": "<b>x</b>", "status": "ungrounded", "required": False, "source": None}]},
}


def test_the_summary_lines_show_the_data_and_each_values_source():
    text = summary_lines(SUMMARY)
    assert '  data: {"total": 1249, "note": "<b>x</b>"}' in text
    assert '    ✓ $.total = 1249: [8] cell "€ 1,249.00" on http://127.0.0.1:1/orders' in text
    assert '    ✗ $.note = "<b>x</b>": not found on any page the run saw (optional)' in text


def test_the_trace_page_shows_the_answer_as_a_table_with_page_text_escaped():
    page = answer_html(SUMMARY)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "[8] cell &quot;€ 1,249.00&quot; on http://127.0.0.1:1/orders" in page
    assert "not found on any page the run saw" in page


def test_a_run_without_an_answer_shows_no_answer():
    assert answer_html({"success": True}) == "" and "data:" not in summary_lines({"success": True})


def test_what_an_extract_read_joins_its_history_line_on_one_line_and_bounded():
    from waymark.host.agent.prompts import READ_CHARS, read_line

    assert read_line("Order PX-1042\n\n  € 1,249.00 \nDelivered") == " -> read: Order PX-1042 | € 1,249.00 | Delivered"
    long = read_line("x" * (READ_CHARS + 50))
    assert long.endswith("x [...]") and len(long) < READ_CHARS + 30


def test_an_extract_that_read_nothing_says_so():
    from waymark.host.agent.prompts import read_line

    assert read_line(" \n ") == " -> read nothing"
