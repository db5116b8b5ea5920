"""The batch hot path: `Simulation.run(request, trace=False, full=False)` must decide exactly as a full run does,
and no result may share data with the caller's input or with another result.

Untraced runs evaluate validations directly and fall back to the general path on anything unusual (an error,
a budget, an unsupported value), so these tests compare both paths on the golden cases, the Kubernetes VAP
scenarios and policies written to hit each fallback.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from evaluator.simulation import Simulation, simulate_many
from tests.evaluator.fast_path_fixtures import DEPLOYMENTS, deployment, policy, same_decisions
from tests.conformance.k8s_scenarios import api_validation_mode, defaulting_mode, load_scenarios
from tests.golden.golden_cases import golden_cases, load_case


@pytest.mark.parametrize("path", golden_cases("vap"))
def test_lean_run_decides_as_a_full_run_on_the_golden_cases(path: Path) -> None:
    documents, pairs = load_case(path)
    simulation = Simulation(documents)
    for request, _ in pairs:
        same_decisions(simulation, request)


@pytest.mark.parametrize("scenario", load_scenarios(mutating=False), ids=lambda s: s["id"])
def test_lean_run_decides_as_a_full_run_on_the_kubernetes_scenarios(scenario: dict) -> None:
    simulation = Simulation(
        scenario["documents"],
        resource_registry=(scenario.get("context") or {}).get("resource_registry"),
        api_validation=api_validation_mode(scenario),
        defaulting=defaulting_mode(scenario),
    )
    same_decisions(simulation, scenario["request"])


# Each policy takes the general path for one reason (an error, a budget, a value), in both failure policies.
FALLBACKS = [
    ("runtime-error", {"validations": [{"expression": "object.spec.missing > 1"}]}),
    ("error-absorbed", {"validations": [{"expression": "object.spec.missing > 1 || true"}]}),
    ("compile-error", {"validations": [{"expression": "object.spec.replicas <"}]}),
    (
        "variable-error",
        {
            "variables": [{"name": "bad", "expression": "object.spec.missing"}],
            "validations": [{"expression": "variables.bad == 1"}],
        },
    ),
    (
        "variable-ok",
        {
            "variables": [{"name": "n", "expression": "object.spec.replicas"}],
            "validations": [
                {"expression": "variables.n < 2", "messageExpression": "'replicas: ' + string(variables.n)"}
            ],
        },
    ),
    (
        "message-error",
        {
            "validations": [
                {"expression": "false", "message": "fallback text", "messageExpression": "string(object.spec.no)"}
            ]
        },
    ),
    ("message-empty", {"validations": [{"expression": "false", "messageExpression": "' '"}]}),
    (
        "match-condition-error",
        {
            "matchConditions": [{"name": "broken", "expression": "object.spec.missing == 1"}],
            "validations": [{"expression": "true"}],
        },
    ),
    (
        "match-condition-false",
        {
            "matchConditions": [
                {"name": "first", "expression": "true"},
                {"name": "second", "expression": "object.metadata.name == 'other'"},
                {"name": "third", "expression": "false"},
            ],
            "validations": [{"expression": "false"}],
        },
    ),
    (
        "audit-values",
        {
            "validations": [{"expression": "true"}],
            "auditAnnotations": [
                {"key": "text", "valueExpression": "'  spaced  '"},
                {"key": "blank", "valueExpression": "'   '"},
                {"key": "none", "valueExpression": "null"},
                {"key": "number", "valueExpression": "object.spec.replicas > 100 ? 'many' : ''"},
            ],
        },
    ),
    (
        "audit-error",
        {
            "validations": [{"expression": "true"}],
            "auditAnnotations": [{"key": "k", "valueExpression": "string(object.spec.no)"}],
        },
    ),
    (
        "budget",
        {
            "validations": [
                {
                    "expression": "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
                    "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, a+b+c+d > 0))))"
                }
            ]
        },
    ),
]


@pytest.mark.parametrize("failure", ["Fail", "Ignore"])
@pytest.mark.parametrize("name,spec", FALLBACKS, ids=[name for name, _ in FALLBACKS])
def test_lean_run_falls_back_to_the_general_path_with_the_same_decision(name: str, spec: dict, failure: str) -> None:
    simulation = Simulation(policy(name, spec, actions=("Deny", "Audit"), failure=failure))
    assert not [e for e in simulation.errors if e.get("severity") == "error" and name != "compile-error"]
    for replicas in (1, 3):
        same_decisions(simulation, {"operation": "CREATE", "object": deployment(replicas=replicas)})


def test_policies_sharing_match_constraints_are_matched_apart_where_they_differ() -> None:
    """Equal criteria are matched once per request; different ones (an objectSelector) each on their own."""
    documents = policy("plain", {"validations": [{"expression": "false"}]}) + policy(
        "selected",
        {
            "matchConstraints": {
                "resourceRules": DEPLOYMENTS,
                "objectSelector": {"matchLabels": {"tier": "db"}},
            },
            "validations": [{"expression": "false"}],
        },
    )
    simulation = Simulation(documents)
    web, db = deployment("web"), deployment("db", labels={"tier": "db"})
    outcomes = {
        n: [
            r["outcome"]
            for r in simulation.run({"operation": "CREATE", "object": o}, trace=False, full=False)["policies"]
        ]
        for n, o in (("web", web), ("db", db))
    }
    assert outcomes == {"web": ["denied", "skipped"], "db": ["denied", "denied"]}


def test_results_share_nothing_with_the_input_nor_with_each_other() -> None:
    documents = policy("a", {"validations": [{"expression": "object.spec.replicas < 2"}]}) + policy(
        "b", {"validations": [{"expression": "object.spec.replicas < 5"}]}
    )
    given = deployment(replicas=3)
    pristine = copy.deepcopy(given)
    first, second = simulate_many(documents, [{"operation": "CREATE", "object": given}] * 2)
    json.dumps(first), json.dumps(second)  # JSON-serialisable as they are

    first["request"]["object"]["spec"]["replicas"] = 99
    first["request"]["object"]["metadata"]["labels"]["app"] = "changed"
    first["patchedObject"]["metadata"]["name"] = "changed"
    first["policies"][0]["matchedKind"]["kind"] = "Changed"
    first["policies"][0]["validationActions"].append("Warn")

    assert given == pristine
    assert second["request"]["object"]["spec"]["replicas"] == 3
    assert second["patchedObject"]["metadata"]["name"] == "web"
    assert second["request"]["object"]["metadata"]["labels"] == {"app": "web"}
    assert second["policies"][0]["matchedKind"]["kind"] == "Deployment"
    assert first["policies"][1]["matchedKind"]["kind"] == "Deployment"  # records of one result do not share
    assert second["policies"][0]["validationActions"] == ["Deny"]


def test_lean_results_share_nothing_with_the_input() -> None:
    simulation = Simulation(policy("a", {"validations": [{"expression": "true"}]}))
    given = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}, "data": {}}
    pristine = copy.deepcopy(given)  # a ConfigMap has no defaults: no defaulting copy to rely on
    results = [simulation.run({"operation": "CREATE", "object": given}, trace=False, full=False) for _ in range(2)]
    results[0]["patchedObject"]["data"]["k"] = "v"
    assert given == pristine
    assert results[1]["patchedObject"] == pristine


def test_a_bound_mutating_policy_that_does_not_apply_leaves_no_patch() -> None:
    documents = [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "label"},
            "spec": {
                "matchConstraints": {"resourceRules": DEPLOYMENTS},
                "matchConditions": [{"name": "never", "expression": "false"}],
                "reinvocationPolicy": "Never",
                "mutations": [
                    {
                        "patchType": "JSONPatch",
                        "jsonPatch": {"expression": "[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]"},
                    }
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "label-binding"},
            "spec": {"policyName": "label"},
        },
    ]
    given = deployment()
    pristine = copy.deepcopy(given)
    result = simulate_many(documents, [{"operation": "CREATE", "object": given}])[0]
    assert [r["outcome"] for r in result["policies"]] == ["skipped"]
    assert result["mutation"]["patch"] == [] and result["response"]["response"].get("patch") is None
    result["patchedObject"]["spec"]["replicas"] = 7
    assert given == pristine
