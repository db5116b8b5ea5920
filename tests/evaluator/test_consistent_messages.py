"""Messages that never contradict each other (issue 14): kubectl's text as kubectl prints it, hints after
the Kubernetes text, type checks that do not call an invalid policy clean."""

from __future__ import annotations

from evaluator import simulate
from evaluator.admission.hints import hint_for
from evaluator.admission.response import kubectl_text
from evaluator.simulation import Simulation

CREATE = {"operation": "CREATE", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"}, "name": "web"}


def test_an_empty_reason_prints_error_from_server_without_parentheses():
    status = {"code": 400, "reason": "", "message": 'admission webhook "x" denied the request: no'}
    assert (
        kubectl_text(CREATE, status, [])
        == 'Error from server: error when creating "STDIN": admission webhook "x" denied the request: no'
    )
    status["reason"] = "Invalid"
    assert kubectl_text({**CREATE, "operation": "UPDATE"}, status, []).startswith(
        "Error from server (Invalid): admission"
    )


def test_an_allowed_request_prints_its_warnings_then_what_kubectl_did():
    assert (
        kubectl_text(CREATE, None, ["careful", "really"])
        == "Warning: careful\nWarning: really\ndeployment.apps/web created"
    )
    assert kubectl_text({**CREATE, "operation": "UPDATE"}, None, []) == "deployment.apps/web configured"
    core = {"operation": "DELETE", "kind": {"group": "", "version": "v1", "kind": "Pod"}, "name": "p"}
    assert kubectl_text(core, None, []) == 'pod "p" deleted'


KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: need-team}
spec:
  validationFailureAction: Enforce
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate:
      message: a team label is required
      pattern: {metadata: {labels: {team: "?*"}}}
"""
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 1},
}


def test_a_kyverno_denial_is_printed_as_kubectl_prints_a_webhook_denial():
    result = simulate(KYVERNO, DEPLOYMENT)
    assert result["allowed"] is False and result["status"]["reason"] == ""
    assert result["kubectl"]["text"].startswith('Error from server: error when creating "STDIN": admission webhook')


def test_hints_come_from_the_message_and_the_expression():
    assert (
        hint_for("no such key: replicas", "object.spec.replicas > 1")
        == "the object has no spec.replicas; guard it with has(object.spec.replicas)"
    )
    assert (
        hint_for("no such key: app", "object.metadata.labels['app'] == 'x'")
        == "object.metadata.labels has no key 'app'; guard it with 'app' in object.metadata.labels"
    )
    assert hint_for("no such key: x", "params.x") == "the params object has no x; guard it with has(params.x)"
    assert hint_for("division by zero", "1 / 0") is None


POLICIES = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: good}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <="
"""


def test_a_policy_that_could_not_be_type_checked_is_not_reported_clean():
    checks = Simulation(POLICIES).type_checks()
    assert set(checks) == {"good", "broken"}
    assert "diagnostics" in checks["good"] and "diagnostics" not in checks["broken"]
    assert checks["broken"]["notChecked"] == "the policy has configuration errors: fix them first"
    assert checks["broken"]["policyError"]["line"] == 19


def test_type_check_diagnostics_carry_their_place_in_the_text():
    text = POLICIES.replace("object.spec.replicas <= 5", "object.spec.replicas <= 'five'")
    diagnostic = Simulation(text).type_checks()["good"]["diagnostics"][0]
    assert (diagnostic["location"]["line"], diagnostic["location"]["column"]) == (9, 38)
    assert text.split("\n")[8][37] == "<"


def test_a_compile_error_gets_a_hint_after_the_kubernetes_text():
    text = POLICIES.replace("object.spec.replicas <= 5", "objct.spec.replicas <= 5")
    error = [e for e in Simulation(text).errors if e.get("path") == "spec.validations[0].expression"][0]
    assert error["message"].startswith("compilation failed: ERROR: <input>:1:1: undeclared reference to 'objct'")
    assert error["hint"] == "did you mean object?"
    assert (error["line"], error["column"]) == (9, 17)
