"""Kubernetes version gates of the CEL environment (apiserver cel/environment/base.go): each library, macro
and check appears in the release that introduced it, and a simulated API server compiles new expressions
against its compatibility version (the release before its own)."""

from __future__ import annotations

import pytest

from evaluator import simulate, typecheck
from evaluator.cel import CompileError, compile_program
from evaluator.cel.env import admission_env
from evaluator.cel.versions import NEWEST, SUPPORTED_VERSIONS, environment_version, parse_version

# (expression, the first release whose *new* expressions may use it, its refusal before that)
GATES = [
    ("object.?spec.orValue(1) == 1", "1.29", "unsupported syntax '.?'"),
    ("optional.of(1).hasValue()", "1.29", "undeclared reference to 'optional'"),
    ("[?optional.none()] == []", "1.29", "unsupported syntax '?'"),
    ("optional.of(1).optMap(x, x + 1).value() == 2", "1.29", "undeclared reference to 'optional'"),
    ("quantity('1Gi').isInteger()", "1.29", "undeclared reference to 'quantity'"),
    ("sets.contains([1, 2], [1])", "1.30", "undeclared reference to 'sets'"),
    ("'%d'.format([1]) == '1'", "1.30", "undeclared reference to 'format'"),
    ("strings.quote('a') != ''", "1.30", "undeclared reference to 'strings'"),
    ("isIP('10.0.0.1')", "1.31", "undeclared reference to 'isIP'"),
    ("cidr('10.0.0.0/8').containsIP('10.0.0.1')", "1.31", "undeclared reference to 'cidr'"),
    ("format.dns1123Label().validate('a').hasValue() == false", "1.32", "undeclared reference to 'format'"),
    ("[1, 2].all(i, v, v > i)", "1.33", "undeclared reference to"),
    ("{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", "1.33", "undeclared reference to"),
    ("isSemver('1.0.0')", "1.34", "undeclared reference to 'isSemver'"),
    ("[1, 2, 3].slice(0, 2) == [1, 2]", "1.35", "undeclared reference to 'slice'"),
    ("[[1], [2]].flatten() == [1, 2]", "1.35", "undeclared reference to 'flatten'"),
    ("lists.range(3) == [0, 1, 2]", "1.35", "undeclared reference to 'lists'"),
]
VARIABLES = {"object": {"spec": 1}}


def compiles(expression: str, version: str) -> str | None:
    try:
        compile_program(expression, env=admission_env(version=version).with_variables(VARIABLES))
    except CompileError as exc:
        return exc.message
    return None


@pytest.mark.parametrize(("expression", "first", "refusal"), GATES, ids=[g[0] for g in GATES])
def test_each_library_gate(expression, first, refusal):
    before = f"1.{int(first.split('.')[1]) - 1}"
    message = compiles(expression, before)
    assert message is not None and refusal in message, message
    assert compiles(expression, first) is None
    assert compiles(expression, NEWEST) is None


def test_literal_validators_from_1_29():
    assert compiles("'a'.matches('[')", "1.29") is None  # invalid at run time only
    assert "invalid matches argument" in compiles("'a'.matches('[')", "1.30")


def test_compatibility_version_is_the_release_before():
    assert environment_version("1.31") == "1.30"
    assert [parse_version(v) for v in ("1.31", "v1.31", "1.31.4")] == ["1.31"] * 3
    assert SUPPORTED_VERSIONS[-1] == NEWEST
    for bad in ("1.2", "2.0", "latest", None, 131):
        with pytest.raises(ValueError):
            parse_version(bad)


POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ip-only}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "isIP(object.data.address)", message: not an IP}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ip-only}
spec: {policyName: ip-only, validationActions: [Deny]}
"""
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "c", "namespace": "default"},
    "data": {"address": "not-an-ip"},
}


def test_a_policy_using_a_later_library_is_refused_as_that_release_refuses_it():
    refused = simulate(POLICY, CONFIGMAP, kubernetes_version="1.30")
    assert refused["allowed"] and refused["kubernetesVersion"] == "1.30"
    errors = [e for e in refused["errors"] if e["severity"] == "error"]
    assert any("undeclared reference to 'isIP'" in e["message"] for e in errors), errors
    enforced = simulate(POLICY, CONFIGMAP, kubernetes_version="1.31")
    assert not enforced["allowed"] and "not an IP" in enforced["status"]["message"]
    assert simulate(POLICY, CONFIGMAP)["kubernetesVersion"] == NEWEST


def test_unsupported_version_is_a_bad_request():
    result = simulate(POLICY, CONFIGMAP, kubernetes_version="1.9")
    assert not result["allowed"] and result["status"]["code"] == 400
    assert "supported are 1.28 to" in result["status"]["message"]


MAP_V1 = """
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label}
"""


@pytest.mark.parametrize(("version", "served"), [("1.33", False), ("1.35", False), ("1.36", True)])
def test_mutating_admission_policy_api_versions(version, served):
    result = simulate(MAP_V1, CONFIGMAP, kubernetes_version=version)
    labels = ((result["patchedObject"] or {}).get("metadata") or {}).get("labels") or {}
    assert (labels.get("seen") == "yes") is served
    unserved = [e for e in result["errors"] if "no matches for kind" in e["message"]]
    assert bool(unserved) is not served


def test_typecheck_follows_the_version():
    policy = next(iter(__import__("yaml").safe_load_all(POLICY)))
    old = typecheck(policy, kubernetes_version="1.30")
    new = typecheck(policy, kubernetes_version="1.31")
    assert "isIP" in repr(old) and "isIP" not in repr(new)
