"""The ValidatingAdmissionPolicy scenarios of ../shared/conformance/k8s-vap as pytest cases.

Each scenario gives documents, one request and what a Kubernetes test or the documentation asserts;
every assertion present in `expect` is checked against `evaluator.simulate`. The MAP scenarios run in
test_k8s_map.py.
"""
from __future__ import annotations

import json
from collections import Counter

import pytest

from evaluator.simulation import simulate
from tests.shared_data import CONFORMANCE

SCENARIOS = CONFORMANCE / "k8s-vap" / "scenarios.jsonl"

VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"


def _load() -> list[dict]:
    return [json.loads(line) for line in SCENARIOS.read_text().splitlines() if line.strip()]


def _is_map(scenario: dict) -> bool:
    return any(str(d.get("kind", "")).startswith("MutatingAdmissionPolicy") for d in scenario["documents"])


def _cases() -> list:
    return [pytest.param(s, id=s["id"]) for s in _load() if not _is_map(s)]


def _check_annotation(name: str, expected, actual: str | None) -> None:
    assert actual is not None, f"audit annotation {name} missing"
    if name == VALIDATION_FAILURE_KEY:
        decoded = json.loads(actual)
        if isinstance(expected, dict) and "values_unordered" in expected:
            expected = expected["values_unordered"]
        assert Counter(json.dumps(x, sort_keys=True) for x in decoded) == \
            Counter(json.dumps(x, sort_keys=True) for x in expected)
    elif isinstance(expected, dict) and "joined_by" in expected:
        assert sorted(actual.split(expected["joined_by"])) == sorted(expected["values_unordered"])
    else:
        assert actual == expected


@pytest.mark.parametrize("scenario", _cases())
def test_scenario(scenario: dict) -> None:
    registry = (scenario.get("context") or {}).get("resource_registry")
    # Go tests build their objects in-process, past API validation: their documents take part even
    # where `kubectl apply` would refuse them (e.g. resources ["*", "*/*"], a selector value "bad value").
    mode = "enforce" if scenario.get("origin") == "docs" else "report"
    result = simulate(scenario["documents"], scenario["request"], resource_registry=registry, api_validation=mode)
    expect = scenario["expect"]
    assert not [e for e in result["errors"] if e.get("severity") == "error" and "traceback" in e]
    message = (result["status"] or {}).get("message", "")

    assert result["allowed"] is expect["allowed"], (message, result["policies"])
    if "message_contains" in expect:
        assert expect["message_contains"] in message
    if "message_not_contains" in expect:
        assert expect["message_not_contains"] not in message
    if "code" in expect:
        assert result["status"]["code"] == expect["code"]
    if "reason" in expect:
        assert result["status"]["reason"] == expect["reason"]
    for warning in expect.get("warnings_contain", []):
        assert warning in result["warnings"]
    if "warnings_count" in expect:
        assert len(set(result["warnings"])) == expect["warnings_count"]
    if "audit_annotations" in expect:
        for name, value in expect["audit_annotations"].items():
            _check_annotation(name, value, result["auditAnnotations"].get(name))
        if expect.get("audit_annotations_exact_keys") or expect["audit_annotations"] == {}:
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
