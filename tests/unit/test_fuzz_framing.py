"""Fuzzing the native-messaging channel: the framing layer in-process (hypothesis), and a
bounded random run of thousands of mixed frames against the real host process, written in
random pieces, where every frame that deserves an answer gets exactly one and the host never
dies or goes silent.
"""

from __future__ import annotations

import io
import json
import queue
import random
import threading
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waymark.host.core.protocol import Reply
from waymark.host.framing import (
    MAX_OUTBOUND_BYTES,
    FrameWriter,
    FramingError,
    decode_body,
    encode_frame,
    read_frame,
)

#: Frames sent in the random run against the real host process (reported in the run's properties).
RANDOM_RUN_FRAMES = 5_000
SEED = 20261123


# ------------------------------------------------------------------ framing, in-process


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_any_byte_stream_reads_as_frames_or_a_typed_framing_error(data: bytes) -> None:
    stream = io.BytesIO(data)
    try:
        while (body := read_frame(stream)) is not None:
            assert isinstance(body, bytes)
    except FramingError as exc:
        assert exc.code in ("frame_too_large", "truncated_frame")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=20), st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=20))
def test_frames_survive_any_split_of_the_stream(bodies: list[bytes], cuts: list[int]) -> None:
    """A pipe may deliver a stream in any pieces: the reader sees exactly the frames written."""
    raw = b"".join(encode_frame(b) for b in bodies)

    class Trickle(io.RawIOBase):
        def __init__(self) -> None:
            self.pos = 0
            self.turn = 0

        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            size = min(n, cuts[self.turn % len(cuts)])
            self.turn += 1
            piece = raw[self.pos : self.pos + size]
            self.pos += len(piece)
            return piece

    stream = Trickle()
    got = []
    while (body := read_frame(stream)) is not None:  # type: ignore[arg-type]
        got.append(body)
    assert got == bodies


