"""`waymark mcp`: Waymark as a Model Context Protocol server over stdio.

An MCP client (a coding assistant, a desktop chat app) drives the browser through the real
extension and host: `link` reaches a host (one the server launched, or the one the user's own
Chrome started), `session` holds the client's tab and applies the agent's policies, `tools_*`
are the tool families, `results` writes what a client reads, and `server` serves it all with
the official `mcp` SDK.
"""
