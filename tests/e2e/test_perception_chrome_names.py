"""Names and roles that agree with Chrome's own accessibility tree: on the accname cases of
web-platform-tests that apply to what the snapshot lists, and on every page of the shared corpus
of real pages (when it is present beside the repository)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e.chrome_ax import Agreement, compare
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.perception_helpers import snapshot

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "pages"
#: Differences with Chrome that are understood and kept: each miss line of a page names the
#: category of its reason. A miss that is not listed fails the test, and so does a listed one
#: that no longer happens (the list never outlives what it excuses).
ALLOWED = json.loads((Path(__file__).with_name("chrome_ax_allowed.json")).read_text(encoding="utf-8"))
#: Allowed differences still count against these: they are explained, not agreement.
NAME_TARGET, ROLE_TARGET = 0.9997, 0.999


async def _agreement(sw, page, url: str) -> Agreement:
    await page.goto(url)
    snap = await snapshot(sw, page, max_chars=10_000_000)
    return await compare(sw, page, await tab_id_of(sw, page), snap)


def _misses(agreement: Agreement) -> tuple[list[str], list[str]]:
    names = [f"{p.ours_role} {p.ours_name!r} != chrome {p.chrome_role} {p.chrome_name!r}" for p in agreement.name_misses()]
    roles = [f"role {p.ours_role} != chrome {p.chrome_role} ({p.ours_name!r})" for p in agreement.role_misses()]
    return names, roles


def test_every_allowed_difference_has_a_reason():
    reasons = ALLOWED["reasons"]
    assert all(len(reason) > 40 for reason in reasons.values())
    assert {category for misses in ALLOWED["misses"].values() for category in misses.values()} == set(reasons)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus is not beside this checkout")
@pytest.mark.timeout(1500)
async def test_names_and_roles_agree_with_chrome_on_every_corpus_page(sw, page):
    limit = int(os.environ.get("WAYMARK_AX_PAGES", "0")) or None
    pages = sorted(p.parent.name for p in CORPUS.glob("*/index.html"))[:limit]
    named = name_misses = roles = role_misses = 0
    unlisted, seen = [], set()
    with _serve_corpus() as base:
        for name in pages:
            agreement = await _agreement(sw, page, f"{base}/{name}/index.html")
            bad_names, bad_roles = _misses(agreement)
            named += len(agreement.named())
            name_misses += len(bad_names)
            roles += len([p for p in agreement.pairs if p.ours_role != "clickable"])
            role_misses += len(bad_roles)
            allowed = ALLOWED["misses"].get(name, {})
            unlisted += [f"{name}: {m}" for m in bad_names + bad_roles if m not in allowed]
            seen |= {(name, m) for m in bad_names + bad_roles}
    stale = [f"{page}: {m}" for page, misses in ALLOWED["misses"].items() for m in misses if page in pages and (page, m) not in seen]
    names_agree, roles_agree = 1 - name_misses / max(1, named), 1 - role_misses / max(1, roles)
    print(f"\nnames agree {named - name_misses}/{named} ({names_agree:.4%}); roles {roles - role_misses}/{roles} ({roles_agree:.4%});"
          f" {name_misses + role_misses - len(unlisted)} allowed differences")
    print("\n".join(unlisted[: int(os.environ.get("WAYMARK_AX_REPORT_LINES", "80"))]))
    assert unlisted == [], "differences with Chrome that the allow-list does not explain:\n" + "\n".join(unlisted[:40])
    assert stale == [], "allowed differences that no longer happen (remove them):\n" + "\n".join(stale)
    if limit is None:
        assert names_agree >= NAME_TARGET and roles_agree >= ROLE_TARGET


def _serve_corpus():
    from waymark.eval.sites.serve import SiteServer

    class Corpus:
        def __enter__(self) -> str:
            self.server = SiteServer(CORPUS).start()
            return self.server.site

        def __exit__(self, *exc: object) -> None:
            self.server.close()

    return Corpus()


async def test_every_accname_case_has_the_name_and_role_chrome_gives_it(sw, page, site_url):
    agreement = await _agreement(sw, page, f"{site_url}/perception/accname.html")
    assert len(agreement.pairs) >= 20 and agreement.unpaired == 0
    names, roles = _misses(agreement)
    assert names + roles == []


async def test_a_select_inside_its_label_is_named_by_the_label_alone(sw, page, site_url):
    await page.goto(f"{site_url}/perception/accname.html")
    snap = await snapshot(sw, page)
    assert [e["name"] for e in snap["elements"] if e["role"] == "combobox"][0] == "Plan"


async def test_a_fields_name_attribute_is_its_own_key_not_its_name(sw, page, site_url):
    await page.goto(f"{site_url}/perception/accname.html")
    snap = await snapshot(sw, page)
    (field,) = [e for e in snap["elements"] if e.get("field") == "vb_login_username"]
    assert field["name"] == ""
    assert '[%d] textbox field="vb_login_username"' % field["ref"] in snap["text"], "no name: no quotes, the field's key"
    (email,) = [e for e in snap["elements"] if e["name"] == "Email address"]
    assert email["placeholder"] == "you@example.com" and email.get("field") is None
    (only,) = [e for e in snap["elements"] if e["name"] == "Only a placeholder"]
    assert only.get("placeholder") is None  # said once, as the name Chrome gives it


async def _accname_names(sw, page, site_url) -> set[str]:
    await page.goto(f"{site_url}/perception/accname.html")
    return {e["name"] for e in (await snapshot(sw, page))["elements"]}


async def test_aria_labeledby_the_misspelling_browsers_accept_names_a_button(sw, page, site_url):
    assert "Misspelt reference" in await _accname_names(sw, page, site_url)


async def test_a_hidden_aria_labelledby_target_is_read_whole_with_its_hidden_descendants(sw, page, site_url):
    assert {"Under a hidden cover", "Under a collapsed cover", "Under an aria-hidden cover"} <= await _accname_names(sw, page, site_url)


async def test_a_shown_aria_labelledby_target_leaves_out_its_hidden_descendants(sw, page, site_url):
    assert "Shown" in await _accname_names(sw, page, site_url)


async def test_a_hidden_aria_labelledby_target_comes_before_aria_label(sw, page, site_url):
    named = await _accname_names(sw, page, site_url)
    assert "Hidden reference wins" in named and "Own label" not in named


async def test_a_leading_no_break_space_in_aria_label_stays_in_the_name(sw, page, site_url):
    assert "\xa0Spaced label" in await _accname_names(sw, page, site_url)
