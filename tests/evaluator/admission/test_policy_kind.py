"""The plug-in contract: a kind registered with the core runs in its stage, in order, sees the object as
earlier kinds left it, and a denial ends the chain; its result keys appear (defaults when it did not run)."""

from __future__ import annotations

import pytest

import evaluator
from evaluator.admission import policy_kind as pk
from evaluator.policies import load_kinds

load_kinds()  # every built-in kind in the registry (a simulation imports only the kinds its documents need)

VAP = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: always}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}]
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: always}
spec: {policyName: always, validationActions: [Deny]}
"""
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}


class Labeller:
    """A mutating kind that labels every object."""

    name, stage, order, result_keys = "Labeller", pk.MUTATING, 50, {"labelled": False}

    def __init__(self):
        self.active = True

    def refuse(self, document):
        return []

    def load(self, setup):
        return []

    def evaluate(self, request, context):
        obj = dict(request["object"], metadata={**request["object"]["metadata"], "labels": {"seen": "yes"}})
        return pk.KindOutcome(object=obj, keys={"labelled": True})


class LabelSchema:
    """A schema-stage kind that refuses objects without the label, and documents it cannot read."""

    name, stage, order, result_keys = "LabelSchema", pk.SCHEMA, 100, {"schemaChecked": None}

    def __init__(self):
        self.active = True

    def refuse(self, document):
        return [{"path": "spec", "message": "no spec allowed"}] if document.get("kind") == "Forbidden" else []

    def load(self, setup):
        return [setup.locate(d, severity="warning", message="seen") for d in setup.documents if d.get("kind") == "Note"]

    def evaluate(self, request, context):
        labels = request["object"]["metadata"].get("labels") or {}
        denial = None
        if labels.get("seen") != "yes":
            denial = pk.Denial(
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": "label missing",
                    "reason": "Invalid",
                    "code": 422,
                }
            )
        return pk.KindOutcome(
            records=[{"policy": "labels", "binding": None, "outcome": "denied" if denial else "admitted"}],
            denial=denial,
            keys={"schemaChecked": labels},
        )


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(pk, "_REGISTRY", dict(pk._REGISTRY))
    return pk


def test_a_registered_kind_runs_in_its_stage_and_sees_earlier_mutations(registry):
    registry.register(Labeller)
    registry.register(LabelSchema)
    names = [k.name for k in registry.registered()]  # by stage, then order within the stage
    assert names[:2] == ["Labeller", "MutatingAdmissionPolicy"]
    assert (
        names.index("MutatingAdmissionPolicy") < names.index("LabelSchema") < names.index("ValidatingAdmissionPolicy")
    )
    result = evaluator.simulate(VAP, CONFIGMAP)
    assert result["allowed"] is True
    assert result["labelled"] is True and result["schemaChecked"] == {"seen": "yes"}
    assert [r["policy"] for r in result["policies"]] == ["labels", "always"]
    assert result["response"]["response"]["allowed"] is True


def test_a_denial_ends_the_chain_before_later_stages(registry):
    registry.register(LabelSchema)
    result = evaluator.simulate(VAP, CONFIGMAP)
    assert result["allowed"] is False and result["status"]["message"] == "label missing"
    assert [r["policy"] for r in result["policies"]] == ["labels"]  # the validating stage never ran
    assert result["kyverno"] == [] and result["ferricel"] == {
        "accepted": False,
        "message": "label missing",
        "code": 422,
    }
    assert result["auditEvent"]["responseStatus"]["code"] == 422


def test_refused_and_located_documents(registry):
    registry.register(LabelSchema)
    simulation = evaluator.load(
        [
            {"apiVersion": "example.com/v1", "kind": "Forbidden", "metadata": {"name": "f"}},
            {"apiVersion": "example.com/v1", "kind": "Note", "metadata": {"name": "n"}},
        ]
    )
    assert [(e["document"], e["message"]) for e in simulation.errors] == [(0, "no spec allowed"), (1, "seen")]
    assert [d.get("kind") for d in simulation.cluster.documents] == ["Note"]


def test_an_unknown_stage_is_refused(registry):
    class Nowhere(LabelSchema):
        name, stage = "Nowhere", "authentication"

    with pytest.raises(ValueError, match="unknown stage"):
        registry.register(Nowhere)


def test_the_built_in_kinds_implement_the_protocol():
    kinds = [kind() for kind in pk.registered()]
    assert {k.name for k in kinds} >= {"MutatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ClusterPolicy"}
    assert all(isinstance(k, pk.PolicyKind) for k in kinds)
