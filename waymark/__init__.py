"""Waymark's Python distribution. The code lives in the checkout's top-level folders (host/,
providers/, eval/, extension/); pyproject.toml maps them under this package with setuptools
`package-dir`, so an install puts only `waymark` into site-packages."""
