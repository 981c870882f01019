"""The elements named with the task's words: what the planner is pointed at, and what never is."""

from __future__ import annotations

from waymark.host.agent.prompts import (
    UNTRUSTED_TAG,
    executor_user,
    planner_user,
    text_block,
)
from waymark.host.agent.relevance import (
    LINE_CHARS,
    MOST,
    TEXT_CHARS,
    named_like,
    text_like,
)
from waymark.host.agent.words import words
from waymark.host.core.snapshot import Snapshot, SnapshotElement

COOKIE_TASK = "Get rid of the cookie banner, allowing only the essential cookies."


def _page(*elements: tuple[str, str]) -> Snapshot:
    return Snapshot(url="https://news.example/", elements=[
        SnapshotElement(ref=i, order=i, role=role, name=name) for i, (role, name) in enumerate(elements, start=1)])


def _named(task: str, snapshot: Snapshot) -> list[tuple[int, list[str]]]:
    return [(e.ref, shared) for e, shared in named_like(task, snapshot)]


def test_the_button_the_task_describes_is_named_and_the_familiar_one_is_not():
    wall = _page(("dialog", "Cookies on The Daily Loop"), ("button", "Accept all"), ("button", "Reject non-essential"),
                 ("button", "Manage choices"))
    assert _named(COOKIE_TASK, wall) == [(3, ["essential"])]


def test_plurals_and_case_do_not_hide_a_shared_word():
    assert words("Bouquets STARS glass") == {"bouquet", "star", "glass"}


def test_common_and_short_words_share_nothing_and_numbers_count():
    assert words("Click the button to see all of it, only 3 times") == {"see", "time", "3"}


def test_the_number_in_the_task_tells_one_option_from_its_neighbours():
    stars = _page(*[("radio", f"{n} star{'s' if n > 1 else ''}") for n in range(1, 6)])
    assert _named("Rate the bouquet 4 stars", stars)[0] == (4, ["4", "star"])


def test_containers_and_unnamed_elements_are_never_named():
    page = _page(("dialog", "Essential cookies"), ("region", "Essential"), ("button", ""), ("button", "Essential only"))
    assert _named(COOKIE_TASK, page) == [(4, ["essential"])]


def test_the_elements_sharing_most_words_come_first_and_at_most_a_few_are_named():
    page = _page(*[("link", f"Cookie notice {i}") for i in range(10)], ("button", "Reject non-essential cookies"))
    named = _named(COOKIE_TASK, page)
    assert len(named) == MOST
    assert named[0] == (11, ["cookie", "essential"])
    assert [ref for ref, _ in named[1:]] == [1, 2, 3, 4, 5]


def test_the_planner_is_shown_the_named_elements_as_page_content():
    # The real model's cookie plan began "click button 'Accept all'".
    wall = _page(("button", "Accept all"), ("button", "Reject non-essential"))
    message = planner_user(COOKIE_TASK, "PAGE", named=named_like(COOKIE_TASK, wall))
    assert message.endswith("Elements whose names share words with the task:\n"
                            f'<{UNTRUSTED_TAG} source="names of this page\'s elements">\n[2] button "Reject non-essential" (shares: essential)\n'
                            f"</{UNTRUSTED_TAG}>")


def test_a_page_with_no_shared_word_adds_nothing_to_the_planner_prompt():
    assert "share words" not in planner_user(COOKIE_TASK, "PAGE", named=named_like(COOKIE_TASK, _page(("button", "Accept all"))))


def test_the_executor_is_not_shown_the_named_elements():
    # On the smoke suite the list put one single decision right and another wrong (12/16 either way).
    assert "share words" not in executor_user(COOKIE_TASK, COOKIE_TASK, [], [], None, "PAGE", text_mode=True)


PRODUCT_TEXT = ("Blue Merino Scarf\nHand-knitted in Shetland from merino wool.\nPrice: 24.99 GBP\nDelivery in 3 days\n"
                "Returns accepted within 30 days\nSize\tLength\tWidth\nOne size\t180 cm\t30 cm")


def test_the_line_that_uses_the_task_s_words_is_quoted_with_the_line_after_it():
    # The price follows the line that names the product: the question's answer is only in the text.
    lines = text_like("How much does the merino scarf cost?", PRODUCT_TEXT, _page(("heading", "Blue Merino Scarf")))
    assert lines == ["Hand-knitted in Shetland from merino wool.", "Price: 24.99 GBP"]


def test_a_line_that_is_only_an_element_s_name_is_not_quoted_twice():
    assert "Blue Merino Scarf" not in text_like("merino scarf", PRODUCT_TEXT, _page(("heading", "Blue Merino Scarf")))
    assert "Blue Merino Scarf" in text_like("merino scarf", PRODUCT_TEXT, _page())


def test_a_table_row_keeps_its_cells_apart():
    assert text_like("What is the length?", PRODUCT_TEXT, _page()) == ["Size\tLength\tWidth", "One size\t180 cm\t30 cm"]


def test_a_page_whose_text_shares_no_word_with_the_task_quotes_nothing():
    assert text_like("Sign in to the bank", PRODUCT_TEXT, _page()) == []


def test_quoted_text_stays_within_its_budget():
    text = "\n".join(f"scarf line {i} " + "x" * 500 for i in range(40))
    lines = text_like("scarf", text, _page())
    assert sum(len(line) for line in lines) <= TEXT_CHARS
    assert all(len(line) <= LINE_CHARS + len(" [...]") for line in lines)


def test_the_planner_is_shown_the_text_lines_as_page_content_with_the_page_s_text_size():
    block = text_block(["Price: 24.99 GBP"], 2400)
    message = planner_user("How much is the scarf?", "PAGE", text=block)
    assert message.endswith("Lines of the page's text that use the task's words (the page holds 2400 characters of text; extract reads it):\n"
                            f'<{UNTRUSTED_TAG} source="text of this page">\nPrice: 24.99 GBP\n</{UNTRUSTED_TAG}>')
