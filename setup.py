"""The wheel's package list, read off the folders so that none can be left out.

pyproject.toml maps host/, providers/, eval/ and extension/ under the `waymark` package. Every folder
inside them whose name Python could import is declared a package, data-only ones included (suites,
sites, the extension's folders): setuptools warns about each importable folder it is handed as
package data but not told is a package, once per install, and a hand-kept list drifts.
"""

from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
ROOTS = {"host": "waymark.host", "providers": "waymark.providers", "eval": "waymark.eval",
         "extension": "waymark.extension"}
SKIP = {"__pycache__", "node_modules"}


def packages() -> list[str]:
    """`waymark` and every importable folder under the four roots, as dotted package names."""
    found = ["waymark"]
    for folder, name in ROOTS.items():
        base = HERE / folder
        for path in sorted([base, *(p for p in base.rglob("*") if p.is_dir())]):
            parts = path.relative_to(base).parts
            if SKIP.intersection(parts) or not all(part.isidentifier() for part in parts):
                continue
            found.append(".".join([name, *parts]))
    return found


setup(packages=packages())
