"""The verifier's predicates over hand-built snapshots, and its eventual checking."""

import pytest

from waymark.host.agent.secret_fills import SecretFills
from waymark.host.agent.verifier import (
    Expectation,
    PredicateError,
    VerifyContext,
    check,
    parse_predicate,
)
from waymark.host.core.snapshot import Snapshot
from waymark.host.core.targets import find_elements


def snap(url="http://shop.test/cart.html", title="Your cart", text="", elements=()):
    return Snapshot(url=url, title=title, text=text, elements=[
        {"ref": i + 1, **e} for i, e in enumerate(elements)
    ])


CART = snap(elements=[
    {"role": "link", "name": "Cart  (1)"},
    {"role": "button", "name": "Proceed to checkout"},
    {"role": "textbox", "name": "Email", "value": "ada@example.org"},
    {"role": "checkbox", "name": "Gift wrap", "states": {"checked": True}},
    {"role": "checkbox", "name": "Newsletter"},
    {"role": "link", "name": "Trail socks"},
    {"role": "link", "name": "Trail shoes"},
], text='[1] link "Cart (1)"\nOrder total $104.00')


def holds(raw, snapshot=CART, url_before=""):
    return check(parse_predicate(raw), snapshot, VerifyContext(url_before=url_before)).ok


def test_url_contains_matches_a_substring_of_the_url():
    assert holds({"url_contains": "/cart"})
    assert not holds({"url_contains": "/checkout"})


def test_a_path_check_is_not_met_by_the_same_word_in_the_query_of_a_sign_in_page():
    # A shop sent the user to signin.html?return=checkout: `url_contains "/checkout"` held there,
    # and the run reported a checkout it never reached.
    sign_in = snap(url="http://shop.test/signin.html?return=checkout")
    assert not holds({"url_contains": "/checkout"}, sign_in)
    assert not holds({"url_contains": "checkout"}, sign_in)
    assert not holds({"url_contains": "/trail-runner-3"}, snap(url="http://shop.test/product.html?id=trail-runner-3"))


def test_url_contains_looks_for_a_query_in_the_query_and_a_fragment_in_the_fragment():
    page = snap(url="http://shop.test/checkout/done.html?order=1042&paid=1#receipt")
    assert holds({"url_contains": "/checkout"}, page)
    assert holds({"url_contains": "order=1042"}, page)
    assert holds({"url_contains": "?order=1042"}, page)
    assert holds({"url_contains": "#receipt"}, page)
    assert holds({"url_contains": "done.html?order=1042"}, page)
    assert not holds({"url_contains": "#order"}, page)
    assert not holds({"url_contains": "receipt=1"}, page)


def test_url_matches_uses_a_regular_expression():
    assert holds({"url_matches": r"^http://shop\.test/\w+\.html$"})
    assert not holds({"url_matches": r"checkout"})


def test_url_changed_compares_with_the_url_before_the_step():
    assert holds({"url_changed": True}, url_before="http://shop.test/product.html")
    assert not holds({"url_changed": True}, url_before=CART.url)
    assert holds({"url_changed": False}, url_before=CART.url)


def test_title_contains_ignores_case():
    assert holds({"title_contains": "your CART"})


def test_exists_matches_role_and_name_ignoring_case_and_spacing():
    assert holds({"exists": {"role": "link", "name": "cart (1)"}})
    assert not holds({"exists": {"role": "button", "name": "Cart (1)"}})


def test_exists_by_name_contains_and_text_contains():
    assert holds({"exists": {"name_contains": "checkout"}})
    assert holds({"exists": {"text_contains": "ada@example"}})


def test_absent_holds_only_when_nothing_matches():
    assert holds({"absent": {"role": "dialog"}})
    assert not holds({"absent": {"role": "button", "name_contains": "checkout"}})


def test_text_present_searches_page_text_and_element_names():
    assert holds({"text_present": "order total $104"})
    assert holds({"text_present": "Proceed to checkout"})
    assert not holds({"text_present": "Order placed"})


SIGN_IN = snap(url="http://ledger.test/login", title="Sign in", elements=[
    {"role": "textbox", "name": "Password", "states": {"has_value": True, "password": True}},
])
PASSWORD_HOLDS = {"value_equals": {"target": {"role": "textbox", "name": "Password"}, "value": "lovelace"}}


