"""The email addresses a task gives: entered before the form is sent, and entered or shown before a success is accepted."""


from waymark.host.agent.prompts import executor_user
from waymark.host.agent.task_values import (
    task_values,
    untyped,
)
from waymark.host.core.snapshot import Snapshot, SnapshotElement

PAGE = Snapshot(url="https://news.example/subscribed.html?email=&consent=essential", title="Subscribed", text="Thanks!")


def test_a_tasks_email_addresses_are_its_values_each_once():
    assert task_values("Send it to bob@example.com, then to ann@mail.example.org. Again to bob@example.com.") == [
        "bob@example.com", "ann@mail.example.org"]
    assert task_values("Sign in as ada with the password lovelace.") == []


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


def test_the_executors_message_opens_with_the_task_and_ends_with_the_answer_format_after_the_page():
    # The task opens every turn (a prompt cache reuses it); the format comes last, since put first
    # the 1.5B model chose the wrong action on 8 of 16 smoke decisions against 3 (docs/yardstick.md).
    first = executor_user("Sign in as ada", "Fill the username", [], [], None, "PAGE ONE", text_mode=True)
    second = executor_user("Sign in as ada", "Click Sign in", [], ["filled ada"], None, "PAGE TWO", text_mode=True)
    assert first.startswith("Task: Sign in as ada") and second.startswith("Task: Sign in as ada")
    assert first.index("PAGE ONE") < first.index("Answer with exactly one JSON object")
