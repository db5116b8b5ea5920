"""`simulate` never raises: bad input becomes located errors; `simulate_many` reuses compiled policies."""

from __future__ import annotations

import json

import pytest

from evaluator.simulation import simulate, simulate_many

POLICY_YAML = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
    message: too many replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-binding}
spec:
  policyName: replicas
  validationActions: [Deny]
"""

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default"},
    "spec": {
        "replicas": 6,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
        },
    },
}


def test_yaml_text_and_a_plain_object_request():
    result = simulate(POLICY_YAML, DEPLOYMENT)
    assert result["allowed"] is False
    assert result["status"]["message"] == (
        'deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy '
        "'replicas' with binding 'replicas-binding' denied request: too many replicas"
    )
    assert result["kubectl"]["create"].startswith('error: failed to create deployment: deployments.apps "nginx"')
    json.dumps(result)  # JSON-serialisable


def test_result_contract_keys():
    result = simulate(POLICY_YAML, DEPLOYMENT)
    for key in (
        "allowed",
        "status",
        "warnings",
        "auditAnnotations",
        "auditEvent",
        "response",
        "ferricel",
        "policies",
        "errors",
    ):
        assert key in result
    assert result["response"]["kind"] == "AdmissionReview"
    assert result["auditEvent"]["apiVersion"] == "audit.k8s.io/v1"
    assert set(result["status"]) >= {"code", "reason", "message"}


@pytest.mark.parametrize(
    "documents",
    [
        "kind: [unclosed",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n: : :\n",
        [42, None, "not yaml: [", {"kind": "Unknown"}],
        {"apiVersion": "example.com/v1", "kind": "Whatever", "metadata": {"name": "x"}},
        12345,
    ],
)
def test_broken_documents_never_raise(documents):
    result = simulate(documents, DEPLOYMENT)
    assert result["allowed"] is True
    json.dumps(result)


def test_broken_yaml_is_located():
    text = POLICY_YAML + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: [x}\n"
    result = simulate(text, DEPLOYMENT)
    assert result["allowed"] is False  # the good documents still work
    broken = [e for e in result["errors"] if e["severity"] == "error"]
    assert len(broken) == 1 and broken[0]["document"] == 2
    assert (broken[0]["line"], broken[0]["column"]) == (21, 20)  # the "}" where "]" was expected
    assert text.split("\n")[20][19] == "}"


@pytest.mark.parametrize("request_", [None, 7, "::", {"operation": "EXPLODE"}, {"kind": {"kind": "Nope"}}])
def test_bad_requests_never_raise(request_):
    result = simulate(POLICY_YAML, request_)
    assert isinstance(result["allowed"], bool)
    json.dumps(result)


def test_binding_to_missing_policy_is_reported():
    docs = POLICY_YAML.replace("policyName: replicas", "policyName: missing")
    result = simulate(docs, DEPLOYMENT)
    assert result["allowed"] is True
    assert any('"missing" not found' in e["message"] and e.get("path") == "spec.policyName" for e in result["errors"])


def test_invalid_policy_takes_no_part():
    docs = POLICY_YAML.replace("validationActions: [Deny]", "validationActions: [Deny, Warn]")
    result = simulate(docs, DEPLOYMENT)
    assert result["allowed"] is True
    assert any(e.get("path", "").startswith("spec.validationActions") for e in result["errors"])


def test_wrong_param_kind_is_a_configuration_error():
    docs = POLICY_YAML.replace("  validations:", "  paramKind: {apiVersion: v1, kind: NoSuchKind}\n  validations:")
    docs = docs.replace(
        "  validationActions: [Deny]", "  validationActions: [Deny]\n  paramRef: {name: x, namespace: default}"
    )
    result = simulate(docs, DEPLOYMENT)
    assert result["status"]["message"].endswith(
        "failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=NoSuchKind'"
    )


def test_simulate_many_compiles_once(monkeypatch):
    from evaluator.policies.validating import compiler

    calls = []
    original = compiler.compile_policy
    monkeypatch.setattr("evaluator.policies.validating.kind.compile_policy", lambda p: calls.append(1) or original(p))
    small = dict(DEPLOYMENT, spec=dict(DEPLOYMENT["spec"], replicas=1))
    results = simulate_many(POLICY_YAML, [DEPLOYMENT, small, DEPLOYMENT])
    assert [r["allowed"] for r in results] == [False, True, False]
    assert len(calls) == 1


def test_the_result_carries_the_api_servers_type_checking_of_each_policy():
    from evaluator import simulate

    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "typo"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["apps"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["deployments"],
                    }
                ]
            },
            "validations": [{"expression": "object.replicas > 1"}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "typo-binding"},
        "spec": {"policyName": "typo", "validationActions": ["Deny"]},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2},
    }
    result = simulate([policy, binding], deployment)
    (warning,) = result["typeChecking"]["typo"]["status"]["typeChecking"]["expressionWarnings"]
    assert warning["fieldRef"] == "spec.validations[0].expression"
    assert warning["warning"].startswith("apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'")


def test_a_non_list_validation_actions_on_a_policy_is_not_a_crash():
    """Found by test_simulate_fuzz: an unknown `validationActions: true` on the policy itself."""
    policy, binding = POLICY_YAML.split("---", 1)[0], "---" + POLICY_YAML.split("---", 1)[1]
    policy = policy.replace("spec:\n", "spec:\n  validationActions: true\n", 1)
    result = simulate(policy + binding, DEPLOYMENT)
    assert not [e for e in result["errors"] if "traceback" in e]
    assert result["allowed"] is False
