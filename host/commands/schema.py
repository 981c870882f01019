"""`waymark schema`: write or check what the extension gets generated from the Python models:
the protocol's JSON Schema and its message types, the action registry's and message kinds' JS
constants and types, and the types of the settings view and of an agent run's plan and summary."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from waymark.host.extension import extension_dir

SCHEMA_FILE = "shared/protocol.schema.json"
SETTINGS_TYPES_FILE = "sidepanel/settings_types.js"
AGENT_TYPES_FILE = "sidepanel/agent_types.js"


def settings_types_js_text() -> str:
    """The text of extension/sidepanel/settings_types.js: the settings view the panel edits."""
    from waymark.host.core.extension_types import typedef_module
    from waymark.host.settings import SettingsView

    return typedef_module("host/settings.py", [SettingsView], mode="serialization")


def agent_types_js_text() -> str:
    """The text of extension/sidepanel/agent_types.js: a run's plan steps, its step events (with
    the guards' findings) and its summary, and the tone of each step verdict."""
    import json

    from waymark.host.agent.planner import PlanStep
    from waymark.host.agent.trace import RunSummary, StepEvent
    from waymark.host.agent.verdicts import STEP_VERDICT_TONES
    from waymark.host.core.extension_types import typedef_module

    text = typedef_module("host/agent/planner.py, host/agent/trace.py and host/agent/verdicts.py", [PlanStep, StepEvent, RunSummary],
                          mode="serialization")
    tones = json.dumps(STEP_VERDICT_TONES, separators=(", ", ": "))
    return text.replace("export {};\n", "/** How each step verdict reads: ok, warn or bad (host/agent/verdicts.py). @type {Readonly<Record<string, \"ok\"|\"warn\"|\"bad\">>} */\n"
                        f"export const STEP_VERDICT_TONES = Object.freeze({tones});\n")


def generated_files() -> dict[str, Callable[[], str]]:
    """Path under extension/ -> the function that renders its text."""
    from waymark.host.core.extension_types import GENERATED
    from waymark.host.core.protocol import json_schema_text

    return {SCHEMA_FILE: json_schema_text, **GENERATED, SETTINGS_TYPES_FILE: settings_types_js_text,
            AGENT_TYPES_FILE: agent_types_js_text}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schema", help="regenerate the extension's files made from the Python models (protocol schema, action constants)")
    p.add_argument("--check", action="store_true", help="exit 1 if a checked-in file is stale instead of writing it")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    stale = 0
    for name, render in generated_files().items():
        path = extension_dir() / name
        text = render()
        if args.check:
            current = path.read_text(encoding="utf-8") if path.exists() else ""
            if current != text:
                print(f"{path} is stale: run `waymark schema`", file=sys.stderr)
                stale += 1
            else:
                print(f"{path} is up to date")
            continue
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 1 if stale else 0
