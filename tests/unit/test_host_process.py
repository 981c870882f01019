"""The host over pipes, exactly as Chrome runs it: handshake, ping, every kind of bad input."""

import os
import subprocess
import sys

import pytest

from waymark.host.framing import encode_frame


def assert_no_traceback(host) -> None:
    assert "Traceback" not in host.stderr_text()


def test_hello_is_answered_with_host_version_and_protocol(host_process):
    reply = host_process.request({"v": 1, "type": "hello", "id": "h1", "extension_version": "0.1.0"})
    assert reply["type"] == "hello" and reply["id"] == "h1"
    assert reply["host_version"] and reply["protocol"] == 1


def test_ping_is_answered_with_pong_and_the_same_id(host_process):
    assert host_process.request({"v": 1, "type": "ping", "id": "p42"}) == {"v": 1, "type": "pong", "id": "p42"}


@pytest.mark.parametrize(
    ("body", "code", "reply_id"),
    [
        (b"\xc3\x28\xa0\xa1", "invalid_utf8", None),
        (b'{"v":1,"type":"ping",', "invalid_json", None),
        (b'{"v":1,"type":"teleport","id":"t1"}', "unknown_type", "t1"),
        (b'{"v":1,"type":"result","id":"r1","ok":"maybe"}', "schema_violation", "r1"),
        (b'"just a string"', "schema_violation", None),
    ],
)
def test_bad_input_in_a_well_formed_frame_gets_a_typed_error_and_the_host_keeps_serving(host_process, body, code, reply_id):
    host_process.send_body(body)
    error = host_process.read()
    assert error["type"] == "error"
    assert error["code"] == code
    assert error["id"] == reply_id
    assert error["message"]
    assert host_process.request({"v": 1, "type": "ping", "id": "after"})["type"] == "pong"
    assert host_process.wait() == 0
    assert_no_traceback(host_process)


def test_a_length_header_above_64_mib_gets_an_error_then_a_clean_exit(host_process):
    host_process.send_raw((64 * 1024 * 1024 + 1).to_bytes(4, "little"))
    error = host_process.read()
    assert error["type"] == "error" and error["code"] == "frame_too_large"
    assert host_process.proc.wait(10) == 0
    assert_no_traceback(host_process)


def test_eof_in_the_middle_of_a_frame_is_a_clean_exit(host_process):
    host_process.send_raw(encode_frame(b'{"v":1,"type":"ping","id":"x"}')[:-5])
    assert host_process.wait() == 0
    assert host_process.read() is None
    assert_no_traceback(host_process)


def test_an_unknown_method_call_gets_a_typed_reply(host_process):
    reply = host_process.request({"v": 1, "type": "call", "id": "c1", "method": "no.such.method"})
    assert reply == {"v": 1, "type": "reply", "id": "c1", "ok": False, "data": None,
                     "error": {"code": "unknown_method", "message": "the host has no method 'no.such.method'"}}


def test_a_reply_larger_than_chromes_limit_arrives_in_chunks_and_reassembles(host_process):
    reply = host_process.request({"v": 1, "type": "call", "id": "big", "method": "host.payload", "params": {"bytes": 3_000_000}})
    assert host_process.frames_in_last_read >= 4
    assert reply["id"] == "big" and reply["data"]["data"] == "w" * 3_000_000
    assert host_process.request({"v": 1, "type": "ping", "id": "after"})["type"] == "pong"


def test_logs_go_to_the_state_directory_not_stdout(host_process, isolated_state):
    host_process.request({"v": 1, "type": "ping", "id": "p"})
    host_process.wait()
    log_text = (isolated_state / "state" / "host.log").read_text()
    assert "starting" in log_text


def test_stray_prints_and_fd1_writes_cannot_reach_the_channel():
    script = (
        "import os\nfrom host.logs import claim_stdout\n"
        "_in, out = claim_stdout()\n"
        "print('stray print')\n"
        "os.write(1, b'raw fd write')\n"
        "out.write(b'CHANNEL'); out.flush()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=30, env=os.environ)
    assert done.stdout == b"CHANNEL"
    assert b"stray print" in done.stderr and b"raw fd write" in done.stderr
