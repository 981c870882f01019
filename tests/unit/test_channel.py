"""The one frame loop (host.channel): every connection gets the same typed errors for bad input,
whether its frames come from a blocking stream (the native port) or an asyncio socket (the
control socket); the control socket answers them as the native port does, and the pipe client
reads a host's stdout with the same errors."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import tempfile

import pytest

from waymark.host.bridge import BrowserBridge
from waymark.host.calls import CallRunner
from waymark.host.channel import (
    FrameSource,
    bad_frame_reply,
    serve_frames,
    stream_frames,
    threaded_frames,
)
from waymark.host.control_server import serve_connection
from waymark.host.core.protocol import (
    ControlHello,
    ErrorReply,
    Ping,
    ProtocolError,
    parse_inbound,
    parse_outbound,
)
from waymark.host.framing import (
    MAX_INBOUND_BYTES,
    FrameTooLarge,
    TruncatedFrame,
    decode_body,
    encode_frame,
    read_stream_frame,
)
from waymark.host.pipe_client import HostProcess

PING = encode_frame(b'{"v":1,"type":"ping","id":"p1"}')
TOO_LARGE = (MAX_INBOUND_BYTES + 1).to_bytes(4, "little")


def _stream(data: bytes) -> FrameSource:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return stream_frames(reader)


def _threaded(data: bytes) -> FrameSource:
    return threaded_frames(io.BytesIO(data))


SOURCES = pytest.mark.parametrize("source", [_stream, _threaded], ids=["control socket", "native port"])


def _run(source, data: bytes) -> tuple[list[object], list[str], object]:
    async def go() -> tuple[list[object], list[str], object]:
        messages: list[object] = []
        bad: list[str] = []
        ended = await serve_frames(source(data), parse_inbound, messages.append, lambda exc: bad.append(exc.code))
        return messages, bad, ended

    return asyncio.run(go())


@SOURCES
def test_valid_frames_arrive_as_protocol_models_until_a_clean_eof(source):
    messages, bad, ended = _run(source, PING + PING)
    assert [type(m) for m in messages] == [Ping, Ping] and bad == [] and ended is None


@SOURCES
@pytest.mark.parametrize(("body", "code"), [
    (b"\xff{}", "invalid_utf8"), (b"{nope", "invalid_json"), (b"[1]", "schema_violation"),
    (b'{"v":1,"type":"teleport"}', "unknown_type"), (b'{"v":2,"type":"ping"}', "unsupported_version"),
])
def test_a_bad_frame_gets_its_typed_error_and_the_stream_stays_in_sync(source, body, code):
    messages, bad, ended = _run(source, encode_frame(body) + PING)
    assert bad == [code] and [type(m) for m in messages] == [Ping] and ended is None


@SOURCES
def test_an_oversized_header_ends_the_stream_with_frame_too_large(source):
    messages, bad, ended = _run(source, PING + TOO_LARGE + b"x" * 16)
    assert len(messages) == 1 and isinstance(ended, FrameTooLarge)


@SOURCES
@pytest.mark.parametrize("cut", [2, 10], ids=["inside the header", "inside the body"])
def test_eof_inside_a_frame_ends_the_stream_with_truncated_frame(source, cut):
    messages, bad, ended = _run(source, PING + PING[:cut])
    assert len(messages) == 1 and isinstance(ended, TruncatedFrame)


def test_a_bad_frames_reply_keeps_the_id_it_could_read():
    async def go() -> ErrorReply:
        replies: list[ErrorReply] = []
        await serve_frames(_stream(encode_frame(b'{"v":1,"type":"result","id":"r7","ok":"maybe"}')), parse_inbound,
                           lambda m: None, lambda exc: replies.append(bad_frame_reply(exc)))
        return replies[0]

    reply = asyncio.run(go())
    assert (reply.id, reply.code) == ("r7", "schema_violation")


def _control_socket_answers(data: bytes) -> list[dict]:
    """Everything a host's control socket writes back to a client that sends `data`."""

    async def go() -> list[dict]:
        bridge = BrowserBridge(lambda message: None)
        host = type("Host", (), {"bridge": bridge, "calls": CallRunner(bridge)})()
        folder = tempfile.mkdtemp(prefix="wm-")
        path = os.path.join(folder, "c.sock")
        listener = await asyncio.start_unix_server(lambda r, w: serve_connection(r, w, host), path=path)
        try:
            reader, writer = await asyncio.open_unix_connection(path)
            writer.write(data)
            await writer.drain()
            answers = []
            while (body := await asyncio.wait_for(read_stream_frame(reader), 10)) is not None:
                answers.append(decode_body(body))
            writer.close()
            return answers
        finally:
            listener.close()
            os.unlink(path)
            os.rmdir(folder)

    return asyncio.run(go())


def test_the_control_socket_refuses_an_oversized_frame_with_its_typed_error_and_closes():
    hello, refusal = _control_socket_answers(TOO_LARGE)
    assert isinstance(parse_outbound(refusal), ErrorReply) and refusal["code"] == "frame_too_large"
    assert ControlHello.model_validate(hello).host_version


def test_the_control_socket_answers_a_bad_frame_and_goes_on():
    answers = _control_socket_answers(encode_frame(b"{nope") + PING + TOO_LARGE)
    assert [a["code"] for a in answers[1:2]] == ["invalid_json"]
    assert answers[2]["type"] == "error" and answers[2]["code"] == "unsupported"  # a ping is not for the control socket
    assert answers[3]["code"] == "frame_too_large"


@pytest.mark.parametrize(("written", "error"), [
    (TOO_LARGE, FrameTooLarge), (PING[:2], TruncatedFrame), (PING[:10], TruncatedFrame),
], ids=["oversized header", "eof inside the header", "eof inside the body"])
def test_the_pipe_client_reads_a_broken_stdout_with_the_same_typed_errors(written, error):
    script = f"import sys; sys.stdout.buffer.write({written!r}); sys.stdout.flush()"
    with HostProcess([sys.executable, "-c", script]) as proc:
        with pytest.raises(error):
            proc.read(timeout=30)


def test_the_pipe_client_refuses_a_frame_that_is_no_host_message():
    script = f"import sys; sys.stdout.buffer.write({encode_frame(PING[4:])!r}); sys.stdout.flush()"
    with HostProcess([sys.executable, "-c", script]) as proc:
        with pytest.raises(ProtocolError) as refused:
            proc.read(timeout=30)
    assert refused.value.code == "unknown_type"  # a ping goes to the host, never from it
