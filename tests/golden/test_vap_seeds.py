"""Golden cases: every ValidatingAdmissionPolicy example of the seed documents with the exact text they state.

Each YAML file under vap/ is a golden case (see golden_cases.py). Expectations that state text compare
it exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.simulation import simulate_many
from tests.golden.golden_cases import check_status, golden_cases, load_case

VALIDATION_FAILURE = "validation.policy.admission.k8s.io/validation_failure"


def _check(result: dict, expect: dict) -> None:
    check_status(result, expect)
    if "code" in expect:
        assert (result["status"] or {})["code"] == expect["code"]
    if "kubectl_create" in expect:
        assert result["kubectl"]["create"] == expect["kubectl_create"]
    if "ferricel" in expect:
        assert result["ferricel"] == expect["ferricel"]
    if "warnings" in expect:
        assert result["warnings"] == expect["warnings"]
    if "validation_failure" in expect:
        assert json.loads(result["auditAnnotations"][VALIDATION_FAILURE]) == expect["validation_failure"]
    if "audit_annotations" in expect:
        assert result["auditAnnotations"] == expect["audit_annotations"]
    if "audit_event_annotations" in expect:
        for key, value in expect["audit_event_annotations"].items():
            assert result["auditEvent"]["annotations"][key] == value
    if "evaluated_params" in expect:
        assert sorted(r["param"] for r in result["policies"] if r["param"]) == sorted(expect["evaluated_params"])
    if "outcomes" in expect:
        assert [r["outcome"] for r in result["policies"]] == expect["outcomes"]
    if "skip_reasons" in expect:
        assert [r["skipReason"] for r in result["policies"]] == expect["skip_reasons"]
    if expect.get("exempt"):
        assert result["exempt"] and result["policies"] == []


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_golden(path: Path) -> None:
    documents, pairs = load_case(path)
    results = simulate_many(documents, [request for request, _ in pairs])
    assert len(results) == len(pairs)
    for result, (_, expect) in zip(results, pairs):
        assert not [e for e in result["errors"] if e.get("severity") == "error"], result["errors"]
        _check(result, expect)
