"""The upload folder's rules (host.core.uploads): only plain names of files inside the folder the
user chose reach the browser, as absolute paths; everything else is a typed refusal."""

import os
from pathlib import Path

import pytest

from waymark.host.core.uploads import (
    LISTED_FILES,
    UploadRefused,
    resolve_uploads,
    upload_names,
    upload_summary,
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "uploads"
    root.mkdir()
    (root / "report.pdf").write_bytes(b"pdf")
    (root / "cat.png").write_bytes(b"png")
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_text("inner")
    (tmp_path / "secret.txt").write_text("secret")
    return root


def refusal(folder: Path | None, names: list[str]) -> str:
    with pytest.raises(UploadRefused) as caught:
        resolve_uploads(folder, names)
    return caught.value.code


def test_a_plain_name_resolves_to_the_file_in_the_folder(folder: Path):
    assert resolve_uploads(folder, ["report.pdf", "cat.png"]) == [folder.resolve() / "report.pdf", folder.resolve() / "cat.png"]


def test_no_folder_is_refused_as_no_upload_folder():
    assert refusal(None, ["report.pdf"]) == "no_upload_folder"


def test_a_folder_that_does_not_exist_is_refused_as_no_upload_folder(tmp_path: Path):
    assert refusal(tmp_path / "gone", ["report.pdf"]) == "no_upload_folder"


@pytest.mark.parametrize("name", ["../secret.txt", "..", ".", "sub/inner.txt", "sub\\inner.txt", "/etc/passwd", ""])
def test_a_name_with_a_path_in_it_is_refused_as_bad_file_name(folder: Path, name: str):
    assert refusal(folder, [name]) == "bad_file_name"


def test_an_absolute_path_into_the_folder_is_refused_too(folder: Path):
    assert refusal(folder, [str(folder / "report.pdf")]) == "bad_file_name"


def test_a_missing_file_is_refused_naming_the_files_there_are(folder: Path):
    with pytest.raises(UploadRefused) as caught:
        resolve_uploads(folder, ["invoice.pdf"])
    assert caught.value.code == "file_not_found"
    assert "cat.png, report.pdf" in caught.value.message


def test_a_folder_inside_the_folder_is_not_a_file(folder: Path):
    assert refusal(folder, ["sub"]) == "file_not_found"


def test_a_symlink_leaving_the_folder_is_refused(folder: Path):
    os.symlink(folder.parent / "secret.txt", folder / "innocent.txt")
    assert refusal(folder, ["innocent.txt"]) == "outside_upload_folder"


def test_a_symlink_to_a_file_in_the_folder_is_accepted(folder: Path):
    os.symlink(folder / "report.pdf", folder / "latest.pdf")
    assert resolve_uploads(folder, ["latest.pdf"]) == [folder.resolve() / "report.pdf"]


def test_one_refused_name_refuses_the_whole_upload(folder: Path):
    assert refusal(folder, ["report.pdf", "../secret.txt"]) == "bad_file_name"


def test_the_listed_names_are_the_files_an_upload_accepts(folder: Path):
    os.symlink(folder.parent / "secret.txt", folder / "escape.txt")
    (folder / ".hidden").write_text("h")
    assert upload_names(folder) == ["cat.png", "report.pdf"]


def test_the_prompt_line_lists_a_few_files_and_says_when_there_are_more(tmp_path: Path):
    for i in range(LISTED_FILES + 3):
        (tmp_path / f"f{i:02d}.txt").write_text("x")
    line = upload_summary(tmp_path)
    assert line.startswith("Files you can upload: f00.txt, f01.txt")
    assert line.endswith(", ....")
    assert f"f{LISTED_FILES:02d}.txt" not in line


def test_no_folder_gives_no_prompt_line():
    assert upload_summary(None) == ""
