"""`waymark schema`: write or check the protocol's JSON Schema under extension/shared/."""

from __future__ import annotations

import argparse
import sys

from host.extension import extension_dir

SCHEMA_FILE = "shared/protocol.schema.json"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schema", help="regenerate extension/shared/protocol.schema.json from the protocol models")
    p.add_argument("--check", action="store_true", help="exit 1 if the checked-in file is stale instead of writing it")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from host.core.protocol import json_schema_text

    path = extension_dir() / SCHEMA_FILE
    text = json_schema_text()
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is stale: run `waymark schema`", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0
