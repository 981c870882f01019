"""The host's authority over attached MCP clients (host/mcp_access.py), without a browser."""

from __future__ import annotations

import asyncio

import pytest

from waymark.host.mcp_access import Access, ClientConnection, ConsentDenied


async def asked(access: Access) -> str:
    """The id of the request the panel would show, once it is there."""
    while not access.pending:
        await asyncio.sleep(0)
    return next(iter(access.pending))


async def test_a_client_is_in_control_only_after_the_user_allows_it():
    access = Access()
    connection = ClientConnection(close=lambda: None)
    access.opened(connection)
    admitting = asyncio.ensure_future(access.admit(connection, "Claude Desktop"))
    request = await asked(access)
    assert access.state()["pending"] == [{"request_id": request, "kind": "connect", "client": "Claude Desktop",
                                          "peer": "a process whose identity the system did not give"}]
    assert access.state()["active"] == [] and not connection.allowed
    access.decide(request, True)
    await admitting
    assert connection.allowed and access.state()["active"] == ["Claude Desktop"]


async def test_a_second_connection_calling_itself_by_an_allowed_clients_name_is_asked_again():
    access = Access()
    first = asyncio.ensure_future(access.admit(ClientConnection(close=lambda: None), "Claude Desktop"))
    access.decide(await asked(access), True)
    await first
    impostor = ClientConnection(close=lambda: None)
    second = asyncio.ensure_future(access.admit(impostor, "Claude Desktop"))
    await asyncio.sleep(0)  # the admission runs up to its question, or (were the name enough) to its end
    assert not impostor.allowed
    [request] = access.state()["pending"]
    assert request["client"] == "Claude Desktop"
    access.decide(request["request_id"], False)
    with pytest.raises(ConsentDenied):
        await second
    assert not impostor.allowed


async def test_a_denied_client_is_refused_with_consent_denied():
    access = Access()
    admitting = asyncio.ensure_future(access.admit(ClientConnection(close=lambda: None), "Nosy"))
    access.decide(await asked(access), False)
    with pytest.raises(ConsentDenied) as denied:
        await admitting
    assert denied.value.code == "consent_denied"


async def test_nobody_answering_ends_in_consent_timeout():
    with pytest.raises(ConsentDenied) as denied:
        await Access().admit(ClientConnection(close=lambda: None), "Patient", timeout=0.05)
    assert denied.value.code == "consent_timeout"


async def test_stop_closes_every_client_and_forgets_shared_tabs():
    access = Access()
    closed: list[int] = []
    connection = ClientConnection(close=lambda: closed.append(1))
    access.opened(connection)
    admitting = asyncio.ensure_future(access.admit(connection, "Agent"))
    access.decide(await asked(access), True)
    await admitting
    access.share(42, True)
    assert access.stop() == 1
    assert closed == [1] and access.state()["shared"] == []


def test_the_activity_list_never_holds_typed_text():
    access = Access()
    access.did("Agent", {"type": "fill", "ref": 7, "text": "hunter2"}, ok=True)
    [item] = access.state()["activity"]
    assert item["action_line"] == "fill ref=7" and "hunter2" not in str(item)


async def test_a_question_of_a_clients_task_gets_the_users_words_or_none_when_skipped():
    access = Access()
    connection = ClientConnection(close=lambda: None, client="Editor", allowed=True)
    answering = asyncio.ensure_future(access.ask(connection, "Which size?"))
    request = await asked(access)
    assert access.state()["pending"] == [{"request_id": request, "kind": "ask", "client": "Editor", "question": "Which size?"}]
    access.decide(request, "500 g")
    assert await answering == "500 g"
    skipping = asyncio.ensure_future(access.ask(connection, "Which colour?"))
    access.decide(await asked(access), "")
    assert await skipping is None


def test_a_connections_peer_is_the_process_the_kernel_names_not_the_name_it_claims():
    import os
    import socket

    from waymark.host.peer import peer_of

    ours, theirs = socket.socketpair(socket.AF_UNIX)
    try:
        peer = peer_of(ours)
    finally:
        ours.close()
        theirs.close()
    assert peer.pid == os.getpid() and peer.exe == os.path.realpath(f"/proc/{os.getpid()}/exe")
    assert peer.parent_pid == os.getppid()
    assert peer.describe().startswith(f"process {os.getpid()} ({peer.exe}), started by {os.getppid()}")
