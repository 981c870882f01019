"""The tabs an attached MCP client may touch, enforced by the host on its control socket: the
tabs the client opened itself (learnt from the replies it gets) and the tabs the user shares
from the side panel. A call naming any other tab, or none (the user's current tab), is refused
here, whatever the `waymark mcp` process on the other side believes.

`refusal` judges a call before it runs; `opened_tabs` reads the tabs a reply or notification
gave the client; `visible_reply` narrows a tab list to the client's scope; `as_client` binds a
run the client starts to the client's own secret grants.
"""

from __future__ import annotations

from typing import Any

from waymark.host.methods import MethodError

#: What a client may ask of the browser directly (`browser.request`): its own tabs, nothing else.
CLIENT_BROWSER_REQUESTS = frozenset({"tabs.list", "tabs.open", "tabs.close"})
#: Actions whose target tab is the action's own `tab_id` rather than the call's.
_TAB_ACTIONS = frozenset({"switch_tab", "close_tab"})


#: Calls that start a run or a replay, which may type secrets.
_RUNS = frozenset({"agent.run", "workflow.run"})


def as_client(method: str, params: dict[str, Any], client: str) -> dict[str, Any]:
    """A client's call as the host runs it: a run or replay it starts types only the secrets the
    user granted this client (`secret_client`), whatever the client put there itself."""
    if method not in _RUNS:
        return params
    return {**params, "secret_client": client or "an unnamed MCP client"}


def _not_shared(tab: Any) -> MethodError:
    which = f"tab {tab}" if tab is not None else "the user's current tab"
    return MethodError("not_shared", f"{which} was not opened by this client and the user has not shared it: open one with "
                       "browser_tab_new, or ask the user to share a tab from the Waymark side panel")


def _named_tabs(method: str, params: dict[str, Any]) -> list[Any]:
    """The tabs a call would act in (None: the user's current tab); MethodError for a browser
    request a client may not make."""
    if method == "snapshot":
        return [params.get("tab_id")]
    if method == "act":
        action = params.get("action") if isinstance(params.get("action"), dict) else {}
        kind = action.get("type")
        if kind == "new_tab":
            return []
        if kind in _TAB_ACTIONS and "tab_id" in action:
            return [action["tab_id"]] + ([params["tab_id"]] if params.get("tab_id") is not None else [])
        return [params.get("tab_id")]
    if method == "browser.request":
        inner = str(params.get("method", ""))
        if inner not in CLIENT_BROWSER_REQUESTS:
            raise MethodError("not_for_clients", f"MCP clients may not ask the browser for {inner[:64]!r}")
        return [(params.get("params") or {}).get("tab_id")] if inner == "tabs.close" else []
    if method == "agent.run":
        return [] if params.get("start_url") else [params.get("tab_id")]
    return []


def refusal(method: str, params: dict[str, Any], scope: set[int]) -> MethodError | None:
    """Why a client whose tabs are `scope` may not make this call, or None when it may."""
    try:
        named = _named_tabs(method, params)
    except MethodError as exc:
        return exc
    for tab in named:
        if not isinstance(tab, int) or isinstance(tab, bool) or tab not in scope:
            return _not_shared(tab)
    return None


def opened_tabs(method: str, params: dict[str, Any], data: dict[str, Any]) -> set[int]:
    """The tabs a reply's (or a run's notification's) `data` shows the client opened."""
    found: list[Any] = []
    if method == "browser.request" and params.get("method") == "tabs.open":
        found.append((data.get("data") or {}).get("tab_id"))
    elif method == "act":
        found.append((data.get("new_tab") or {}).get("tab_id"))
        if (params.get("action") or {}).get("type") == "new_tab":
            found.append(data.get("tab_id"))
    elif method == "agent.run" and isinstance(data.get("run_tabs"), list):
        # The run's own tabs (started in or opened), not the tab it is in: a run that switched
        # into a tab of the user's does not hand that tab to the client.
        found.extend(data["run_tabs"])
    return {tab for tab in found if isinstance(tab, int) and not isinstance(tab, bool)}


def visible_reply(method: str, params: dict[str, Any], data: dict[str, Any], scope: set[int]) -> dict[str, Any]:
    """The reply's data as the client may see it: a tab list holds only the client's tabs."""
    if method != "browser.request" or params.get("method") != "tabs.list":
        return data
    inner = data.get("data") or {}
    tabs = [t for t in inner.get("tabs", []) if isinstance(t, dict) and t.get("tab_id") in scope]
    return {**data, "data": {**inner, "tabs": tabs}}
