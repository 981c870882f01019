"""The MCP server's action tools follow the grammar: every action has a tool, or a stated reason
it has none (host/mcp/tools_actions.py WITHOUT_TOOL)."""

from waymark.host.core.actions import ACTIONS
from waymark.host.mcp.tools_actions import WITHOUT_TOOL, action_tools


def test_every_action_of_the_grammar_has_a_tool_or_a_stated_reason_it_has_none():
    offered = {tool.params for tool in action_tools()}
    untooled = {kind for kind, model in ACTIONS.items() if model not in offered}
    assert untooled == set(WITHOUT_TOOL)
    assert all(reason.strip() for reason in WITHOUT_TOOL.values())


def test_no_tool_reads_a_downloaded_file():
    # A client would otherwise be handed files off the user's disk; only an agent run reads its own downloads.
    assert "read_download" in WITHOUT_TOOL
    assert all(ACTIONS["read_download"] is not tool.params for tool in action_tools())
