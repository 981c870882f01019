"""host.core.predicates: one registry of the verifier's predicates, which the verifier, the
planner's prompt and its JSON schema all read."""

from __future__ import annotations

import json
import re

import jsonschema

from waymark.host.agent import prompts
from waymark.host.agent.planner import plan_schema
from waymark.host.agent.verifier import parse_predicate
from waymark.host.core.predicates import PREDICATES


def _concrete(example: str) -> object:
    """A registry example with its placeholders filled in, as a planner would write it."""
    return json.loads(re.sub(r"<[^<>]+>", "Volume", example))


def test_every_registered_predicate_is_shown_to_the_planner_by_its_example():
    system = prompts.planner_system(secrets=False)
    assert all(spec.example in system for spec in PREDICATES.values())


def test_every_registry_example_is_a_predicate_the_verifier_accepts():
    for name, spec in PREDICATES.items():
        assert parse_predicate(_concrete(spec.example)).name == name


def test_the_planners_schema_takes_each_registered_predicate_and_refuses_an_unknown_one():
    schema = plan_schema()
    plan = {"steps": [{"intent": "Open the tree", "verify": [_concrete(spec.example) for spec in PREDICATES.values()], "required": True}],
            "success_criteria": []}
    jsonschema.validate(plan, schema)
    plan["steps"][0]["verify"] = [{"is_open": True}]
    try:
        jsonschema.validate(plan, schema)
    except jsonschema.ValidationError:
        return
    raise AssertionError("a predicate the registry does not have passed the planner's schema")