def test_a_password_field_equals_the_text_this_run_filled_into_it():
    fills = SecretFills()
    fills.note(SIGN_IN.url, SIGN_IN.elements[0], "lovelace")
    result = check(parse_predicate(PASSWORD_HOLDS), SIGN_IN, VerifyContext(secret_fills=fills))
    assert result.ok
    assert result.detail == "[1] holds the text this run filled in (a password's value is never read)"


def test_a_password_field_filled_with_other_text_does_not_equal_and_the_detail_never_quotes_the_secret():
    fills = SecretFills()
    fills.note(SIGN_IN.url, SIGN_IN.elements[0], "babbage")
    result = check(parse_predicate(PASSWORD_HOLDS), SIGN_IN, VerifyContext(secret_fills=fills))
    assert not result.ok
    assert "lovelace" not in result.detail and "babbage" not in result.detail


def test_a_password_field_the_run_never_filled_does_not_equal_even_when_it_holds_a_value():
    assert not holds(PASSWORD_HOLDS, SIGN_IN)


def test_value_equals_reads_the_first_matching_element():
    assert holds({"value_equals": {"target": {"role": "textbox", "name": "Email"}, "value": "ada@example.org"}})
    assert not holds({"value_equals": {"target": {"role": "textbox", "name": "Email"}, "value": "ada"}})
    assert not holds({"value_equals": {"target": {"name": "Phone"}, "value": ""}})


def test_checked_reads_the_checked_state():
    assert holds({"checked": {"target": {"name": "Gift wrap"}, "value": True}})
    assert holds({"checked": {"target": {"name": "Newsletter"}, "value": False}})
    assert not holds({"checked": {"target": {"name": "Newsletter"}}})


def test_count_at_least_counts_matching_elements():
    assert holds({"count_at_least": {"target": {"role": "link", "name_contains": "trail"}, "n": 2}})
    assert not holds({"count_at_least": {"target": {"role": "link", "name_contains": "trail"}, "n": 3}})


def test_nth_picks_one_match_in_document_order():
    assert [e.name for e in find_elements(CART, {"role": "link", "name_contains": "trail", "nth": 1})] == ["Trail shoes"]


def test_nth_means_the_same_element_after_a_scroll_lists_the_elements_in_view_first():
    scrolled = Snapshot.model_validate({"url": "https://shop.example/", "elements": [
        {"ref": 3, "order": 2, "role": "button", "name": "+", "in_viewport": True},
        {"ref": 1, "order": 0, "role": "button", "name": "+"},
        {"ref": 2, "order": 1, "role": "button", "name": "+"},
    ]})
    assert [e.ref for e in find_elements(scrolled, {"role": "button", "name": "+", "nth": 0})] == [1]


def test_nth_counts_an_element_first_seen_late_where_it_stands_in_the_page():
    # A back arrow whose icon loaded after the send button beside it was first seen: its ref is
    # the higher one, yet it is the first of the two.
    late_icon = Snapshot.model_validate({"url": "https://mail.example/", "elements": [
        {"ref": 19, "order": 0, "role": "clickable", "name": ""},
        {"ref": 16, "order": 1, "role": "clickable", "name": ""},
    ]})
    assert [e.ref for e in find_elements(late_icon, {"role": "clickable", "name": "", "nth": 1})] == [16]


@pytest.mark.parametrize("raw", [
    {"url_contains": "/a", "url_matches": "b"},
    {"no_such": 1},
    {"url_contains": ""},
    {"url_matches": "("},
    {"exists": {"selector": "#buy"}},
    {"count_at_least": {"target": {}, "n": -1}},
    "url_contains",
])
def test_malformed_predicates_are_refused_with_a_reason(raw):
    with pytest.raises(PredicateError):
        parse_predicate(raw)


async def test_eventually_retries_with_doubling_backoff_until_the_predicate_holds():
    pages = [snap(elements=[]), snap(elements=[]), snap(elements=[{"role": "dialog", "name": "Added"}])]
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    async def fresh():
        return pages.pop(0)

    verdict = await Expectation([parse_predicate({"exists": {"role": "dialog"}})]).eventually(snap(elements=[]), fresh, sleep=sleep)
    assert verdict.ok
    assert verdict.tries == 4
    assert waits == [0.5, 1.0, 2.0]


