"""Host methods, one module per concern; every module here registers with `@method` on import."""

import importlib
import pkgutil


def load_all() -> None:
    """Import every method module here, so each registers itself with host.methods (once)."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{info.name}")
