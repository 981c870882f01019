"""The changed copy of the fixture sites the workflow eval replays on: markup changes a person
does not see as a different site, nothing they read to do a task removed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from waymark.eval.site_variants import BANNER, changed_html, make_variant
from waymark.eval.sites.serve import SITES_DIR


@pytest.fixture(scope="module")
def variant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_variant(tmp_path_factory.mktemp("variant") / "sites")


def test_every_page_gets_the_banner_first_in_its_body(variant: Path):
    pages = list(variant.rglob("*.html"))
    assert pages and all(BANNER in p.read_text(encoding="utf-8") for p in pages)


def test_classes_are_renamed_in_markup_and_style_but_ids_stay():
    html = '<style>.card{color:red}</style><ul id="results" class="results"></ul><script>document.getElementById("results")</script>'
    out = changed_html(html, {"card", "results"}, [])
    assert '.v2-card{' in out and 'class="v2-results"' in out and 'getElementById("results")' in out


def test_a_class_list_a_script_sets_is_renamed():
    out = changed_html('<p class="hidden"></p><script>el.classList.add("hidden"); q(".hidden")</script>', {"hidden"}, [])
    assert 'classList.add("v2-hidden")' in out and 'q(".v2-hidden")' in out


def test_the_items_of_a_plain_list_are_reversed():
    out = changed_html("<ul><li>one</li><li>two</li></ul>", set(), [])
    assert out.index("two") < out.index("one")


def test_the_rows_of_a_table_body_are_reversed_and_its_head_stays_first():
    out = changed_html("<table><thead><tr><th>Order</th></tr></thead><tbody><tr><td>one</td></tr><tr><td>two</td></tr></tbody></table>",
                       set(), [])
    assert out.index("Order") < out.index("two") < out.index("one")


def test_one_button_per_site_is_relabelled(variant: Path):
    assert ">Log in</button>" in (variant / "login" / "index.html").read_text(encoding="utf-8")


def test_every_changed_script_still_parses(variant: Path):
    node = shutil.which("node")
    assert node, "node checks the scripts' syntax (the extension's tests need it too)"
    for path in variant.rglob("*.js"):
        done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, f"{path.relative_to(variant)}: {done.stderr}"


def test_the_sites_themselves_are_never_changed(variant: Path):
    assert BANNER not in (SITES_DIR / "login" / "index.html").read_text(encoding="utf-8")
