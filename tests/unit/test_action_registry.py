"""The action registry (host.core.actions) is the one place an action is declared: every list of
actions elsewhere is derived from its traits, and each action has exactly one handler."""

import re

from waymark.host.agent.confirm import destructive_reason
from waymark.host.agent.host_actions import HOST_ACTION_HANDLERS
from waymark.host.core.actions import (
    ACTION_TYPES,
    ACTIONS,
    BROWSER_ACTIONS,
    COORDINATE_ACTIONS,
    ELEMENT_ACTIONS,
    EXAMPLES,
    parse_action,
)
from waymark.host.core.snapshot import Snapshot
from waymark.host.extension import extension_dir


def test_every_action_the_host_carries_out_has_a_host_handler():
    assert set(HOST_ACTION_HANDLERS) == {ACTIONS[kind] for kind in set(ACTION_TYPES) - BROWSER_ACTIONS}


def test_every_action_the_browser_carries_out_has_a_browser_handler():
    text = (extension_dir() / "sw" / "dispatch.js").read_text(encoding="utf-8")
    table = text[text.index("const HANDLERS = {"):]
    table = table[:table.index("};")]
    assert set(re.findall(r"\b([a-z_]+)(?=:|,|\n)", table.split("{", 1)[1])) >= BROWSER_ACTIONS


def test_every_example_is_a_valid_action_of_its_type():
    for kind, example in EXAMPLES.items():
        assert parse_action(example).type == kind


def test_an_element_action_requires_a_ref():
    for kind in ELEMENT_ACTIONS:
        assert "ref" in ACTIONS[kind].model_json_schema().get("required", []), kind


def _with_ref(kind):
    """The action's example aimed at ref 1 when it takes a ref (a coordinate action takes a point)."""
    return {**EXAMPLES[kind], "ref": 1} if "ref" in ACTIONS[kind].model_fields else EXAMPLES[kind]


def test_confirmation_follows_the_trait_of_the_action():
    # The button covers every coordinate action's example point (640, 360), as drawn in the screenshot.
    snapshot = Snapshot.model_validate({"url": "https://shop.test/", "title": "", "text": "",
                                        "elements": [{"ref": 1, "role": "button", "name": "Place order", "bbox": [600, 340, 100, 50], "in_viewport": True}]})
    asked = {kind for kind in ACTION_TYPES
             if (kind in ELEMENT_ACTIONS or kind in COORDINATE_ACTIONS) and destructive_reason(parse_action(_with_ref(kind)), snapshot)}
    assert asked == {kind for kind, cls in ACTIONS.items() if cls.traits.confirm == "activation"}


def test_the_architecture_doc_lists_every_action_with_its_example():
    import json
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("### Every action", 1)[1].split("\n#", 1)[0]
    missing = [kind for kind, cls in ACTIONS.items()
               if f"| `{kind}` | `{json.dumps(cls.traits.example, ensure_ascii=False)}` |" not in table]
    assert not missing, f"docs/architecture.md's 'Every action' table lacks {missing}"
