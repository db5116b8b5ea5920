"""The MutatingAdmissionPolicy scenarios of ../shared/conformance/k8s-vap as pytest cases.

Every assertion present in `expect` is checked against `evaluator.simulation.simulate` (the
simulation with mutating policies first). `patched_object` compares semantically, as the README says:
absent, null, empty and zero values are all the same Go zero value. The dispatcher tests of the API server
install a fake defaulter that only sets `spec.strategy.type: RollingUpdate` on Deployments; the same
defaulter is passed for those scenarios (and only those).
"""
from __future__ import annotations

import json

import pytest

from evaluator.simulation import simulate
from evaluator.mutating.diff import semantic_form
from tests.shared_data import CONFORMANCE

SCENARIOS = CONFORMANCE / "k8s-vap" / "scenarios.jsonl"


def _is_map(scenario: dict) -> bool:
    return any(str(d.get("kind", "")).startswith("MutatingAdmissionPolicy") for d in scenario["documents"])


def _load() -> list[dict]:
    if not SCENARIOS.exists():
        return []
    scenarios = [json.loads(line) for line in SCENARIOS.read_text().splitlines() if line.strip()]
    return [s for s in scenarios if _is_map(s)]


def fake_deployment_defaulter(obj: dict) -> dict:
    """dispatcher_test.go's fakeSetDefaultForDeployment: only spec.strategy.type."""
    if obj.get("kind") == "Deployment" and str(obj.get("apiVersion", "")).startswith("apps/"):
        spec = obj.setdefault("spec", {})
        strategy = spec.setdefault("strategy", {})
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
    return obj


@pytest.mark.parametrize("scenario", _load(), ids=lambda s: s["id"])
def test_scenario(scenario: dict) -> None:
    defaulter = fake_deployment_defaulter if "dispatcher_test.go" in scenario["source"] else None
    mode = "enforce" if scenario.get("origin") == "docs" else "report"
    result = simulate(scenario["documents"], scenario["request"], api_validation=mode, defaulter=defaulter)
    expect = scenario["expect"]
    assert not [e for e in result["errors"] if "traceback" in e], result["errors"]
    message = (result["status"] or {}).get("message", "")
    assert result["allowed"] is expect["allowed"], (message, result["policies"])
    if "message_contains" in expect:
        assert expect["message_contains"] in message
    if "message_not_contains" in expect:
        assert expect["message_not_contains"] not in message
    if "code" in expect:
        assert result["status"]["code"] == expect["code"]
    if "patched_object" in expect:
        assert semantic_form(result["patchedObject"]) == semantic_form(expect["patched_object"])
