"""What the batch hot path keeps between requests must not change any answer: lean tuples (evaluated straight
into their record), match answers kept by request key for criteria that read no labels, and params collected
once per (binding, namespace). Each test compares against a path that keeps nothing."""

from __future__ import annotations

import copy
import json

import pytest

import evaluator.policies.validating.dispatcher as vap_dispatcher
from evaluator.simulation import Simulation
from tests.evaluator.test_hot_path import _deployment

DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"]}


def _documents(name: str, spec: dict, actions: list[str], param: bool = False) -> list[dict]:
    constraints = spec.pop("matchConstraints", {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"]}]})
    binding: dict = {"policyName": name, "validationActions": actions}
    if param:
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
        binding["paramRef"] = {"name": "limits", "parameterNotFoundAction": "Allow"}
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {"matchConstraints": constraints, **spec},
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": f"{name}-binding"},
            "spec": binding,
        },
    ]


CLUSTER = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod", "labels": {"env": "prod"}}},
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "labels": {"env": "dev"}}},
    {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "limits", "namespace": "prod"},
        "data": {"max": "3"},
    },
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "dev"}, "data": {"max": "9"}},
]

LEAN_SHAPES = [
    ("static", {"validations": [{"expression": "object.spec.replicas <= 4", "message": "too many"}]}, False),
    (
        "two-validations",
        {
            "validations": [
                {"expression": "object.spec.replicas <= 6", "reason": "Forbidden"},
                {"expression": "object.metadata.name.startsWith('a')"},
            ]
        },
        False,
    ),
    (
        "conditions",
        {
            "matchConditions": [
                {"name": "not-dev", "expression": "object.metadata.namespace != 'dev'"},
                {"name": "not-canary", "expression": "!object.metadata.name.endsWith('canary')"},
            ],
            "validations": [{"expression": "object.spec.replicas <= 2"}],
        },
        False,
    ),
    (
        "message-expression",
        {
            "validations": [
                {
                    "expression": "object.spec.replicas <= int(params.data.max)",
                    "messageExpression": "'at most ' + params.data.max + ' replicas'",
                },
                {"expression": "object.spec.replicas > 0", "messageExpression": "'  '", "message": "static"},
            ]
        },
        True,
    ),
    (
        "audit-annotations",
        {
            "validations": [{"expression": "object.spec.replicas < 7"}],
            "auditAnnotations": [
                {"key": "many", "valueExpression": "object.spec.replicas > 4 ? ' many replicas ' : ''"},
                {"key": "blank", "valueExpression": "'  '"},
                {"key": "name", "valueExpression": "string(object.metadata.name)"},
            ],
        },
        False,
    ),
]


REQUESTS = [
    {
        "uid": f"{name}-{namespace}-{replicas}",
        "operation": "CREATE",
        "object": _deployment(name, replicas, namespace=namespace),
    }
    for name in ("api", "web-canary")
    for namespace in ("prod", "dev", "elsewhere")
    for replicas in (0, 2, 5, 8)
]


def _lean_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vap_dispatcher, "lean_tuple", lambda *args: None)


@pytest.mark.parametrize("actions", [["Deny"], ["Warn", "Audit"], ["Deny", "Audit"]])
def test_lean_tuples_give_the_general_paths_results(actions: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    documents = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        documents += _documents(name, copy.deepcopy(spec), actions, param)
    lean = Simulation(documents)
    lean_results = [lean.run(copy.deepcopy(r), trace=False, full=False) for r in REQUESTS]
    _lean_off(monkeypatch)
    general = Simulation(documents)
    general_results = [general.run(copy.deepcopy(r), trace=False, full=False) for r in REQUESTS]
    assert json.dumps(lean_results) == json.dumps(general_results)
    outcomes = {record["outcome"] for result in lean_results for record in result["policies"]}
    assert {"skipped", "admitted"} <= outcomes and outcomes & {"denied", "warned"}


def test_every_lean_shape_is_taken_by_the_lean_path() -> None:
    documents = copy.deepcopy(CLUSTER)
    for name, spec, param in LEAN_SHAPES:
        documents += _documents(name, copy.deepcopy(spec), ["Deny"], param)
    simulation = Simulation(documents)
    simulation.run(copy.deepcopy(REQUESTS[0]), trace=False, full=False)
    kind = simulation.chain[-1]
    assert len(kind.cache._bindings) == len(LEAN_SHAPES)
    assert all(meta.lean is not None for meta in kind.cache._bindings.values())


@pytest.mark.parametrize(
    "constraints",
    [
        {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "resourceNames": ["api"]}]},
        {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "scope": "Cluster"}]},
        {"resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "operations": ["UPDATE"]}]},
        {
            "resourceRules": [{**DEPLOYMENTS, "resources": ["*"]}],
            "excludeResourceRules": [{**DEPLOYMENTS, "resources": ["deployments"], "resourceNames": ["web-canary"]}],
        },
        {
            "resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"]}],
            "namespaceSelector": {"matchLabels": {"env": "prod"}},
        },
        {
            "resourceRules": [{**DEPLOYMENTS, "resources": ["deployments"]}],
            "objectSelector": {"matchLabels": {"app": "api"}},
        },
    ],
)
def test_kept_match_answers_are_those_of_a_fresh_match(constraints: dict) -> None:
    """One simulation for every request (answers kept by request key) against a new one per request."""
    documents = copy.deepcopy(CLUSTER) + _documents(
        "limited", {"matchConstraints": constraints, "validations": [{"expression": "false"}]}, ["Deny"]
    )
    shared = Simulation(documents)
    requests = REQUESTS + [dict(REQUESTS[0], operation="UPDATE", oldObject=REQUESTS[0]["object"])]
    answers = set()
    for request in requests:
        kept = shared.run(copy.deepcopy(request), trace=False, full=False)
        fresh = Simulation(documents).run(copy.deepcopy(request), trace=False, full=False)
        assert kept["policies"] == fresh["policies"]
        answers.add(kept["policies"][0]["outcome"])
    cluster_scoped = constraints["resourceRules"][0].get("scope") == "Cluster"
    # (a namespaceSelector also reads the namespace: one that is not among the documents is an error)
    assert (
        answers == {"skipped"} if cluster_scoped else {"denied", "skipped"} <= answers <= {"denied", "skipped", "error"}
    )


def test_params_are_collected_per_request_namespace() -> None:
    documents = copy.deepcopy(CLUSTER) + _documents(
        "param",
        {"validations": [{"expression": "object.spec.replicas <= int(params.data.max)"}]},
        ["Deny"],
        param=True,
    )
    simulation = Simulation(documents)
    outcomes = [
        (r["object"]["metadata"]["namespace"], r["object"]["spec"]["replicas"], result["policies"][0]["outcome"])
        for r in REQUESTS[:12]
        for result in [simulation.run(copy.deepcopy(r), trace=False, full=False)]
    ]
    assert (
        ("prod", 5, "denied") in outcomes and ("dev", 5, "admitted") in outcomes and ("dev", 8, "admitted") in outcomes
    )
    assert ("elsewhere", 8, "skipped") in outcomes  # no params there, parameterNotFoundAction Allow
