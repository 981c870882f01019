"""Typed failures of MCP tools: each becomes a tool result with `isError` and a sentence the
client's model can act on."""

from __future__ import annotations


class ToolError(Exception):
    """A tool could not do what it was asked; `code` is stable, `message` says what to do."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class NoBrowser(ToolError):
    """No browser with the extension is connected to a host this server can reach."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            "no_browser",
            f"{detail}. Open Chrome with the Waymark extension (the side panel shows whether its host is connected); "
            "run `waymark doctor` to check the install, or start the server with `waymark mcp --launch`.",
        )


class Refused(ToolError):
    """The user's policy forbids the action: a blocked domain, a declined confirmation, a tab not shared."""
