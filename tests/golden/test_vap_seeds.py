"""Golden cases: every ValidatingAdmissionPolicy example of the seed documents with the exact text they state.

Each YAML file under vap/ holds `documents` and either one `request` + `expect` or a list of `requests`
(each with its `expect`). Expectations that state text compare it exactly.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluator.simulation import simulate_many

CASES = sorted((Path(__file__).parent / "vap").glob("*.yaml"))
VALIDATION_FAILURE = "validation.policy.admission.k8s.io/validation_failure"


def _requests(case: dict) -> list[tuple[dict, dict]]:
    if "requests" in case:
        return [(item["request"], item["expect"]) for item in case["requests"]]
    return [(case["request"], case["expect"])]


def _check(result: dict, expect: dict) -> None:
    status = result["status"] or {}
    assert result["allowed"] is expect["allowed"], (status, result["policies"])
    if "message" in expect:
        assert status["message"] == expect["message"]
    if "code" in expect:
        assert status["code"] == expect["code"]
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


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden(path: Path) -> None:
    case = yaml.safe_load(path.read_text())
    pairs = _requests(case)
    results = simulate_many(case["documents"], [request for request, _ in pairs])
    assert not [e for e in results[0]["errors"] if e.get("severity") == "error"], results[0]["errors"]
    for result, (_, expect) in zip(results, pairs):
        _check(result, expect)
