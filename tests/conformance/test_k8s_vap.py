"""The ValidatingAdmissionPolicy scenarios of tests/data/conformance/k8s-vap as pytest cases.

Each scenario gives documents, one request and what a Kubernetes test or the documentation asserts;
every assertion present in `expect` is checked against `evaluator.simulate`. The MAP scenarios run in
test_k8s_map.py.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from evaluator.simulation import simulate
from tests.conformance.k8s_scenarios import api_validation_mode, check_status, defaulting_mode, load_scenarios

VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


def _check_annotation(name: str, expected, actual: str | None) -> None:
    assert actual is not None, f"audit annotation {name} missing"
    if name == VALIDATION_FAILURE_KEY:
        decoded = json.loads(actual)
        if isinstance(expected, dict) and "values_unordered" in expected:
            expected = expected["values_unordered"]
        assert Counter(json.dumps(x, sort_keys=True) for x in decoded) == Counter(
            json.dumps(x, sort_keys=True) for x in expected
        )
    elif isinstance(expected, dict) and "joined_by" in expected:
        assert sorted(actual.split(expected["joined_by"])) == sorted(expected["values_unordered"])
    else:
        assert actual == expected


@pytest.mark.parametrize("scenario", load_scenarios(mutating=False), ids=lambda s: s["id"])
def test_scenario(scenario: dict) -> None:
    registry = (scenario.get("context") or {}).get("resource_registry")
    result = simulate(
        scenario["documents"],
        scenario["request"],
        resource_registry=registry,
        api_validation=api_validation_mode(scenario),
        defaulting=defaulting_mode(scenario),
    )
    expect = scenario["expect"]
    assert not [e for e in result["errors"] if e.get("severity") == "error" and "traceback" in e]
    check_status(result, expect)
    if "reason" in expect:
        assert result["status"]["reason"] == expect["reason"]
    for warning in expect.get("warnings_contain", []):
        assert warning in result["warnings"]
    if "warnings_count" in expect:
        assert len(set(result["warnings"])) == expect["warnings_count"]
    if "audit_annotations" in expect:
        for name, value in expect["audit_annotations"].items():
            _check_annotation(name, value, result["auditAnnotations"].get(name))
        if expect.get("audit_annotations_exact_keys"):
            assert set(result["auditAnnotations"]) == set(expect["audit_annotations"])
    if "evaluated_params" in expect:
        evaluated = sorted(r["param"] for r in result["policies"] if r["param"] is not None)
        assert evaluated == sorted(expect["evaluated_params"])
    if "matched_kind" in expect:
        evaluated = [r for r in result["policies"] if r["matchedKind"] is not None]
        assert evaluated and evaluated[0]["matchedKind"] == expect["matched_kind"]
    if "matched_resource" in expect:
        evaluated = [r for r in result["policies"] if r["matchedResource"] is not None]
        assert evaluated and evaluated[0]["matchedResource"] == expect["matched_resource"]
