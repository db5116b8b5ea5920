"""Rows for the kinds beside ValidatingAdmissionPolicy and ClusterPolicy: MutatingAdmissionPolicy and Kyverno
ValidatingPolicy (Deny, Warn, Audit)."""

from __future__ import annotations

from evaluator.batch import Summary, run_chunk

from .policies import deployment, pod

MUTATE = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: set-strategy}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  matchConditions:
  - {name: big, expression: "object.spec.replicas > 3"}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{strategy: Object.spec.strategy{type: "Recreate"}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: set-strategy}
spec: {policyName: set-strategy}
"""


def vpol(name: str, actions: list[str]) -> dict:
    return {
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "ValidatingPolicy",
        "metadata": {"name": name},
        "spec": {
            "validationActions": actions,
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ]
            },
            "validations": [
                {"expression": "object.metadata.?labels.team.orValue('') != ''", "message": "a team label is required"}
            ],
        },
    }


def test_a_mutating_policy_counts_mutated_objects():
    rows = run_chunk(MUTATE, [deployment("big", 5), deployment("small", 1)])
    assert [(o["kind"], o["policy"], o["outcome"]) for o in rows[0]["policies"]] == [
        ("MutatingAdmissionPolicy", "set-strategy", "mutated")
    ]
    assert rows[1]["policies"] == []  # its matchCondition is false: skipped, left out
    entry = Summary.from_rows(rows).as_dict()["policies"]["MutatingAdmissionPolicy/set-strategy"]
    assert (entry["mutated"], entry["admitted"], entry["denied"]) == (1, 0, 0)


def test_validating_policies_by_their_actions():
    documents = [vpol("deny-team", ["Deny"]), vpol("warn-team", ["Warn"]), vpol("audit-team", ["Audit"])]
    [row] = run_chunk(documents, [pod("web", False)])
    assert row["allowed"] is False
    assert row["message"] == (
        'admission webhook "vpol.validate.kyverno.svc-fail" denied the request: '
        "Policy deny-team failed: a team label is required"
    )
    outcomes = {o["policy"]: (o["kind"], o["outcome"], o["message"]) for o in row["policies"]}
    assert outcomes == {
        "deny-team": ("ValidatingPolicy", "denied", "a team label is required"),
        "warn-team": ("ValidatingPolicy", "warned", "a team label is required"),
        "audit-team": ("ValidatingPolicy", "audited", "a team label is required"),
    }
    labelled = pod("web", False)
    labelled["metadata"]["labels"] = {"team": "a"}
    [passed] = run_chunk(documents, [labelled])
    assert passed["allowed"] and {o["outcome"] for o in passed["policies"]} == {"admitted"}


KYVERNO_MUTATE = (
    MUTATE.split("---")[0]
    .replace(
        "admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy",
        "policies.kyverno.io/v1\nkind: MutatingPolicy",
    )
    .replace("  reinvocationPolicy: Never\n", "")
)


def test_a_kyverno_mutating_policy_counts_mutated_objects():
    rows = run_chunk(KYVERNO_MUTATE, [deployment("big", 5), deployment("small", 1)])
    assert [(o["kind"], o["policy"], o["outcome"]) for o in rows[0]["policies"]] == [
        ("MutatingPolicy", "set-strategy", "mutated")
    ]
    assert rows[1]["policies"] == []  # its matchCondition is false: skip, left out
    entry = Summary.from_rows(rows).as_dict()["policies"]["MutatingPolicy/set-strategy"]
    assert (entry["mutated"], entry["admitted"], entry["denied"]) == (1, 0, 0)
