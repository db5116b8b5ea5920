"""The ValidatingAdmissionPolicy Kyverno generates from a ValidatingPolicy (chainsaw
generate-validating-admission-policy/validatingpolicy)."""

from evaluator import simulate
from evaluator.policies.kyverno_vpol.vap_generation import generate

from .helpers import create, deployment, policy

LABELS = [{"expression": "variables.environment == true", "message": "Deployment labels must be env=prod"}]
ENV = [{"name": "environment", "expression": "has(object.metadata.labels) && object.metadata.labels['env'] == 'prod'"}]


def _policy(**spec):
    p = policy(LABELS, name="check-deployment-labels", version="v1beta1", resources=("deployments",), group="apps")
    p["spec"].update(variables=ENV, autogen={"validatingAdmissionPolicy": {"enabled": True}}, **spec)
    return p


EXCEPTION = {
    "apiVersion": "policies.kyverno.io/v1alpha1",
    "kind": "PolicyException",
    "metadata": {"name": "check-deployment-name"},
    "spec": {
        "policyRefs": [{"name": "check-deployment-labels", "kind": "ValidatingPolicy"}],
        "matchConditions": [{"name": "check-name", "expression": "object.metadata.name == 'skipped-deployment'"}],
        "images": ["nginx:*"],
    },
}


def test_generated_vap_and_binding_with_a_cel_exception():
    p = _policy(validationActions=["Deny"])
    out = generate(p, [EXCEPTION])
    vap, binding = out["policy"], out["binding"]
    assert vap["metadata"]["name"] == "vpol-check-deployment-labels"
    assert vap["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "kyverno"}
    assert vap["metadata"]["ownerReferences"][0]["kind"] == "ValidatingPolicy"
    assert vap["spec"]["matchConstraints"] == p["spec"]["matchConstraints"]
    assert vap["spec"]["matchConditions"] == [
        {"name": "check-name", "expression": "!(object.metadata.name == 'skipped-deployment')"}
    ]
    assert vap["spec"]["variables"] == ENV + [{"name": "allowedImages", "expression": "['nginx:*']"}]
    assert binding["metadata"]["name"] == "vpol-check-deployment-labels-binding"
    assert binding["spec"] == {"policyName": "vpol-check-deployment-labels", "validationActions": ["Deny"]}


def test_missing_actions_bind_with_deny_and_skips_say_why():
    assert generate(_policy())["binding"]["spec"]["validationActions"] == ["Deny"]
    off = _policy()
    off["spec"].pop("autogen")
    assert generate(off) == {"skipped": "skip generating ValidatingAdmissionPolicy: not enabled."}
    pods = policy(LABELS, autogen={"validatingAdmissionPolicy": {"enabled": True}})
    assert generate(pods) == {
        "skipped": "skip generating ValidatingAdmissionPolicy: pod controllers autogen is enabled."
    }
    pods["spec"]["autogen"]["podControllers"] = {"controllers": []}
    assert "policy" in generate(pods)


def test_simulate_compares_the_generated_vap_with_the_policy():
    result = simulate([_policy(validationActions=["Deny"])], create(deployment(labels={"env": "dev"})))
    [compared] = result["kyvernoGeneratedVAPs"]
    assert compared["policy"] == "check-deployment-labels" and compared["allowed"] is False
    assert "Deployment labels must be env=prod" in compared["status"]["message"]
    assert result["allowed"] is False  # the ValidatingPolicy's own webhook denies too