async def test_eventually_gives_up_after_five_tries():
    async def sleep(seconds):
        pass

    async def fresh():
        return snap(elements=[])

    verdict = await Expectation([parse_predicate({"exists": {"role": "dialog"}})]).eventually(snap(elements=[]), fresh, sleep=sleep)
    assert not verdict.ok
    assert verdict.tries == 5
    assert "0 element(s)" in verdict.failed()[0].detail


def test_navigation_predicates_default_to_a_three_second_timeout():
    assert Expectation([parse_predicate({"url_contains": "/cart"})]).default_timeout() == 3.0
    assert Expectation([parse_predicate({"text_present": "x"})]).default_timeout() is None


def test_a_url_check_is_unreachable_only_when_neither_the_url_nor_any_link_meets_it():
    from waymark.host.agent.verifier import parse_predicates, unreachable_by_link

    snap = Snapshot(url="http://127.0.0.1/contact.html", elements=[{"ref": 1, "role": "link", "name": "Home", "href": "http://127.0.0.1/index.html"}])
    checks = parse_predicates([{"url_matches": "/contact-us"}, {"url_contains": "/index.html"}, {"url_contains": "contact"}])
    assert [p.to_json() for p in unreachable_by_link(checks, snap)] == [{"url_matches": "/contact-us"}]


def test_a_page_seen_only_in_part_decides_no_url_check_unreachable():
    from waymark.host.agent.verifier import parse_predicates, unreachable_by_link

    snap = Snapshot(url="http://127.0.0.1/contact.html", next_offset=40)
    assert unreachable_by_link(parse_predicates([{"url_matches": "/contact-us"}]), snap) == []


WIDGETS = snap(elements=[
    {"role": "slider", "name": "Temperature", "value": "25", "states": {"valuetext": "25 degrees"}},
    {"role": "checkbox", "name": "All toppings", "states": {"checked": "mixed"}},
    {"role": "treeitem", "name": "Projects", "states": {"expanded": True, "level": 1}},
    {"role": "tab", "name": "Security", "states": {"selected": True}},
    {"role": "button", "name": "Bold", "states": {"pressed": True}},
    {"role": "link", "name": "Address", "states": {"current": "step"}},
    {"role": "button", "name": "Name", "states": {"sort": "ascending"}},
    {"role": "button", "name": "Email"},
])


def test_state_reads_a_range_widgets_value_by_its_number_or_its_words():
    assert holds({"state": {"target": {"role": "slider", "name": "Temperature"}, "value": "25"}}, WIDGETS)
    assert holds({"state": {"target": {"role": "slider", "name": "Temperature"}, "value": "25 degrees"}}, WIDGETS)
    assert not holds({"state": {"target": {"role": "slider", "name": "Temperature"}, "value": "26"}}, WIDGETS)


def test_state_reads_expanded_selected_and_pressed_and_a_state_not_listed_is_false():
    assert holds({"state": {"target": {"name": "Projects"}, "expanded": True}}, WIDGETS)
    assert holds({"state": {"target": {"name": "Security"}, "selected": True}}, WIDGETS)
    assert holds({"state": {"target": {"name": "Bold"}, "pressed": True}}, WIDGETS)
    assert holds({"state": {"target": {"name": "Email"}, "pressed": False}}, WIDGETS)
    assert not holds({"state": {"target": {"name": "Email"}, "pressed": True}}, WIDGETS)


def test_state_reads_current_and_sort():
    assert holds({"state": {"target": {"name": "Address"}, "current": True}}, WIDGETS)
    assert holds({"state": {"target": {"name": "Address"}, "current": "step"}}, WIDGETS)
    assert not holds({"state": {"target": {"name": "Address"}, "current": "page"}}, WIDGETS)
    assert holds({"state": {"target": {"name": "Name"}, "sort": "ascending"}}, WIDGETS)
    assert holds({"state": {"target": {"name": "Email"}, "sort": "none"}}, WIDGETS)


def test_a_partly_checked_box_is_neither_checked_nor_unchecked():
    assert not holds({"checked": {"target": {"name": "All toppings"}, "value": True}}, WIDGETS)
    assert not holds({"checked": {"target": {"name": "All toppings"}, "value": False}}, WIDGETS)
    assert holds({"state": {"target": {"name": "All toppings"}, "checked": "mixed"}}, WIDGETS)


def test_a_state_check_that_asserts_nothing_is_refused_with_a_sentence():
    with pytest.raises(PredicateError, match="state needs a value or one of"):
        parse_predicate({"state": {"target": {"name": "Bold"}}})
