"""The grammar of upload_file and select_text, and when upload_file is offered to the model."""

import pytest
from pydantic import ValidationError

from waymark.host.agent.prompts import action_signatures, executor_user
from waymark.host.core.actions import (
    ACTION_TYPES,
    SINGLE_TAB_ACTIONS,
    UPLOAD_ACTIONS,
    offered_actions,
    parse_action,
    text_form,
)
from waymark.host.settings import Settings


def test_upload_file_takes_a_ref_and_file_names():
    action = parse_action({"type": "upload_file", "ref": 3, "files": ["report.pdf"]})
    assert (action.ref, action.files) == (3, ["report.pdf"])


@pytest.mark.parametrize("fields", [{"files": ["a.pdf"]}, {"ref": 3}, {"ref": 3, "files": []}, {"ref": 3, "files": "a.pdf"}])
def test_upload_file_without_a_ref_or_files_is_invalid(fields):
    with pytest.raises(ValidationError):
        parse_action({"type": "upload_file", **fields})


def test_select_text_takes_text_and_an_optional_ref():
    assert parse_action({"type": "select_text", "text": "fox"}).ref is None
    assert parse_action({"type": "select_text", "text": "fox", "ref": 5}).ref == 5


def test_select_text_without_text_is_invalid():
    with pytest.raises(ValidationError):
        parse_action({"type": "select_text", "ref": 5, "text": ""})


def test_upload_file_is_offered_only_with_an_upload_folder():
    assert UPLOAD_ACTIONS == {"upload_file"}
    assert "upload_file" not in offered_actions(multi_tab=False, upload_folder=False)
    assert "upload_file" in offered_actions(multi_tab=False, upload_folder=True)
    assert "upload_file" not in SINGLE_TAB_ACTIONS
    assert "upload_file" in ACTION_TYPES


def test_select_text_is_offered_in_every_turn():
    assert "select_text" in SINGLE_TAB_ACTIONS


def test_the_answer_format_writes_the_new_actions_with_their_fields():
    assert text_form("upload_file") == "upload_file{ref,files}"
    assert text_form("select_text") == "select_text{text,ref?}"
    assert "select_text{text,ref?}" in action_signatures(SINGLE_TAB_ACTIONS)


def test_the_upload_folder_setting_must_be_absolute():
    with pytest.raises(ValidationError):
        Settings(upload_dir="Downloads")
    assert Settings(upload_dir="  ").upload_dir is None
    assert Settings(upload_dir="/srv/files").upload_dir == "/srv/files"


def test_the_executor_is_shown_the_upload_folders_files_after_the_page():
    message = executor_user("Attach the report", "attach", [], [], None, "PAGE", text_mode=True,
                            allowed=offered_actions(multi_tab=False, upload_folder=True), uploads="Files you can upload: report.pdf.")
    assert "upload_file{ref,files}" in message
    assert message.index("PAGE") < message.index("Files you can upload: report.pdf.")


def test_without_uploads_the_executor_is_told_of_no_files():
    message = executor_user("t", "i", [], [], None, "PAGE", text_mode=True, allowed=SINGLE_TAB_ACTIONS)
    assert "upload" not in message
