"""A changed copy of the fixture sites, to measure how workflow replays heal: the same pages with
their markup changed the way sites change between visits. Every page gets an announcement banner
before its content; every class is renamed (in the markup, the style sheets and the scripts'
strings); the items of every plain list and the rows of every table body are reversed; and one
button per site is relabelled.
Nothing a person reads to do a task is removed: a replay that fails here failed to find it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from waymark.eval.sites.serve import SITES_DIR

#: Every class gets this prefix.
PREFIX = "v2-"
BANNER = ('<div class="v2-announcement" role="note"><p>Notice: we have refreshed the look of our pages. '
          'Everything is where you left it.</p></div>')
#: One relabelled button per site (the visible label; the rest of the button stays).
RENAMED = {
    "login": [(">Sign in</button>", ">Log in</button>"), (">Send reset link</button>", ">Email me a reset link</button>")],
    "cookies": [(">Subscribe</button>", ">Sign up</button>"), (">Save choices</button>", ">Confirm choices</button>")],
    "shop": [(">Add to cart</button>", ">Add to bag</button>")],
    "checkout": [(">Continue</button>", ">Next</button>")],
    "spa": [(">Archive done cards</button>", ">Archive finished cards</button>"), (">Save settings</button>", ">Apply settings</button>")],
    "widgets": [(">Save options</button>", ">Save selections</button>")],
}

_CLASS_ATTR = re.compile(r'(\sclass\s*=\s*)(["\'])(.*?)\2', re.IGNORECASE | re.DOTALL)
_STYLE = re.compile(r"(<style[^>]*>)(.*?)(</style>)", re.IGNORECASE | re.DOTALL)
_SCRIPT = re.compile(r"(<script[^>]*>)(.*?)(</script>)", re.IGNORECASE | re.DOTALL)
_STRING = re.compile(r"""(['"`])((?:\\.|(?!\1).)*)\1""", re.DOTALL)
_LIST = re.compile(r"(<ul[^>]*>)((?:\s*<li\b[^>]*>(?:(?!<li\b|<ul\b|</ul>).)*?</li>)+)(\s*</ul>)", re.IGNORECASE | re.DOTALL)
_ITEM = re.compile(r"<li\b[^>]*>.*?</li>", re.IGNORECASE | re.DOTALL)
_TBODY = re.compile(r"(<tbody[^>]*>)(.*?)(</tbody>)", re.IGNORECASE | re.DOTALL)
_ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.IGNORECASE | re.DOTALL)


def class_names(texts: list[str]) -> set[str]:
    """Every class a page's markup uses."""
    names: set[str] = set()
    for text in texts:
        for match in _CLASS_ATTR.finditer(text):
            names.update(t for t in match.group(3).split() if re.fullmatch(r"[A-Za-z_][\w-]*", t))
    return names


def _rename_css(css: str, names: set[str]) -> str:
    return re.sub(r"\.([A-Za-z_][\w-]*)", lambda m: f".{PREFIX}{m.group(1)}" if m.group(1) in names else m.group(0), css)


#: Where a script's string is a list of classes (not an id or a word that happens to be a class's name).
_CLASS_CONTEXT = re.compile(r"(classList\.(add|remove|toggle|contains|replace)\(\s*|className\s*=\s*|class=)$")


def _rename_string(body: str, names: set[str], is_class_list: bool) -> str:
    """A script string that is a selector or a class list, with the classes renamed."""
    tokens = body.split()
    if is_class_list and tokens and all(t in names for t in tokens):
        return " ".join(PREFIX + t for t in tokens)
    body = _CLASS_ATTR.sub(lambda m: m.group(1) + m.group(2) + " ".join(
        PREFIX + t if t in names else t for t in m.group(3).split()) + m.group(2), body)
    return _rename_css(body, names)


def _rename_js(js: str, names: set[str]) -> str:
    return _STRING.sub(lambda m: m.group(1) + _rename_string(m.group(2), names, bool(_CLASS_CONTEXT.search(js[max(0, m.start() - 40):m.start()])))
                       + m.group(1), js)


def _reverse_lists(html: str) -> str:
    def reverse(match: re.Match[str]) -> str:
        items = _ITEM.findall(match.group(2))
        return match.group(1) + "\n" + "\n".join(reversed(items)) + match.group(3)

    def reverse_rows(match: re.Match[str]) -> str:
        return match.group(1) + "\n" + "\n".join(reversed(_ROW.findall(match.group(2)))) + "\n" + match.group(3)

    return _TBODY.sub(reverse_rows, _LIST.sub(reverse, html))


def changed_html(html: str, names: set[str], renamed: list[tuple[str, str]]) -> str:
    """One page with the variant's changes."""
    html = _CLASS_ATTR.sub(lambda m: m.group(1) + m.group(2) + " ".join(
        PREFIX + t if t in names else t for t in m.group(3).split()) + m.group(2), html)
    html = _STYLE.sub(lambda m: m.group(1) + _rename_css(m.group(2), names) + m.group(3), html)
    html = _SCRIPT.sub(lambda m: m.group(1) + _rename_js(m.group(2), names) + m.group(3), html)
    html = _reverse_lists(html)
    for old, new in renamed:
        html = html.replace(old, new)
    return re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + "\n" + BANNER, html, count=1, flags=re.IGNORECASE)


def make_variant(dest: Path, source: Path = SITES_DIR) -> Path:
    """Write the changed copy of the sites under `dest` (replaced if present); returns it."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    for site in sorted(p for p in dest.iterdir() if p.is_dir()):
        files = sorted(site.rglob("*"))
        names = class_names([f.read_text(encoding="utf-8") for f in files if f.suffix == ".html"])
        for path in files:
            text = path.read_text(encoding="utf-8") if path.suffix in (".html", ".css", ".js") else None
            if text is None:
                continue
            if path.suffix == ".html":
                text = changed_html(text, names, RENAMED.get(site.name, []))
            elif path.suffix == ".css":
                text = _rename_css(text, names)
            else:
                text = _rename_js(text, names)
            path.write_text(text, encoding="utf-8")
    return dest
