"""Fuzzing the host's input path: nothing a browser can send makes it crash or go silent."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymark.host.core.protocol import ProtocolError, parse_inbound
from waymark.host.framing import FrameDecodeError, decode_body, encode_frame

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)

message_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "ping", "result", "event", "call", "cancel", "nope", ""])},
    optional={"v": st.sampled_from([1, 2, "1", None]), "id": st.none() | st.text(max_size=6) | st.integers(),
              "ok": json_values, "method": json_values, "params": json_values, "data": json_values, "name": json_values},
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_arbitrary_bytes_are_either_a_message_or_a_typed_error(body):
    try:
        parse_inbound(decode_body(body))
    except (FrameDecodeError, ProtocolError) as exc:
        assert exc.code in {"invalid_utf8", "invalid_json", "schema_violation", "unknown_type", "unsupported_version"}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message_like)
def test_message_shaped_objects_are_either_valid_or_a_typed_error(message):
    try:
        parsed = parse_inbound(json.loads(json.dumps(message)))
    except ProtocolError as exc:
        assert exc.code in {"schema_violation", "unknown_type", "unsupported_version"}
    else:
        assert parsed.type == message["type"]


def test_host_process_answers_every_frame_of_a_random_run(host_process):
    """A bounded random run against the real process: every frame gets exactly one answer."""
    rng = random.Random(20261122)
    kinds = ["garbage", "bad_json", "unknown", "schema", "ping"]
    sent = 0
    for i in range(300):
        kind = rng.choice(kinds)
        if kind == "garbage":
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        elif kind == "bad_json":
            body = b'{"v":1,"type":"ping","id":' + str(i).encode()
        elif kind == "unknown":
            body = json.dumps({"v": 1, "type": f"t{i}", "id": f"u{i}"}).encode()
        elif kind == "schema":
            body = json.dumps({"v": 1, "type": "result", "id": f"s{i}", "ok": "x"}).encode()
        else:
            body = json.dumps({"v": 1, "type": "ping", "id": f"p{i}"}).encode()
        host_process.send_raw(encode_frame(body))
        sent += 1
    answers = [host_process.read() for _ in range(sent)]
    assert all(a and a["type"] in ("pong", "error") for a in answers)
    assert host_process.request({"v": 1, "type": "ping", "id": "last"}) == {"v": 1, "type": "pong", "id": "last"}
    assert host_process.wait() == 0
    assert "Traceback" not in host_process.stderr_text()
