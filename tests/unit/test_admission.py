"""The one admission (host.agent.admission): every action of every driver is decided by it before
it is sent, each refusal by one named code, and nothing else can make the token host.browser.act
sends. The same cases through the real drivers and browser: tests/e2e/test_admission_drivers.py."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from waymark.host.agent.admission import Admission, Refusal
from waymark.host.agent.confirm import Policy, domain_refusal, narrowed
from waymark.host.agent.human import Human
from waymark.host.agent.redaction import Redactor, SecretScope
from waymark.host.core import secrets_store
from waymark.host.core.actions import Click, CloseTab, Navigate, NewTab, SwitchTab, Type
from waymark.host.core.gate import Gate
from waymark.host.core.snapshot import Snapshot, SnapshotElement
from waymark.host.mcp.errors import Refused
from waymark.host.mcp.session import McpSession

ROOT = Path(__file__).resolve().parents[2]
SHOP = Snapshot(url="https://shop.test/cart", elements=[
    SnapshotElement(ref=1, role="button", name="Place order"),
    SnapshotElement(ref=2, role="textbox", name="Search"),
    SnapshotElement(ref=3, role="link", name="Help", href="https://help.shop.test/faq"),
])


class Answering(Human):
    """A user who answers every confirmation `yes` (or no) and records what they were asked."""

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.asked: list[dict[str, Any]] = []

    async def ask(self, question: str) -> str | None:
        return None

    async def confirm(self, request: dict[str, Any]) -> bool:
        self.asked.append(request)
        return self.yes


def admission(policy: Policy | None = None, human: Human | None = None, *, tabs: set[int] | None = None,
              named: frozenset[str] = frozenset()) -> Admission:
    async def own() -> set[int]:
        return set(tabs or {1})

    return Admission(policy or Policy(), human or Answering(False), Redactor(), SecretScope(named=named), own, task="buy the cart")


def refusal(decide: Any) -> Refusal:
    with pytest.raises(Refusal) as caught:
        asyncio.run(decide)
    return caught.value


# ------------------------------------------------------------ one refusal per case, by name

def test_a_local_file_is_refused_while_no_folder_is_allowed():
    assert refusal(admission().admit(Navigate(url="file:///etc/passwd"), SHOP)).code == "url_refused"


def test_a_javascript_address_is_refused():
    assert refusal(admission().admit(Navigate(url="javascript:alert(1)"), SHOP)).code == "url_refused"


def test_a_blocked_domain_is_refused_before_anything_is_asked():
    human = Answering(True)
    caught = refusal(admission(Policy(block_domains=["attacker.test"]), human).admit(Navigate(url="http://attacker.test/?d=1"), SHOP))
    assert (caught.code, human.asked) == ("url_refused", [])


def test_a_tab_the_run_did_not_start_in_or_open_is_refused():
    assert refusal(admission(tabs={1, 2}).admit(SwitchTab(tab_id=9), SHOP)).code == "tab_refused"
    assert refusal(admission(tabs={1, 2}).admit(CloseTab(tab_id=9), SHOP)).code == "tab_refused"


def test_a_secret_the_task_never_named_is_refused():
    secrets_store.set_secret("BANK_PW", "correct horse battery", ["https://bank.test"])
    assert refusal(admission().admit(Type(ref=2, text="{{secret:BANK_PW}}"), SHOP)).code == "secret_not_named"


def test_a_named_secret_is_admitted_bound_to_its_origins_with_its_value_only_in_the_token():
    secrets_store.set_secret("BANK_PW", "correct horse battery", ["https://bank.test"])
    admitted = asyncio.run(admission(named=frozenset({"BANK_PW"})).admit(Type(ref=2, text="{{secret:BANK_PW}}"), SHOP))
    assert admitted.secret_origins == ["https://bank.test"]
    assert admitted.action["text"] == "correct horse battery"
    assert admitted.chosen.model_dump().get("text") == "{{secret:BANK_PW}}"


def test_a_destructive_click_the_user_declines_ends_the_run_as_declined():
    human = Answering(False)
    caught = refusal(admission(human=human).admit(Click(ref=1), SHOP))
    assert (caught.code, caught.ends, caught.outcome) == ("declined", True, "declined")
    assert human.asked[0]["action_line"].startswith('click [1] button "Place order"')


def test_a_destructive_click_the_policy_blocks_is_never_asked_about():
    human = Answering(True)
    caught = refusal(admission(Policy(destructive="block"), human).admit(Click(ref=1), SHOP))
    assert (caught.code, human.asked) == ("destructive_blocked", [])


def test_a_destructive_step_the_user_approved_for_the_workflow_is_not_asked_again():
    human = Answering(False)
    record: dict[str, Any] = {}
    asyncio.run(admission(human=human).admit(Click(ref=1), SHOP, record=record, approved="approved for this workflow"))
    assert (human.asked, record["confirmation"]) == ([], "approved for this workflow")


def test_a_new_site_with_data_in_its_address_is_asked_about_and_a_no_holds_for_the_run():
    human = Answering(False)
    gate = admission(human=human)
    assert refusal(gate.admit(Navigate(url="https://collector.test/c?d=alice@mail.test"), SHOP)).code == "egress_declined"
    assert refusal(gate.admit(NewTab(url="https://collector.test/c?d=again"), SHOP)).code == "egress_declined"
    assert len(human.asked) == 1


def test_a_linked_site_and_a_plain_address_need_no_question():
    human = Answering(False)
    gate = admission(human=human)
    asyncio.run(gate.admit(Navigate(url="https://help.shop.test/faq?q=returns"), SHOP))
    asyncio.run(gate.admit(Navigate(url="https://news.test/today"), SHOP))
    assert human.asked == []


def test_the_first_address_of_a_run_is_where_it_starts_and_needs_no_question():
    human = Answering(False)
    asyncio.run(admission(human=human).admit_open("https://shop.test/cart?session=1"))
    assert human.asked == []


def test_a_relative_address_is_judged_as_the_page_resolves_it():
    admitted = asyncio.run(admission().admit(Navigate(url="/orders"), SHOP))
    assert admitted.action["url"] == "https://shop.test/orders"


def test_a_page_a_redirect_reached_on_a_blocked_domain_ends_the_run():
    caught = refusal(_arrived(admission(Policy(block_domains=["attacker.test"])), "http://attacker.test/landing"))
    assert (caught.code, caught.ends) == ("url_refused", True)


async def _arrived(gate: Admission, url: str) -> None:
    gate.arrived(url, "click [3] link")


# ------------------------------------------------------------ no way around it

def test_only_the_admission_makes_the_token_the_browser_accepts():
    makers = [str(p.relative_to(ROOT)) for folder in ("host", "providers", "eval") for p in (ROOT / folder).rglob("*.py")
              if re.search(r"\bAdmitted\(", p.read_text(encoding="utf-8"))]
    assert makers == ["host/agent/admission.py"]


def test_only_the_admitted_senders_send_an_act_request():
    senders = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "host").rglob("*.py")
                     if re.search(r"""(request|call)\(\s*["']act["']""", p.read_text(encoding="utf-8")))
    # host.browser.act (the host's only send to the extension) and the MCP session's send of an
    # Admitted over the socket, whose `act` method admits it again under the user's saved lists.
    assert senders == ["host/browser.py", "host/mcp/session.py"]


# ------------------------------------------------------------ one narrowing

def test_a_callers_wider_allow_list_keeps_the_users_narrower_one_for_the_gate_and_the_run_alike():
    saved, caller = ["shop.example.com"], ["example.com"]
    assert Gate(allow_domains=caller).within(Gate(allow_domains=saved)).allow_domains == ["shop.example.com"]
    policy = narrowed(Policy(allow_domains=saved), Policy(allow_domains=caller))
    assert policy.allow_domains == ["shop.example.com"]
    assert domain_refusal("https://shop.example.com/", policy) is None
    assert domain_refusal("https://mail.example.com/", policy) == "mail.example.com is not on the allow list"


# ------------------------------------------------------------ the MCP client's admission

class Link:
    """The MCP session's host: one tab, a page it snapshots, acts recorded."""

    close_reason = ""

    def __init__(self) -> None:
        self.acts: list[dict[str, Any]] = []

    async def call(self, method: str, params: dict[str, Any], on_notify: Any = None, timeout: float | None = None) -> dict[str, Any]:
        if method == "snapshot":
            return SHOP.model_copy(update={"tab_id": 4}).model_dump(mode="json")
        if method == "browser.request":
            return {"data": {"tabs": [{"tab_id": 4}]}}
        self.acts.append(params)
        return {"ok": True, "action": params["action"]["type"], "tab_id": 4}


def _mcp(link: Link) -> McpSession:
    async def get_link(_client: str) -> Any:
        return link

    return McpSession(get_link, Policy())


def test_an_mcp_navigate_to_a_new_site_with_data_is_asked_about_and_sends_nothing_when_declined():
    link, asked = Link(), []

    async def decline(line: str, reason: str) -> bool:
        asked.append(reason)
        return False

    async def go() -> None:
        session = _mcp(link)
        await session.snapshot()
        await session.act(Navigate(url="https://collector.test/c?d=alice@mail.test"), decline)

    with pytest.raises(Refused) as caught:
        asyncio.run(go())
    assert caught.value.code == "egress_declined" and len(asked) == 1
    assert link.acts == []


def test_an_mcp_switch_to_a_tab_the_host_does_not_list_for_the_client_sends_nothing():
    link = Link()

    async def go() -> None:
        session = _mcp(link)
        await session.snapshot()
        await session.act(SwitchTab(tab_id=99), _never_asked)

    with pytest.raises(Refused) as caught:
        asyncio.run(go())
    assert caught.value.code == "tab_refused" and link.acts == []


async def _never_asked(line: str, reason: str) -> bool:
    raise AssertionError("nothing should be asked")


# ------------------------------------------------------------ the store read once

def test_a_long_session_reads_the_secret_store_again_only_when_it_changed(monkeypatch):
    secrets_store.set_secret("TOKEN_A", "alpha-value-0001", ["https://a.test"])
    reads = []
    real = secrets_store.all_values
    monkeypatch.setattr(secrets_store, "all_values", lambda: reads.append(1) or real())
    redactor = Redactor()
    for _ in range(5):
        redactor.learn_store()
    assert len(reads) == 1
    secrets_store.set_secret("TOKEN_B", "bravo-value-0002", ["https://b.test"])
    assert redactor.learn_store().text("see bravo-value-0002") == "see [redacted]" and len(reads) == 2
