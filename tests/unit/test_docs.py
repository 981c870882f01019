"""The docs hold to the tree: every relative link in README, CHANGELOG and docs/ resolves (the
file, and the #anchor to one of its headings), every `waymark` command shown in a fenced block
is one `waymark` accepts, and every generated region is closed."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import re
import shlex
from pathlib import Path

import pytest

from waymark.host.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").glob("*.md")])

_FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def _docs_tables():
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "tools" / "docs_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = _CODE.sub(lambda m: m.group(0)[1:-1], heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (a repeated heading gets -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    out = set()
    for line in _FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6} (.+)", line)
        if not m:
            continue
        base = slug(m.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def relative_links(path: Path) -> list[str]:
    """The link targets of a Markdown file that point into the tree (code and web links left out)."""
    text = _CODE.sub("", _FENCE.sub("", path.read_text(encoding="utf-8")))
    return [t for t in _LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def fenced_commands(path: Path) -> list[str]:
    """Every `waymark ...` (or `.venv/bin/waymark ...`) command line in the file's fenced blocks
    (but `text` blocks, which hold program output),
    and the `"args"` of every MCP client configuration there that runs waymark."""
    commands = []
    for block in _FENCE.findall(path.read_text(encoding="utf-8")):
        if block.splitlines()[0].strip("`").strip() == "text":  # program output, not commands
            continue
        joined = re.sub(r"\s*\\\n\s*", " ", block)
        for line in joined.splitlines()[1:]:
            line = line.strip()
            if re.match(r"(\S*/)?waymark\s", line):
                commands.append(line)
        if re.search(r'"command":\s*"[^"]*waymark"', block):
            commands += ["waymark " + shlex.join(json.loads(args)) for args in re.findall(r'"args":\s*(\[[^\]]*\])', block)]
    return commands


def test_the_docs_that_the_checks_read_exist():
    names = {p.relative_to(ROOT).as_posix() for p in DOCS if p.exists()}
    assert {"README.md", "CHANGELOG.md", "docs/architecture.md", "docs/performance.md", "docs/evaluation.md"} <= names


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves_to_a_file_and_heading(doc: Path):
    broken = []
    for target in relative_links(doc):
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert broken == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_waymark_command_in_a_fenced_block_is_accepted_by_waymark(doc: Path):
    refused = []
    for command in fenced_commands(doc):
        argv = shlex.split(command, comments=True)[1:]
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                build_parser().parse_args(argv)
        except SystemExit:
            refused.append(f"{command}: {err.getvalue().strip().splitlines()[-1] if err.getvalue() else 'refused'}")
    assert refused == []


def test_the_readme_shows_the_test_command_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "./install_host.sh --dev" in ci and ".venv/bin/python -m pytest" in ci
    assert "./install_host.sh --dev && .venv/bin/python -m pytest" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_command_the_cli_does_not_have_is_refused_by_the_check(tmp_path: Path):
    doc = tmp_path / "x.md"
    doc.write_text("```bash\n.venv/bin/waymark evals run --suite smoke\nwaymark run \\\n  --model x \"task\"\n```\n"
                   '```json\n{"command": "/opt/waymark/.venv/bin/waymark", "args": ["mcp", "--lunch"]}\n```\n', encoding="utf-8")
    commands = fenced_commands(doc)
    assert commands == [".venv/bin/waymark evals run --suite smoke", 'waymark run --model x "task"', "waymark mcp --lunch"]
    for command in commands:  # an unknown subcommand, a missing --start-url, an unknown option
        with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            build_parser().parse_args(shlex.split(command)[1:])


def test_a_link_to_a_missing_heading_is_found(tmp_path: Path):
    (tmp_path / "a.md").write_text("# Title: with `code`, and more\n## Title: with `code`, and more\n", encoding="utf-8")
    assert anchors(tmp_path / "a.md") == {"title-with-code-and-more", "title-with-code-and-more-1"}
    doc = tmp_path / "b.md"
    doc.write_text("[ok](a.md#title-with-code-and-more) [web](https://example.com) `[no](x.md)`\n", encoding="utf-8")
    assert relative_links(doc) == ["a.md#title-with-code-and-more"]


@pytest.mark.parametrize("doc", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_generated_region_is_closed(doc: Path):
    _docs_tables().regions(doc.read_text(encoding="utf-8"))


def test_the_readme_is_short_and_names_no_commit():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 350
    hashes = [w for w in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", w) and re.search(r"[0-9]", w)]
    assert hashes == []
