"""The MutatingAdmissionPolicy Kyverno generates from a MutatingPolicy (pkg/admissionpolicy/builder.go
BuildMutatingAdmissionPolicy*, pkg/controllers/admissionpolicygenerator/generate-map.go), and its own patch on
the same request beside the MutatingPolicy's (`result["kyvernoGeneratedMAPs"]`)."""

from __future__ import annotations

import copy

from evaluator import simulate
from evaluator.policies.kyverno_mpol.map_generation import generate

OWNER = {"apiVersion": "policies.kyverno.io/v1beta1", "kind": "MutatingPolicy", "name": "add-team", "uid": "u-1"}
RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]}
MUTATION = {
    "patchType": "ApplyConfiguration",
    "applyConfiguration": {"expression": "Object{metadata: Object.metadata{labels: {'team': variables.team}}}"},
}
EXCEPTION = {
    "apiVersion": "policies.kyverno.io/v1beta1",
    "kind": "PolicyException",
    "metadata": {"name": "spare-legacy"},
    "spec": {
        "policyRefs": [{"name": "add-team", "kind": "MutatingPolicy"}],
        "matchConditions": [{"name": "legacy", "expression": "object.metadata.name == 'legacy'"}],
    },
}


def _policy(**spec) -> dict:
    return {
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "MutatingPolicy",
        "metadata": {"name": "add-team", "uid": "u-1", "labels": {"reports.kyverno.io/disabled": "yes"}},
        "spec": {
            "matchConstraints": {"resourceRules": [RULE], "namespaceSelector": {"matchLabels": {"tier": "web"}}},
            "matchConditions": [{"name": "not-system", "expression": "object.metadata.namespace != 'kube-system'"}],
            "variables": [{"name": "team", "expression": "'payments'"}],
            "mutations": [MUTATION],
            "autogen": {"mutatingAdmissionPolicy": {"enabled": True}},
            **spec,
        },
    }


def _deployment(name: str = "web") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"tier": "web"}}}


def test_the_generated_map_and_binding_are_kyvernos():
    out = generate(_policy(failurePolicy="Ignore", reinvocationPolicy="IfNeeded"), [EXCEPTION])
    labels = {"app.kubernetes.io/managed-by": "kyverno"}
    assert out["policy"] == {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {
            "name": "mpol-add-team",
            "labels": {**labels, "reports.kyverno.io/disabled": "true"},
            "ownerReferences": [OWNER],
        },
        "spec": {
            # only the resourceRules of matchConstraints are kept (the namespaceSelector is not)
            "matchConstraints": {"resourceRules": [RULE]},
            # the exceptions' conditions negated come first, then the policy's own
            "matchConditions": [
                {"name": "legacy", "expression": "!(object.metadata.name == 'legacy')"},
                {"name": "not-system", "expression": "object.metadata.namespace != 'kube-system'"},
            ],
            "variables": [{"name": "team", "expression": "'payments'"}],
            "mutations": [MUTATION],
            "failurePolicy": "Ignore",
            "reinvocationPolicy": "IfNeeded",
        },
    }
    assert out["binding"] == {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "mpol-add-team-binding", "labels": labels, "ownerReferences": [OWNER]},
        "spec": {"policyName": "mpol-add-team"},
    }


