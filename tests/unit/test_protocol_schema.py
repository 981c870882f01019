"""The protocol models are the contract; the checked-in schema and extension ID follow them."""

import json

import pytest

from waymark.host.commands.schema import SCHEMA_FILE, generated_files
from waymark.host.core.protocol import ProtocolError, json_schema_text, parse_inbound
from waymark.host.extension import extension_dir, extension_id, manifest


def test_checked_in_json_schema_matches_the_protocol_models():
    checked_in = (extension_dir() / SCHEMA_FILE).read_text(encoding="utf-8")
    assert checked_in == json_schema_text(), "extension/shared/protocol.schema.json is stale: run `waymark schema`"


@pytest.mark.parametrize("name", sorted(generated_files()))
def test_checked_in_generated_extension_file_matches_the_python_models(name):
    checked_in = (extension_dir() / name).read_text(encoding="utf-8")
    assert checked_in == generated_files()[name](), f"extension/{name} is stale: run `waymark schema`"


def test_extension_id_is_derived_from_the_manifest_key():
    assert extension_id() == "diocidhonegkbedcpckglicboncmmhim"
    assert manifest()["manifest_version"] == 3


def test_js_protocol_constants_match_the_host():
    from waymark.host.core import HOST_NAME, PROTOCOL_VERSION

    text = (extension_dir() / "shared" / "protocol.js").read_text(encoding="utf-8")
    assert f'export const HOST_NAME = "{HOST_NAME}";' in text
    assert f"export const PROTOCOL_VERSION = {PROTOCOL_VERSION};" in text


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ([1, 2], "schema_violation"),
        ({"v": 1, "id": "a"}, "schema_violation"),
        ({"v": 1, "type": "launch_missiles", "id": "a"}, "unknown_type"),
        ({"v": 2, "type": "ping", "id": "a"}, "unsupported_version"),
        ({"v": 1, "type": "result", "id": "a"}, "schema_violation"),
        ({"v": 1, "type": "ping", "id": "a", "extra": True}, "schema_violation"),
    ],
)
def test_invalid_messages_raise_typed_protocol_errors(message, code):
    with pytest.raises(ProtocolError) as info:
        parse_inbound(message)
    assert info.value.code == code


def test_protocol_error_keeps_the_id_of_the_offending_message():
    with pytest.raises(ProtocolError) as info:
        parse_inbound({"v": 1, "type": "nope", "id": "q7"})
    assert info.value.message_id == "q7"


def test_schema_describes_both_directions():
    schema = json.loads(json_schema_text())
    assert set(schema) >= {"inbound", "outbound"}


def test_every_step_verdict_has_the_tone_the_side_panel_colours_it_by():
    from typing import get_args

    from waymark.host.agent.verdicts import STEP_VERDICT_TONES, StepVerdict

    assert set(STEP_VERDICT_TONES) == set(get_args(StepVerdict))
    text = (extension_dir() / "sidepanel" / "agent_types.js").read_text(encoding="utf-8")
    assert '"declined": "bad"' in text and '"unproven": "warn"' in text
