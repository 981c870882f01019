"""Accessible names against web-platform-tests' accname cases (`accname/name/comp_*.html`, each
element carrying its expected name in `data-expectedlabel`): on every element the snapshot lists
and Chrome's accessibility tree names as WPT expects, the snapshot's name is WPT's too.

The WPT files are public test data kept outside this repository, beside the checkout as
`shared/wpt/` (a copy of the repository's `accname/name/` with its LICENSE.md and a README naming
the commit), or wherever `WAYMARK_WPT` points; without them the test is skipped.

Where Chrome's name and WPT's expectation disagree, `DISAGREEMENTS` says which one the snapshot
gives and why; a disagreement it does not list fails the test, so each new one gets a decision.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.chrome_ax import MARK, compare
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.perception_helpers import snapshot

WPT = Path(os.environ.get("WAYMARK_WPT") or Path(__file__).resolve().parents[3] / "shared" / "wpt")
NAMES = WPT / "accname" / "name"

#: Kinds of case where Chrome's name is not WPT's expectation (matched on data-testname): who the
#: snapshot follows there, and why.
DISAGREEMENTS: dict[str, tuple[str, str, str]] = {
    "hidden-label": (
        r"^html: label\[for\] with (display: none|visibility: hidden|visibility: collapse|hidden attribute) for input\[(text|checkbox|password|number|range)\]$",
        "chrome",
        "WPT (HTML-AAM) lets an unrendered <label for> name its field; Chrome names it nothing, and so does the snapshot: "
        "pages repeat a form in a closed panel, and a label out of sight is a stale copy more often than the field's name."),
    "aria-hidden-label": (
        r"^html: label\[for\] with aria-hidden=true for input\[(text|checkbox|password|number|range)\]$", "wpt",
        "An aria-hidden <label for> that is drawn on screen: Chrome names the field nothing, WPT by the label, and so does "
        "the snapshot, because a person sees that label beside the field and a model must be able to name it alike."),
    "hidden-label-on-input-button": (
        r"^html: label\[for\] with .* for input\[button\]$", "own",
        "WPT names the button by its hidden label, Chrome names it nothing; the snapshot says the button's value, the "
        "word a person sees on it (a hidden label names nothing, as above)."),
    "generated-content-spacing": (
        r"name from content with ::(before|after)", "chrome",
        "WPT expects inline ::before/::after text set apart by spaces; Chrome reads it as rendered, run into the text "
        "('beforelabelafter'), and the snapshot says what the screen shows, as Chrome does."),
    "generated-content-alt-text": (
        r"name from fallback content with ::before and ::after", "chrome",
        "WPT expects the alternative text of `content: 'x' / 'alt'`; Chrome's tree leaves that content out, and the "
        "snapshot follows Chrome, which is what the pages it reads were tested against."),
    "tooltip-below-content": (
        r"^(button|summary|link with text) with tooltip label$", "chrome",
        "WPT expects the title over the element's own text; accname 1.2 takes the content (step 2F) before the tooltip "
        "(2I), Chrome does, and so does the snapshot: the words a person sees on the control."),
    "duplicate-id": (
        r"with hidden aria-labeledby traversal falls back to aria-label$", "chrome",
        "The file gives two elements the id the label points at; WPT expects the second, Chrome and the DOM's "
        "getElementById take the first (a hidden span saying 'label'), and so does the snapshot."),
}

#: ASCII whitespace, the only whitespace accname trims and collapses (a no-break space is text).
_SPACE = re.compile(r"[ \t\n\r\f]+")


def _norm(name: str) -> str:
    return _SPACE.sub(" ", name).strip(" ")


@dataclass
class Case:
    page: str
    test: str
    expected: str
    ours: str
    chrome: str


async def _cases(sw, page, base: str, name: str) -> tuple[list[Case], int]:
    """The paired elements of one WPT page that carry an expected name, and the number of
    elements the snapshot lists there."""
    await page.goto(f"{base}/{name}")
    snap = await snapshot(sw, page, max_chars=1_000_000)
    agreement = await compare(sw, page, await tab_id_of(sw, page), snap)
    expected = await page.evaluate(
        """(mark) => Object.fromEntries(Array.from(document.querySelectorAll(`[${mark}]`))
             .filter((e) => e.hasAttribute("data-expectedlabel"))
             .map((e) => [e.getAttribute(mark), [e.getAttribute("data-expectedlabel"), e.getAttribute("data-testname") || ""]]))""",
        MARK,
    )
    places = await sw.evaluate("([t, r]) => globalThis.waymark.snapshot.localRefs(t, r)", [await tab_id_of(sw, page), [p.ref for p in agreement.pairs]])
    local = {p["ref"]: p["localRef"] for p in places}
    cases = []
    for pair in agreement.pairs:
        found = expected.get(str(local.get(pair.ref)))
        if found is not None:
            cases.append(Case(name, found[1], _norm(found[0]), _norm(pair.ours_name), _norm(pair.chrome_name)))
    return cases, len(snap["elements"])


@pytest.mark.skipif(not NAMES.is_dir(), reason="web-platform-tests' accname files are not beside this checkout (shared/wpt or WAYMARK_WPT)")
@pytest.mark.timeout(600)
async def test_every_name_agrees_with_web_platform_tests_wherever_chromes_does(sw, page):
    from waymark.eval.sites.serve import SiteServer

    cases: list[Case] = []
    with SiteServer(NAMES, html_charset="utf-8") as server:
        for path in sorted(NAMES.glob("comp_*.html")):
            cases += (await _cases(sw, page, server.site, path.name))[0]
    ours_ok = [c for c in cases if c.ours == c.expected]
    chrome_ok = [c for c in cases if c.chrome == c.expected]
    print(f"\nWPT accname: Waymark agrees on {len(ours_ok)}/{len(cases)}, Chrome on {len(chrome_ok)}/{len(cases)}")
    for c in cases:
        if c.ours != c.expected or c.chrome != c.expected:
            print(f"  {c.page}: {c.test!r}: expected {c.expected!r}, ours {c.ours!r}, chrome {c.chrome!r}")
    behind_chrome = [c for c in chrome_ok if c.ours != c.expected]
    assert behind_chrome == [], "names Chrome gets right and the snapshot does not:\n" + "\n".join(
        f"{c.page}: {c.test}: expected {c.expected!r}, got {c.ours!r}" for c in behind_chrome)
    seen: set[str] = set()
    for c in cases:
        if c.chrome == c.expected:
            continue
        kinds = [kind for kind, (pattern, _, _) in DISAGREEMENTS.items() if re.search(pattern, c.test)]
        assert len(kinds) == 1, f"Chrome and WPT disagree on {c.test!r} ({c.page}); no single listed kind explains it: {kinds}"
        seen.add(kinds[0])
        follows = {"chrome": c.chrome, "wpt": c.expected}.get(DISAGREEMENTS[kinds[0]][1], c.ours)
        assert c.ours == follows, f"{c.test!r}: the snapshot says {c.ours!r}, not {follows!r} ({kinds[0]})"
    assert seen == set(DISAGREEMENTS), f"listed disagreements that no longer happen: {set(DISAGREEMENTS) - seen}"
