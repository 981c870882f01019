"""The gate every act request carries (host.core.gate): built from the policy by one function,
sent by every driver, narrowed by the user's saved lists, and never absent from a request that
reaches the browser. The extension judges it (tests/e2e/test_gate.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from waymark.host.agent.admission import Admission
from waymark.host.agent.confirm import Policy, domain_refusal, policy_gate
from waymark.host.agent.human import NobodyHome
from waymark.host.agent.redaction import Redactor, SecretScope
from waymark.host.agent.session import BrowserSession
from waymark.host.browser import act
from waymark.host.core.actions import Click, Extract
from waymark.host.core.browser_api import ActRequest
from waymark.host.core.gate import NOWHERE, Gate
from waymark.host.mcp.session import McpSession
from waymark.host.mcp_scope import opened_tabs
from waymark.host.methods import CallContext
from waymark.host.rpc.act import act as act_method


class RecordingBridge:
    """A browser that records every request and answers an act with success."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []

    async def request(self, method: str, params: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        self.requests.append((method, params))
        return {"ok": True, "action": str(params.get("action", {}).get("type", "")), "tab_id": params.get("tab_id")}


class RecordingLink:
    """The MCP session's host link, recording calls and answering an act with success."""

    close_reason = ""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, method: str, params: dict[str, Any], on_notify: Any = None, timeout: float | None = None) -> dict[str, Any]:
        self.calls.append((method, params))
        return {"ok": True, "action": "extract", "text": "read"}


POLICY = Policy(allow_domains=["shop.test"], block_domains=["ads.shop.test"])


def test_a_request_the_admission_did_not_admit_is_never_sent():
    bridge = RecordingBridge()
    bare = ActRequest(tab_id=1, action={"type": "click", "ref": 3}, gate=Gate())
    result = asyncio.run(act(bridge, bare, bare))  # type: ignore[arg-type]
    assert result.error is not None and result.error.code == "not_admitted"
    assert bridge.requests == []


def test_the_agent_and_replay_session_sends_its_policy_and_its_own_tabs_as_the_gate():
    bridge = RecordingBridge()
    session = BrowserSession(bridge, tab_id=7)  # type: ignore[arg-type]
    session.admission = Admission(POLICY, NobodyHome(), Redactor(), SecretScope(named=frozenset()), session.own_tabs,
                                  file_folders=["/home/u/docs"])
    session.tabs.add(7)
    asyncio.run(session.admit_and_act(Click(ref=3), snapshot_after=False))
    [(method, params)] = bridge.requests
    assert method == "act"
    assert params["gate"] == {"allow_domains": ["shop.test"], "block_domains": ["ads.shop.test"], "file_folders": ["/home/u/docs"], "tabs": [7]}


def test_an_mcp_client_sends_its_policy_as_the_gate_with_no_local_files():
    link = RecordingLink()

    async def get_link(_client: str) -> Any:
        return link

    session = McpSession(get_link, POLICY)
    session.tab_id = 4
    asyncio.run(session.page_text())
    [(method, params)] = [call for call in link.calls if call[0] == "act"]
    assert params["gate"] == {"allow_domains": ["shop.test"], "block_domains": ["ads.shop.test"], "file_folders": [], "tabs": [4]}


def test_the_control_sockets_act_gives_a_request_without_a_gate_the_users_saved_lists(monkeypatch):
    from waymark.host.settings import Settings

    monkeypatch.setattr("waymark.host.rpc.act.load_settings", lambda: Settings(block_domains=["evil.test"], file_folders=["/srv/files"]))
    bridge = RecordingBridge()
    ctx = CallContext(call_id="c1", browser=bridge, notify=lambda *_: None)  # type: ignore[arg-type]
    asyncio.run(act_method({"tab_id": 2, "action": Extract().model_dump(mode="json", exclude_none=True)}, ctx))
    [(_, params)] = bridge.requests
    # The floor's blocks hold; its folders are not granted to a caller that asked for none.
    assert params["gate"] == {"allow_domains": [], "block_domains": ["evil.test"], "file_folders": [], "tabs": []}


def test_a_callers_gate_only_narrows_the_users_lists():
    floor = Gate(allow_domains=["shop.test"], block_domains=["ads.shop.test"], file_folders=["/srv/files"])
    caller = Gate(allow_domains=["cart.shop.test", "evil.test"], block_domains=["old.shop.test"], file_folders=["/srv/files/a", "/etc"], tabs=[3])
    narrowed = caller.within(floor)
    assert narrowed == Gate(allow_domains=["cart.shop.test"], block_domains=["ads.shop.test", "old.shop.test"], file_folders=["/srv/files/a"], tabs=[3])


def test_a_callers_allow_list_outside_the_users_admits_nothing():
    assert Gate(allow_domains=["evil.test"]).within(Gate(allow_domains=["shop.test"])).allow_domains == [NOWHERE]


def test_the_gate_is_built_from_the_policy():
    assert policy_gate(POLICY, [5, 2, 5], ["/d"]) == Gate(allow_domains=["shop.test"], block_domains=["ads.shop.test"], file_folders=["/d"], tabs=[2, 5])


@pytest.mark.parametrize("url", [
    "http://evil.test:81\\@shop.test/?d=data",   # urlsplit: shop.test; the browser: evil.test
    "http://user@shop.test/",                      # userinfo hides where it goes
    "http://127.1/?d=data",                        # the browser: 127.0.0.1
    "http://0x7f.1/",                              # the browser: 127.0.0.1
    "http://2130706433/",                          # the browser: 127.0.0.1
    "http://shop.test./",                          # trailing dot
    "http://shop\uff0etest/",                      # full-width dot: the browser reads shop.test
    "http://xn--shp-qla.test\u0301/",              # non-ASCII
])
def test_a_url_python_might_read_otherwise_than_the_browser_is_refused_while_lists_are_set(url):
    refusal = domain_refusal(url, Policy(block_domains=["evil.test"]))
    assert refusal is not None and refusal.endswith("write the URL plainly")


@pytest.mark.parametrize("url", ["https://shop.test/a?b=c", "http://127.0.0.1:8000/x", "http://[::1]:80/", "about:blank"])
def test_a_plain_url_is_judged_by_its_host(url):
    assert domain_refusal(url, Policy(block_domains=["evil.test"])) is None


def test_a_run_that_switched_into_a_users_tab_does_not_hand_it_to_the_client():
    # A step notification of a run in tab 99 it switched to: its own tabs are 5 and 6.
    assert opened_tabs("agent.run", {"task": "x"}, {"tab_id": 99, "run_tabs": [5, 6]}) == {5, 6}
    assert opened_tabs("agent.run", {"task": "x"}, {"tab_id": 99}) == set()