def test_defaults_and_the_api_version_the_cluster_serves():
    policy = _policy()
    policy["metadata"].pop("labels")
    out = generate(policy, [], "1.34")
    assert out["policy"]["apiVersion"] == out["binding"]["apiVersion"] == "admissionregistration.k8s.io/v1beta1"
    assert out["policy"]["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "kyverno"}
    assert "failurePolicy" not in out["policy"]["spec"] and out["policy"]["spec"]["reinvocationPolicy"] == "Never"
    assert generate(policy, [], "1.32")["policy"]["apiVersion"] == "admissionregistration.k8s.io/v1alpha1"
    assert generate(policy, [], "1.31") == {
        "skipped": "skip generating MutatingAdmissionPolicy: requested but no MutatingAdmissionPolicy "
        "API/informers are available."
    }


def test_both_patch_the_object_the_same():
    result = simulate([NAMESPACE, _policy(), EXCEPTION], _deployment())
    [compared] = result["kyvernoGeneratedMAPs"]
    assert compared["policy"] == "add-team" and compared["kind"] == "MutatingPolicy"
    assert compared["generated"]["policy"]["metadata"]["name"] == "mpol-add-team"
    assert compared["allowed"] is True and compared["status"] is None
    assert compared["patch"] == [{"op": "add", "path": "/metadata/labels", "value": {"team": "payments"}}]
    assert compared["policyPatch"] == compared["patch"]
    assert compared["patchedObject"]["metadata"]["labels"] == {"team": "payments"}
    assert compared["agrees"] is True and compared["errors"] == []
    # the MAP is not part of the request's own chain: only the MutatingPolicy changed the object
    assert [phase["phase"] for phase in result["mutationPhases"]] == ["MutatingPolicy"]
    # the exception spares `legacy` from both: neither patches
    [spared] = simulate([NAMESPACE, _policy(), EXCEPTION], _deployment("legacy"))["kyvernoGeneratedMAPs"]
    assert spared["patch"] == spared["policyPatch"] == []
    assert "labels" not in spared["patchedObject"]["metadata"]
    assert spared["agrees"] is True


def test_a_kyverno_only_function_makes_the_map_disagree():
    image = {
        "patchType": "ApplyConfiguration",
        "applyConfiguration": {
            "expression": "Object{metadata: Object.metadata{labels: {'registry': "
            "image(object.spec.template.spec.containers[0].image).registry()}}}"
        },
    }
    result = simulate([NAMESPACE, _policy(mutations=[image])], _deployment())
    [mpol] = [r for r in result["kyverno"] if r["policy"] == "add-team"]
    assert mpol["patch"] == [{"op": "add", "path": "/metadata/labels", "value": {"registry": "index.docker.io"}}]
    [compared] = result["kyvernoGeneratedMAPs"]
    assert compared["agrees"] is False and compared["allowed"] is False
    message = compared["status"]["message"]
    assert "policy 'mpol-add-team' with binding 'mpol-add-team-binding' denied request" in message
    assert "undeclared reference to 'image'" in message


def test_policies_kyverno_does_not_convert_are_skipped_with_its_reason():
    ssa = _policy(evaluation={"useServerSideApply": True})
    assert generate(ssa) == {
        "skipped": "skip generating MutatingAdmissionPolicy: useServerSideApply is enabled, which mutates atomic "
        "fields that a native MutatingAdmissionPolicy rejects."
    }
    pods = _policy()
    pods["spec"]["matchConstraints"] = {
        "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "shop"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    [skipped] = simulate([pods], pod)["kyvernoGeneratedMAPs"]
    assert skipped == {
        "policy": "add-team",
        "kind": "MutatingPolicy",
        "skipped": "skip generating MutatingAdmissionPolicy: pod controllers autogen is enabled.",
    }
    no_variants = copy.deepcopy(pods)
    no_variants["spec"]["autogen"]["podControllers"] = {"controllers": []}
    assert "policy" in generate(no_variants)


def test_nothing_is_generated_without_autogen_nor_for_a_namespaced_policy():
    off = _policy()
    off["spec"].pop("autogen")
    assert simulate([NAMESPACE, off], _deployment())["kyvernoGeneratedMAPs"] == []
    disabled = _policy(autogen={"mutatingAdmissionPolicy": {"enabled": False}})
    assert simulate([NAMESPACE, disabled], _deployment())["kyvernoGeneratedMAPs"] == []
    namespaced = _policy()
    namespaced.update(kind="NamespacedMutatingPolicy", apiVersion="policies.kyverno.io/v1beta1")
    namespaced["metadata"]["namespace"] = "shop"
    result = simulate([NAMESPACE, namespaced], _deployment())
    assert result["kyvernoGeneratedMAPs"] == []
    assert result["kyverno"][0]["patch"]  # the namespaced policy itself still mutates


def test_a_generated_map_the_api_server_refuses_says_why():
    no_constraints = _policy()
    no_constraints["spec"].pop("matchConstraints")
    [compared] = simulate([NAMESPACE, no_constraints], _deployment())["kyvernoGeneratedMAPs"]
    assert compared["generated"]["policy"]["spec"]["matchConstraints"] == {}
    assert compared["errors"] == [
        {
            "severity": "error",
            "kind": "MutatingAdmissionPolicy",
            "name": "mpol-add-team",
            "path": "spec.matchConstraints.resourceRules",
            "text": "spec.matchConstraints.resourceRules: Required value",
        }
    ]
    assert compared["patch"] == []


def test_the_comparison_of_the_first_round_stays_after_a_reinvocation():
    from .test_simulate import REINVOKED

    documents = REINVOKED.replace(
        "  reinvocationPolicy: IfNeeded",
        "  reinvocationPolicy: IfNeeded\n  autogen: {mutatingAdmissionPolicy: {enabled: true}}",
    )
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
    result = simulate(documents, {"operation": "CREATE", "object": configmap})
    assert [p["round"] for p in result["mutationPhases"] if p["phase"] == "MutatingPolicy"] == [0, 1]
    [compared] = result["kyvernoGeneratedMAPs"]
    assert compared["policy"] == "copy-team"
    assert compared["generated"]["policy"]["spec"]["reinvocationPolicy"] == "IfNeeded"
    assert (
        compared["patch"]
        == compared["policyPatch"]
        == [{"op": "add", "path": "/metadata/labels", "value": {"owner": "none"}}]
    )
    assert compared["agrees"] is True
