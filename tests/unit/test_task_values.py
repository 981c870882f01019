"""The email addresses a task gives: entered before the form is sent, and entered or shown before a success is accepted."""

import os

from waymark.host.agent.prompts import executor_user
from waymark.host.agent.task_values import (
    missing_values,
    pressed_before_filled,
    task_values,
    untyped,
)
from waymark.host.core.actions import Click, Fill
from waymark.host.core.snapshot import Snapshot, SnapshotElement

PAGE = Snapshot(url="https://news.example/subscribed.html?email=&consent=essential", title="Subscribed", text="Thanks!")


def test_a_tasks_email_addresses_are_its_values_each_once():
    assert task_values("Send it to bob@example.com, then to ann@mail.example.org. Again to bob@example.com.") == [
        "bob@example.com", "ann@mail.example.org"]
    assert task_values("Sign in as ada with the password lovelace.") == []


def test_an_email_the_run_typed_is_not_missing():
    assert missing_values(["ada@example.com"], ["ada@example.com"], PAGE) == []


def test_an_email_the_page_shows_in_a_field_or_its_url_is_not_missing():
    field = PAGE.model_copy(update={"elements": [SnapshotElement(ref=1, role="textbox", name="Email", value="ada@example.com")]})
    assert missing_values(["ada@example.com"], [], field) == []
    assert missing_values(["ada@example.com"], [], PAGE.model_copy(update={"url": "https://news.example/s?email=ada%40example.com"})) == []


def test_an_email_never_typed_nor_shown_is_missing():
    assert missing_values(["ada@example.com"], ["ada"], PAGE) == ["ada@example.com"]


def test_a_value_the_run_has_not_typed_is_one_to_remind_the_executor_of():
    values = task_values("Subscribe ada@example.com and bob@example.com to the newsletter.")
    assert untyped(values, []) == ["ada@example.com", "bob@example.com"]
    assert untyped(values, ["Ada@Example.com"]) == ["bob@example.com"]


def test_the_executor_is_told_which_values_of_the_task_are_not_typed_yet():
    message = executor_user("Subscribe ada@example.com", "Click Subscribe", [], [], None, "PAGE", text_mode=True,
                            untyped=["ada@example.com"])
    assert "The task gives ada@example.com, which this run has not typed yet: fill it into its field before you submit." in message
    assert "not typed yet" not in executor_user("t", "i", [], [], None, "PAGE", text_mode=True, untyped=[])


def _form(email_value: str | None = None) -> Snapshot:
    return Snapshot(url="https://news.example/", elements=[
        SnapshotElement(ref=5, role="textbox", name="Email address", value=email_value, form=0),
        SnapshotElement(ref=6, role="checkbox", name="Weekly digest", states={"checked": False}, form=0),
        SnapshotElement(ref=7, role="button", name="Subscribe", form=0),
        SnapshotElement(ref=8, role="button", name="Search", form=1),
        SnapshotElement(ref=9, role="button", name="Delete my account"),
    ])


def test_pressing_a_button_while_the_email_field_the_task_fills_is_empty_is_refused_naming_both():
    # The real model clicked Subscribe with the field empty, and the subscription went through without the address.
    assert pressed_before_filled(Click(ref=7), _form(), ["ada@example.com"]) == (
        'the task gives ada@example.com, which this run has not typed, and [5] textbox "Email address" is empty: '
        'fill it before you press [7] button "Subscribe"')


def test_a_press_is_taken_once_the_field_holds_a_value_the_task_gives_none_or_the_button_sends_another_form():
    assert pressed_before_filled(Click(ref=7), _form("ada@example.com"), ["ada@example.com"]) is None
    assert pressed_before_filled(Click(ref=7), _form(), []) is None
    assert pressed_before_filled(Click(ref=6), _form(), ["ada@example.com"]) is None, "not a button"
    assert pressed_before_filled(Click(ref=8), _form(), ["ada@example.com"]) is None, "another form's button"
    assert pressed_before_filled(Click(ref=9), _form(), ["ada@example.com"]) is None, "a button of no form"
    assert pressed_before_filled(Fill(ref=5, text="ada@example.com"), _form(), ["ada@example.com"]) is None


def test_the_executors_message_holds_what_the_run_shares_before_what_each_turn_changes():
    # A server with a prompt cache (llama.cpp) processes only what follows the part two turns share.
    first = executor_user("Sign in as ada", "Fill the username", [], [], None, "PAGE ONE", text_mode=True)
    second = executor_user("Sign in as ada", "Click Sign in", [], ["filled ada"], None, "PAGE TWO", text_mode=True)
    shared = len(os.path.commonprefix([first, second]))
    assert first.index("Answer with exactly one JSON object") < first.index("Task: Sign in as ada") < shared
