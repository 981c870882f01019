"""The host's tab scope for attached MCP clients (host/mcp_scope.py): a call may name only the
tabs the client opened or the user shared."""

from __future__ import annotations

from waymark.host.mcp_scope import opened_tabs, refusal, visible_reply

SCOPE = {11, 12}


def test_a_snapshot_of_a_tab_in_scope_is_allowed():
    assert refusal("snapshot", {"tab_id": 11}, SCOPE) is None


def test_a_snapshot_of_another_tab_is_refused_as_not_shared():
    refused = refusal("snapshot", {"tab_id": 99}, SCOPE)
    assert refused is not None and refused.code == "not_shared"
    assert refused.message.startswith("tab 99 was not opened by this client")


def test_a_call_naming_no_tab_means_the_users_current_tab_and_is_refused():
    refused = refusal("act", {"action": {"type": "click", "ref": 3}}, SCOPE)
    assert refused is not None and refused.message.startswith("the user's current tab was not opened by this client")


def test_switching_or_closing_is_judged_by_the_tab_the_action_names():
    assert refusal("act", {"action": {"type": "switch_tab", "tab_id": 12}}, SCOPE) is None
    assert refusal("act", {"tab_id": 11, "action": {"type": "close_tab", "tab_id": 99}}, SCOPE) is not None


def test_opening_a_tab_needs_no_tab_in_scope():
    assert refusal("act", {"action": {"type": "new_tab", "url": "http://127.0.0.1/"}}, set()) is None
    assert refusal("browser.request", {"method": "tabs.open", "params": {"url": "http://127.0.0.1/"}}, set()) is None


def test_a_browser_request_beyond_tabs_is_not_for_clients():
    refused = refusal("browser.request", {"method": "act", "params": {"tab_id": 11}}, SCOPE)
    assert refused is not None and refused.code == "not_for_clients"


def test_closing_a_tab_through_the_browser_needs_it_in_scope():
    assert refusal("browser.request", {"method": "tabs.close", "params": {"tab_id": 99}}, SCOPE) is not None
    assert refusal("browser.request", {"method": "tabs.close", "params": {"tab_id": 12}}, SCOPE) is None


def test_a_task_runs_in_a_tab_in_scope_or_opens_its_own():
    assert refusal("agent.run", {"task": "x", "tab_id": 99}, SCOPE) is not None
    assert refusal("agent.run", {"task": "x", "start_url": "http://127.0.0.1/"}, set()) is None


def test_tabs_opened_are_read_from_replies():
    assert opened_tabs("browser.request", {"method": "tabs.open"}, {"data": {"tab_id": 21}}) == {21}
    assert opened_tabs("act", {"action": {"type": "click"}}, {"new_tab": {"tab_id": 22}, "tab_id": 22}) == {22}
    assert opened_tabs("act", {"action": {"type": "new_tab"}}, {"tab_id": 23}) == {23}
    assert opened_tabs("act", {"action": {"type": "switch_tab", "tab_id": 99}}, {"tab_id": 99}) == set()


def test_a_tab_list_shows_only_the_tabs_in_scope():
    data = {"data": {"tabs": [{"tab_id": 11}, {"tab_id": 99}]}}
    assert visible_reply("browser.request", {"method": "tabs.list"}, data, SCOPE) == {"data": {"tabs": [{"tab_id": 11}]}}


def test_a_run_or_replay_a_client_starts_is_bound_to_that_clients_secret_grants_whatever_it_sent():
    from waymark.host.mcp_scope import as_client

    for method in ("agent.run", "workflow.run"):
        assert as_client(method, {"task": "t", "secret_client": "the panel"}, "Claude Desktop")["secret_client"] == "Claude Desktop"
    assert "secret_client" not in as_client("snapshot", {"tab_id": 11}, "Claude Desktop")
