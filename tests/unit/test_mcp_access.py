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
    assert access.state()["pending"] == [{"request_id": request, "kind": "connect", "client": "Claude Desktop"}]
    assert access.state()["active"] == [] and not connection.allowed
    access.decide(request, True)
    await admitting
    assert connection.allowed and access.state()["active"] == ["Claude Desktop"]


async def test_an_allowed_name_is_not_asked_again_in_the_same_session():
    access = Access()
    first = asyncio.ensure_future(access.admit(ClientConnection(close=lambda: None), "Editor"))
    access.decide(await asked(access), True)
    await first
    await asyncio.wait_for(access.admit(ClientConnection(close=lambda: None), "Editor"), 1)


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


async def test_stop_closes_every_client_and_forgets_grants_and_shared_tabs():
    access = Access()
    closed: list[int] = []
    connection = ClientConnection(close=lambda: closed.append(1))
    access.opened(connection)
    admitting = asyncio.ensure_future(access.admit(connection, "Agent"))
    access.decide(await asked(access), True)
    await admitting
    access.share(42, True)
    assert access.stop() == 1
    assert closed == [1] and access.grants == set() and access.state()["shared"] == []


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
