"""The MutatingAdmissionPolicy scenarios of tests/data/conformance/k8s-vap as pytest cases.

Every assertion present in `expect` is checked against `evaluator.simulation.simulate` (the
simulation with mutating policies first). `patched_object` compares semantically, as the README says:
absent, null, empty and zero values are all the same Go zero value. The dispatcher tests of the API server
install a fake defaulter that only sets `spec.strategy.type: RollingUpdate` on Deployments; the same
defaulter is passed for those scenarios (and only those).
"""

from __future__ import annotations

import pytest

from evaluator.policies.mutating.diff import semantic_form
from evaluator.simulation import simulate
from tests.conformance.k8s_scenarios import api_validation_mode, check_status, defaulting_mode, load_scenarios


def fake_deployment_defaulter(obj: dict) -> dict:
    """dispatcher_test.go's fakeSetDefaultForDeployment: only spec.strategy.type."""
    if obj.get("kind") == "Deployment" and str(obj.get("apiVersion", "")).startswith("apps/"):
        spec = obj.setdefault("spec", {})
        strategy = spec.setdefault("strategy", {})
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
    return obj


@pytest.mark.parametrize("scenario", load_scenarios(mutating=True), ids=lambda s: s["id"])
def test_scenario(scenario: dict) -> None:
    defaulter = fake_deployment_defaulter if "dispatcher_test.go" in scenario["source"] else None
    result = simulate(
        scenario["documents"],
        scenario["request"],
        api_validation=api_validation_mode(scenario),
        defaulting=defaulting_mode(scenario),
        defaulter=defaulter,
    )
    expect = scenario["expect"]
    assert not [e for e in result["errors"] if "traceback" in e], result["errors"]
    check_status(result, expect)
    if "patched_object" in expect:
        assert semantic_form(result["patchedObject"]) == semantic_form(expect["patched_object"])
