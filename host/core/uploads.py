"""The upload folder's rules: which files `upload_file` may give a page. The model names files;
only a plain name of a regular file directly inside the folder the user chose is accepted, so a
path the model or a page makes up (`../.ssh/id_rsa`, `/etc/passwd`, a symlink out of the folder)
never reaches the browser."""

from __future__ import annotations

import os
from pathlib import Path

from waymark.host.core.refusals import Refused

#: Files named in the executor's prompt; more are counted, not listed (the prompt stays short).
LISTED_FILES = 12


class UploadRefused(Refused):
    """A file the upload folder's rules refuse, with an error code the model can act on."""


def _plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name \
        and os.sep not in name and (os.altsep is None or os.altsep not in name)


def resolve_uploads(folder: str | Path | None, names: list[str]) -> list[Path]:
    """The absolute paths of `names` inside `folder`; raises UploadRefused (`no_upload_folder`,
    `bad_file_name`, `file_not_found`, `outside_upload_folder`) for the first name refused."""
    if not folder:
        raise UploadRefused("no_upload_folder", "no upload folder is set: the user must choose one in the settings before files can be uploaded")
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise UploadRefused("no_upload_folder", "the upload folder set in the settings does not exist")
    root = root.resolve()
    paths: list[Path] = []
    for name in names:
        if not _plain_name(name):
            raise UploadRefused("bad_file_name", f"{name[:100]!r} is not a file name: give the plain name of a file in the upload folder (no folders, no ..)")
        candidate = root / name
        if not candidate.exists():
            raise UploadRefused("file_not_found", f"there is no file {name[:100]!r} in the upload folder; its files: {', '.join(upload_names(root)) or 'none'}")
        resolved = candidate.resolve()
        if resolved.parent != root:
            raise UploadRefused("outside_upload_folder", f"{name[:100]!r} is a link to a file outside the upload folder")
        if not resolved.is_file():
            raise UploadRefused("file_not_found", f"{name[:100]!r} is not a file")
        paths.append(resolved)
    return paths


def upload_names(folder: str | Path | None, limit: int = LISTED_FILES) -> list[str]:
    """The names of the files `resolve_uploads` would accept, sorted, at most `limit` of them
    (hidden files are left out of the list; they can still be named)."""
    if not folder:
        return []
    root = Path(folder).expanduser()
    try:
        root = root.resolve()
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    names: list[str] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            target = Path(entry.path).resolve()
        except OSError:
            continue
        if target.parent == root and target.is_file():
            names.append(entry.name)
            if len(names) >= limit:
                break
    return names


def upload_summary(folder: str | Path | None) -> str:
    """One short line for the executor's prompt: the files it may upload (empty without a folder)."""
    if not folder:
        return ""
    names = upload_names(folder, LISTED_FILES + 1)
    if not names:
        return "Files you can upload: none (the upload folder is empty)."
    shown = ", ".join(names[:LISTED_FILES])
    return f"Files you can upload: {shown}{', ...' if len(names) > LISTED_FILES else ''}."
