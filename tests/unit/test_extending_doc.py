"""docs/extending.md holds to the tree: every file it names exists, every test it names as the
one that enforces a step is a test function of that file, and each extension point it describes
names at least one such test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "extending.md"

#: A path in backticks, optionally with `::test_name`: `host/core/actions.py`, `tests/unit/x.py::test_y`.
_NAMED = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.(?:py|js|json|md))(?:::(\w+))?`")


def named(text: str) -> list[tuple[str, str]]:
    """(path, test name or "") for every file the guide names in backticks."""
    return [(m.group(1), m.group(2) or "") for m in _NAMED.finditer(text)]


def missing(text: str, root: Path) -> list[str]:
    """What the guide names that the tree under `root` lacks: files, and tests in their files."""
    out = []
    for path, test in named(text):
        file = root / path
        if not file.is_file():
            out.append(path)
        elif test and test not in {n.name for n in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}:
            out.append(f"{path}::{test}")
    return out


def sections(text: str) -> dict[str, str]:
    """The guide's `##` sections by heading."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_file_and_test_the_guide_names_exists():
    assert missing(GUIDE.read_text(encoding="utf-8"), ROOT) == []


@pytest.mark.parametrize("point", ["An action", "A guard", "A check (predicate)", "A provider", "An eval suite"])
def test_each_extension_point_names_a_test_that_enforces_it(point: str):
    body = sections(GUIDE.read_text(encoding="utf-8"))[point]
    assert any(test.startswith("test_") for _, test in named(body)), f"{point}: no enforcing test named"


def test_a_renamed_test_or_a_moved_file_is_found(tmp_path: Path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_kept():\n    pass\n", encoding="utf-8")
    text = "`tests/test_x.py::test_kept`, `tests/test_x.py::test_renamed`, `host/gone.py`"
    assert missing(text, tmp_path) == ["tests/test_x.py::test_renamed", "host/gone.py"]


def test_the_architecture_doc_links_the_guide():
    assert "(extending.md)" in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
