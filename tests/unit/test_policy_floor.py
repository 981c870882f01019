"""The user's saved policy is the floor of every run (host.agent.confirm.narrowed): a caller can
narrow it, never widen it."""

from __future__ import annotations

from waymark.host.agent.confirm import Policy, domain_refusal, narrowed


def test_a_caller_asking_to_allow_destructive_actions_is_narrowed_back_to_the_saved_ask():
    assert narrowed(Policy(destructive="ask"), Policy(destructive="allow")).destructive == "ask"


def test_a_caller_may_make_destructive_actions_stricter_than_the_saved_policy():
    assert narrowed(Policy(destructive="ask"), Policy(destructive="block")).destructive == "block"


def test_block_lists_are_unioned():
    policy = narrowed(Policy(block_domains=["bank.example"]), Policy(block_domains=["ads.example"]))
    assert domain_refusal("https://www.bank.example/", policy) and domain_refusal("https://ads.example/", policy)


def test_an_empty_caller_allow_list_keeps_the_saved_one():
    policy = narrowed(Policy(allow_domains=["shop.example"]), Policy())
    assert domain_refusal("https://attacker.example/", policy) == "attacker.example is not on the allow list"
    assert domain_refusal("https://shop.example/cart", policy) is None


def test_allow_lists_are_intersected_by_domain_with_their_subdomains():
    policy = narrowed(Policy(allow_domains=["example.com"]), Policy(allow_domains=["shop.example.com", "other.org"]))
    assert domain_refusal("https://shop.example.com/", policy) is None
    assert domain_refusal("https://other.org/", policy) == "other.org is not on the allow list"
    assert domain_refusal("https://mail.example.com/", policy) == "mail.example.com is not on the allow list"


def test_disjoint_allow_lists_allow_no_domain():
    policy = narrowed(Policy(allow_domains=["a.example"]), Policy(allow_domains=["b.example"]))
    assert domain_refusal("https://a.example/", policy) and domain_refusal("https://b.example/", policy)


def test_overlay_dismissal_is_off_when_either_side_turns_it_off():
    assert not narrowed(Policy(dismiss_occluders=False), Policy()).dismiss_occluders
    assert not narrowed(Policy(), Policy(dismiss_occluders=False)).dismiss_occluders


def test_a_caller_cannot_turn_off_the_egress_question_the_user_keeps():
    assert narrowed(Policy(egress="ask"), Policy(egress="allow")).egress == "ask"
    assert narrowed(Policy(egress="allow"), Policy(egress="ask")).egress == "ask"
