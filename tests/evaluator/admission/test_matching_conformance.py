"""Every matcher scenario of the k8s-vap conformance set, asserted at the matching layer.

The scenarios from matching_test / rules_test / the namespace and object predicate tests translate a
matcher unit test into a policy whose only validation is ``false``: the request is denied iff the
policy (and its unconstrained binding) match, or the match itself errors (failurePolicy Fail).
"""

from __future__ import annotations

import pytest

from evaluator.admission.defaults import apply_defaults
from evaluator.admission.documents import index_documents, load_objects
from evaluator.admission.matching import binding_matches, exempt_reason, policy_matches
from evaluator.k8s.restmapping import RESTMapper
from tests.shared_data import conformance_file, read_jsonl

SCENARIOS = conformance_file("k8s-vap", "scenarios.jsonl")
MATCHER_SOURCES = (
    "policy/matching/matching_test.go",
    "predicates/rules/rules_test.go",
    "predicates/namespace/matcher_test.go",
    "predicates/object/matcher_test.go",
)


def _matcher_scenarios() -> list[dict]:
    return [r for r in read_jsonl(SCENARIOS) if any(src in r["source"] for src in MATCHER_SOURCES)]


def _mapper(scenario: dict) -> RESTMapper | None:
    registry = (scenario.get("context") or {}).get("resource_registry")
    if not registry:
        return None
    # The test's EquivalentResourceMapper groups every "deployments" resource under one identity.
    return RESTMapper.from_registry(registry, identity=lambda gvr: gvr.resource)


@pytest.mark.parametrize("scenario", _matcher_scenarios(), ids=lambda s: s["id"])
def test_matcher_scenario(scenario: dict) -> None:
    documents, errors = load_objects(scenario["documents"])
    assert not errors
    index = index_documents(documents)
    policy = apply_defaults(index.validating_policies[0].data)
    binding = apply_defaults(index.validating_bindings[0].data)
    request = scenario["request"]
    mapper = _mapper(scenario)

    assert exempt_reason(request) is None
    result = policy_matches(policy, request, index.namespace, mapper)
    if result.matched:
        binding_result = binding_matches(binding, request, index.namespace, mapper)
        assert binding_result.matched, binding_result.reason
    denied = result.matched or result.error is not None

    expect = scenario["expect"]
    assert denied == (not expect["allowed"]), result.reason
    if "matched_kind" in expect:
        assert result.matched_kind == expect["matched_kind"]
    if "matched_resource" in expect:
        assert result.matched_resource == expect["matched_resource"]
    if result.error is not None and "message_contains" in expect:
        assert expect["message_contains"] in result.error


def test_the_conformance_set_has_matcher_scenarios() -> None:
    assert len(_matcher_scenarios()) >= 40


def _all_scenarios() -> list[dict]:
    return read_jsonl(SCENARIOS)


@pytest.mark.parametrize("scenario", [s for s in _all_scenarios() if not s["expect"]["allowed"]], ids=lambda s: s["id"])
def test_every_denied_scenario_has_a_matching_policy_and_binding(scenario: dict) -> None:
    """A denial needs a (policy, binding) pair that matches (or errors) under the built-in REST mapping."""
    from evaluator.admission.request import normalize_request

    documents, _ = load_objects(scenario["documents"])
    index = index_documents(documents)
    normalized = normalize_request(scenario["request"])
    assert normalized.ok, normalized.errors
    request = normalized.request
    assert exempt_reason(request) is None
    pairs = []
    for policy_doc in index.validating_policies + index.mutating_policies:
        policy = policy_matches(apply_defaults(policy_doc.data), request, index.namespace)
        if not (policy.matched or policy.error):
            continue
        for binding_doc in index.validating_bindings + index.mutating_bindings:
            if binding_doc.data.get("spec", {}).get("policyName") != policy_doc.name:
                continue
            binding = binding_matches(apply_defaults(binding_doc.data), request, index.namespace)
            if binding.matched or binding.error:
                pairs.append((policy_doc.name, binding_doc.name))
    assert pairs
