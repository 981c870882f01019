"""Native-messaging framing: lengths, limits, decoding and chunking."""

import base64
import io
import json

import pytest
from pydantic import BaseModel

from waymark.host.core.protocol import Pong, Reply
from waymark.host.framing import (
    MAX_OUTBOUND_BYTES,
    FrameDecodeError,
    FrameTooLarge,
    FrameWriter,
    TruncatedFrame,
    decode_body,
    encode_frame,
    read_frame,
)


def frames_written(message: BaseModel) -> list[dict]:
    out = io.BytesIO()
    FrameWriter(out).send(message)
    stream = io.BytesIO(out.getvalue())
    frames = []
    while (body := read_frame(stream)) is not None:
        assert len(body) + 4 <= MAX_OUTBOUND_BYTES
        frames.append(json.loads(body))
    return frames


def test_a_frame_round_trips_through_its_length_header():
    stream = io.BytesIO(encode_frame(b'{"a":1}') + encode_frame(b"[]"))
    assert read_frame(stream) == b'{"a":1}'
    assert read_frame(stream) == b"[]"
    assert read_frame(stream) is None


def test_a_header_above_64_mib_is_refused_before_reading_the_body():
    stream = io.BytesIO((64 * 1024 * 1024 + 1).to_bytes(4, "little"))
    with pytest.raises(FrameTooLarge):
        read_frame(stream)


def test_eof_inside_a_header_or_a_body_is_a_truncated_frame():
    with pytest.raises(TruncatedFrame):
        read_frame(io.BytesIO(b"\x05\x00"))
    with pytest.raises(TruncatedFrame):
        read_frame(io.BytesIO(encode_frame(b"12345")[:-2]))


@pytest.mark.parametrize(("body", "code"), [(b"\xff\xfe{}", "invalid_utf8"), (b"{nope", "invalid_json")])
def test_bad_bodies_get_typed_decode_errors(body, code):
    with pytest.raises(FrameDecodeError) as info:
        decode_body(body)
    assert info.value.code == code


def test_a_small_message_is_one_frame():
    assert frames_written(Pong(id="1")) == [{"v": 1, "type": "pong", "id": "1"}]


def test_a_message_over_chromes_limit_travels_as_chunks_that_reassemble_exactly():
    message = Reply(id="x", ok=True, data={"text": 'é"\\' * 700_000})
    frames = frames_written(message)
    assert len(frames) > 1
    assert {f["type"] for f in frames} == {"chunk"}
    assert [f["index"] for f in frames] == list(range(len(frames)))
    assert all(f["total"] == len(frames) for f in frames)
    whole = b"".join(base64.b64decode(f["data"]) for f in frames)
    assert json.loads(whole) == message.model_dump(mode="json")