_json_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=2_000)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_json_text, st.integers(min_value=0, max_value=3 * MAX_OUTBOUND_BYTES))
def test_every_outbound_frame_stays_under_chromes_limit_and_reassembles(text: str, padding: int) -> None:
    import base64

    message = Reply(id="x", ok=True, data={"text": text, "pad": "\u00e9" * (padding // 2)})
    out = io.BytesIO()
    FrameWriter(out).send(message)
    stream = io.BytesIO(out.getvalue())
    frames = []
    while (body := read_frame(stream)) is not None:
        assert len(body) + 4 <= MAX_OUTBOUND_BYTES
        frames.append(decode_body(body))
    if len(frames) == 1:
        assert frames[0] == message.model_dump(mode="json")
    else:
        assert all(f["type"] == "chunk" and f["total"] == len(frames) for f in frames)  # type: ignore[index]
        whole = b"".join(base64.b64decode(f["data"]) for f in frames)  # type: ignore[index]
        assert json.loads(whole) == message.model_dump(mode="json")


# ------------------------------------------------------------------ the real host process


class _Reader(threading.Thread):
    """Reads every message the host writes, so its stdout pipe never fills up."""

    def __init__(self, proc: Any) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def run(self) -> None:
        while True:
            try:
                message = self.proc.read(timeout=60)
            except Exception:
                message = None
            self.messages.put(message)
            if message is None:
                return


def _random_unicode(rng: random.Random, n: int) -> str:
    pools = ["abc xyz", "\u05d0\u05d1\u05d2\u202e\u200b\u200d", "\U0001f600\U0001f4a5", "\u0000\u001f\\\"\n", "\u4e2d\u6587"]
    return "".join(rng.choice(rng.choice(pools)) for _ in range(n))


def _frame(rng: random.Random, i: int) -> tuple[bytes, tuple[str, str | None] | None]:
    """One random frame body and the answer it must get: (answer type, id) or None for no answer."""
    kind = rng.choices(
        ["garbage", "bad_utf8", "bad_json", "not_object", "unknown_type", "bad_version", "schema", "ping", "hello",
         "echo", "unknown_method", "bad_params", "cancel", "event", "stray_result", "big_reply"],
        weights=[8, 4, 6, 4, 4, 3, 6, 12, 2, 12, 6, 4, 4, 4, 4, 1],
    )[0]
    mid = f"m{i}"
    if kind == "garbage":
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
        try:
            value = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return body, ("error", None)
        # Random bytes that happen to be JSON: a non-object, or an object without a type.
        return body, ("error", value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None)
    if kind == "bad_utf8":
        return b'{"v":1,"type":"ping","id":"' + bytes([0xC3, 0x28, 0xFF]) + b'"}', ("error", None)
    if kind == "bad_json":
        text = json.dumps({"v": 1, "type": "ping", "id": mid})
        return text[: rng.randrange(1, len(text))].encode(), ("error", None)
    if kind == "not_object":
        return json.dumps(rng.choice([[1, 2], "ping", 42, None, True])).encode(), ("error", None)
    if kind == "unknown_type":
        return json.dumps({"v": 1, "type": _random_unicode(rng, 6), "id": mid}).encode(), ("error", mid)
    if kind == "bad_version":
        return json.dumps({"v": rng.choice([0, 2, "1", 1.5]), "type": "ping", "id": mid}).encode(), ("error", mid)
    if kind == "schema":
        return json.dumps({"v": 1, "type": "result", "id": mid, "ok": [1]}).encode(), ("error", mid)
    if kind == "ping":
        return json.dumps({"v": 1, "type": "ping", "id": mid}).encode(), ("pong", mid)
    if kind == "hello":
        return json.dumps({"v": 1, "type": "hello", "id": mid, "extension_version": "fuzz"}).encode(), ("hello", mid)
    if kind == "echo":
        payload = _random_unicode(rng, rng.randrange(0, 300))
        return json.dumps({"v": 1, "type": "call", "id": mid, "method": "host.echo", "params": {"payload": payload}}).encode(), ("reply", mid)
    if kind == "unknown_method":
        return json.dumps({"v": 1, "type": "call", "id": mid, "method": _random_unicode(rng, 12)}).encode(), ("reply", mid)
    if kind == "bad_params":
        return json.dumps({"v": 1, "type": "call", "id": mid, "method": "host.echo", "params": [1]}).encode(), ("error", mid)
    if kind == "cancel":
        return json.dumps({"v": 1, "type": "cancel", "id": f"never{i}"}).encode(), None
    if kind == "event":
        return json.dumps({"v": 1, "type": "event", "name": _random_unicode(rng, 8), "data": {"i": i}}).encode(), None
    if kind == "stray_result":
        return json.dumps({"v": 1, "type": "result", "id": f"h{10**9 + i}", "ok": True, "data": {}}).encode(), None
    # A reply larger than Chrome's limit travels chunked; the reader reassembles it.
    return json.dumps({"v": 1, "type": "call", "id": mid, "method": "host.payload", "params": {"bytes": 1_200_000}}).encode(), ("reply", mid)


def test_a_random_run_of_thousands_of_frames_gets_every_answer_and_the_host_survives(host_process, record_property):
    rng = random.Random(SEED)
    reader = _Reader(host_process)
    reader.start()
    expected: Counter[tuple[str, str | None]] = Counter()
    kinds_sent = 0
    pending = b""
    for i in range(RANDOM_RUN_FRAMES):
        body, answer = _frame(rng, i)
        if answer is not None:
            expected[answer] += 1
        kinds_sent += 1
        pending += encode_frame(body)
        # Write the stream in random pieces, cutting through headers and bodies.
        while len(pending) > 4096 or (i == RANDOM_RUN_FRAMES - 1 and pending):
            cut = rng.randrange(1, max(2, min(len(pending), 9000)))
            host_process.send_raw(pending[:cut])
            pending = pending[cut:]
    got: Counter[tuple[str, str | None]] = Counter()
    details: dict[str, dict[str, Any]] = {}
    for _ in range(sum(expected.values())):
        message = reader.messages.get(timeout=60)
        assert message is not None, "the host closed its stdout during the run"
        got[(message["type"], message.get("id"))] += 1
        if message.get("id"):
            details[message["id"]] = message
    assert got == expected
    # Echo replies carry what was sent; unknown methods are typed failures.
    for message in details.values():
        if message["type"] == "reply" and not message["ok"]:
            assert message["error"]["code"] == "unknown_method", message
    host_process.send({"v": 1, "type": "ping", "id": "last"})
    assert reader.messages.get(timeout=10) == {"v": 1, "type": "pong", "id": "last"}
    assert host_process.wait() == 0
    assert "Traceback" not in host_process.stderr_text()
    record_property("frames_fuzzed", kinds_sent)
    record_property("answers_checked", sum(expected.values()))
    print(f"random run: {kinds_sent} frames sent, {sum(expected.values())} answers checked")
