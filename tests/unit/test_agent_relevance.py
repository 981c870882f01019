"""The elements named with the task's words: what the planner is pointed at, and what never is."""

from __future__ import annotations

from waymark.host.agent.prompts import UNTRUSTED_TAG, executor_user, planner_user
from waymark.host.agent.relevance import MOST, named_like
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
