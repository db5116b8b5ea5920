"""The mutating chain in the API server's order: MutatingAdmissionPolicy, then the mutating webhooks (Kyverno's
mutate rules), reinvocation per reinvocationPolicy, then validation of the final object; `mutationPhases`
says which phase changed what, and the response's patch holds every phase's change."""

from __future__ import annotations

import base64
import copy
import json

import jsonpatch

from evaluator.simulation import simulate

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}

# sets annotation mapped=yes once the Pod has a team label, mapped=no before
MAPPED = (
    "Object{metadata: Object.metadata{annotations: {'mapped': "
    "has(object.metadata.labels) && 'team' in object.metadata.labels ? 'yes' : 'no'}}}"
)


def map_documents(reinvocation: str) -> list[dict]:
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "mapper"},
            "spec": {
                "reinvocationPolicy": reinvocation,
                "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": MAPPED}}],
                "matchConstraints": {
                    "resourceRules": [
                        {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                    ]
                },
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "mapper"},
            "spec": {"policyName": "mapper"},
        },
    ]


def kyverno_policy() -> dict:
    pods = {"any": [{"resources": {"kinds": ["Pod"]}}]}
    return {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "team"},
        "spec": {
            "rules": [
                {
                    "name": "default-team",
                    "match": pods,
                    "mutate": {"patchStrategicMerge": {"metadata": {"labels": {"+(team)": "core"}}}},
                },
                {
                    "name": "mark-seen",
                    "match": pods,
                    "preconditions": {
                        "all": [
                            {
                                "key": "{{ request.object.metadata.annotations.mapped || '' }}",
                                "operator": "Equals",
                                "value": "yes",
                            }
                        ]
                    },
                    "mutate": {"patchStrategicMerge": {"metadata": {"labels": {"seen": "yes"}}}},
                },
                {
                    "name": "require-seen",
                    "match": pods,
                    "validate": {
                        "failureAction": "Enforce",
                        "message": "the Pod was not seen",
                        "pattern": {"metadata": {"labels": {"seen": "yes"}}},
                    },
                },
            ]
        },
    }


def run(reinvocation: str) -> dict:
    request = {"operation": "CREATE", "object": copy.deepcopy(POD), "namespace": "default"}
    return simulate([*map_documents(reinvocation), kyverno_policy()], request, defaulting=False)


def phases(result: dict) -> list[tuple]:
    return [(p["phase"], p["round"], p["policy"]) for p in result["mutationPhases"]]


def test_if_needed_reinvokes_the_policy_and_then_kyverno_and_validation_sees_the_final_object():
    result = run("IfNeeded")
    assert phases(result) == [
        ("MutatingAdmissionPolicy", 0, "mapper"),
        ("KyvernoMutate", 0, "team"),
        ("MutatingAdmissionPolicy", 1, "mapper"),
        ("KyvernoMutate", 1, "team"),
    ]
    first_map, first_kyverno, second_map, second_kyverno = result["mutationPhases"]
    assert first_map["patch"] == [{"op": "add", "path": "/metadata/annotations", "value": {"mapped": "no"}}]
    assert first_kyverno["rules"] == ["default-team"]
    assert second_map["patch"] == [{"op": "replace", "path": "/metadata/annotations/mapped", "value": "yes"}]
    assert second_kyverno["rules"] == ["mark-seen"]
    assert second_kyverno["patch"] == [{"op": "add", "path": "/metadata/labels/seen", "value": "yes"}]
    # Kyverno's validate rule sees the object after the whole chain
    assert result["allowed"] is True
    assert [(r["rule"], r["result"]) for r in result["kyverno"][0]["rules"]] == [("require-seen", "pass")]
    mutation = result["kyvernoMutation"]
    assert mutation["round"] == 1
    assert [m["rule"] for m in mutation["firstRound"]["mutations"] if m["result"] == "pass"] == ["default-team"]
    # the response's patch turns the request's object into the final one, every phase included
    patch = json.loads(base64.b64decode(result["response"]["response"]["patch"]))
    final = jsonpatch.apply_patch(POD, patch)
    assert final["metadata"]["labels"] == {"team": "core", "seen": "yes"}
    assert final["metadata"]["annotations"] == {"mapped": "yes"}


def test_never_leaves_the_policy_alone_so_kyverno_is_not_called_again_and_validation_denies():
    result = run("Never")
    assert phases(result) == [("MutatingAdmissionPolicy", 0, "mapper"), ("KyvernoMutate", 0, "team")]
    assert result["allowed"] is False
    assert "the Pod was not seen" in result["status"]["message"]
    assert result["kyvernoMutation"]["round"] == 0
    assert "firstRound" not in result["kyvernoMutation"]


def test_kyverno_alone_reinvokes_nothing_and_a_request_without_mutation_has_no_phases():
    request = {"operation": "CREATE", "object": copy.deepcopy(POD), "namespace": "default"}
    result = simulate([kyverno_policy()], request, defaulting=False)
    assert phases(result) == [("KyvernoMutate", 0, "team")]
    assert result["kyvernoMutation"]["round"] == 0
    unrelated = simulate([], request, defaulting=False)
    assert unrelated["mutationPhases"] == []
    assert "patch" not in unrelated["response"]["response"]


def test_a_mocked_webhook_patch_is_a_phase_and_in_the_response_patch():
    webhook = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "hooks"},
        "webhooks": [
            {
                "name": "add.example.com",
                "clientConfig": {"url": "https://example.com/add"},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
            }
        ],
    }
    mock = {
        "apiVersion": "playground.admission/v1alpha1",
        "kind": "WebhookMock",
        "metadata": {"name": "add.example.com"},
        "spec": {"response": "patch", "patch": [{"op": "add", "path": "/metadata/labels", "value": {"hooked": "yes"}}]},
    }
    request = {"operation": "CREATE", "object": copy.deepcopy(POD), "namespace": "default"}
    result = simulate([webhook, mock], request, defaulting=False)
    assert phases(result) == [("MutatingWebhook", 0, "add.example.com")]
    patch = json.loads(base64.b64decode(result["response"]["response"]["patch"]))
    assert jsonpatch.apply_patch(POD, patch)["metadata"]["labels"] == {"hooked": "yes"}
