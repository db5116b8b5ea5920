"""Malformed GeneratingPolicies and DeletingPolicies never crash a simulation: each problem is a located error
at its field, and the request still gets its verdict."""

from __future__ import annotations

import copy
import datetime as dt

import pytest

import evaluator

GPOL = {
    "apiVersion": "policies.kyverno.io/v1",
    "kind": "GeneratingPolicy",
    "metadata": {"name": "g"},
    "spec": {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["namespaces"]}
            ]
        },
        "generate": [{"expression": "generator.Apply('x', [object])"}],
    },
}
DPOL = {
    "apiVersion": "policies.kyverno.io/v1",
    "kind": "DeletingPolicy",
    "metadata": {"name": "d"},
    "spec": {
        "schedule": "* * * * *",
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]},
        "conditions": [{"name": "c", "expression": "true"}],
    },
}
ODD_OBJECTS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": "not an object"},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": 5}},
]
REQUEST = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "z"}}


def _with(policy: dict, spec: object) -> dict:
    out = copy.deepcopy(policy)
    if isinstance(spec, dict):
        out["spec"].update(spec)
    else:
        out["spec"] = spec
    return out


@pytest.mark.parametrize(
    "policy, path",
    [
        (_with(GPOL, None), "spec.matchConstraints"),
        (_with(GPOL, {"generate": "x"}), "spec.generate"),
        (_with(GPOL, {"generate": [{"template": {"value": 5}}]}), "spec.generate[0].template.value"),
        (
            _with(GPOL, {"generate": [{"template": {"value": "- a", "interpolate": "cel"}}]}),
            "spec.generate[0].template.value",
        ),
        (
            _with(GPOL, {"generate": [{"template": {"value": "a: (( 1 +", "interpolate": "cel"}}]}),
            "spec.generate[0].template.value",
        ),
        (
            _with(GPOL, {"generate": [{"template": {"value": "{{{", "interpolate": "cel"}}]}),
            "spec.generate[0].template.value",
        ),
        (_with(GPOL, {"generate": [{"expression": 5}]}), "spec.generate[0].expression"),
        (_with(DPOL, "x"), "spec.schedule"),
        (_with(DPOL, {"schedule": 5}), "spec.schedule"),
        (_with(DPOL, {"conditions": [None, {"expression": 3}]}), "spec.conditions[0].expression"),
        (_with(DPOL, {"matchConstraints": {"resourceRules": "x"}}), "spec.matchConstraints"),
    ],
)
def test_a_malformed_policy_is_a_located_error_and_the_request_is_still_decided(policy, path):
    result = evaluator.simulate([policy, *ODD_OBJECTS], REQUEST, now=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))
    assert not [e for e in result["errors"] if "internal error" in e["message"]]
    assert path in [e["path"] for e in result["documentErrors"] if e["severity"] == "error"]
    assert result["allowed"] is True


def test_generator_errors_are_the_policys_error_not_a_crash():
    policy = _with(GPOL, {"generate": [{"expression": "generator.Apply('ns', [1])"}]})
    result = evaluator.simulate([policy], REQUEST)
    [rule] = [g for e in result["kyverno"] for g in e.get("generate") or []]
    assert (rule["result"], rule["message"]) == (
        "error",
        "failed to evaluate policy: failed to generate resources: expected an object, got int",
    )
    assert rule["location"]["path"] == "spec.generate[0]"
