"""reinvocationPolicy: IfNeeded for mutating webhooks, and its interplay with MutatingAdmissionPolicies: the API
server runs the mutating chain (policies, then webhooks) and, if anything changed the object, once more; on
that second round only IfNeeded webhooks and policies that ran before are called again, and only if the
object changed after them (admission/reinvocation.go, plugin/webhook/mutating/dispatcher.go,
plugin/policy/mutating/dispatcher.go)."""

from __future__ import annotations

import json

from evaluator import simulate


def _webhook(name: str, policy: str | None = None) -> dict:
    hook = {
        "name": name,
        "admissionReviewVersions": ["v1"],
        "sideEffects": "None",
        "clientConfig": {"url": f"https://{name}/mutate"},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
    }
    if policy:
        hook["reinvocationPolicy"] = policy
    return hook


def _mock(name: str, patch: list[dict]) -> dict:
    return {
        "apiVersion": "playground.admission/v1alpha1",
        "kind": "WebhookMock",
        "metadata": {"name": name},
        "spec": {"response": "patch", "patch": patch},
    }


def _config(*hooks: dict) -> dict:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "hooks"},
        "webhooks": list(hooks),
    }


# a.example counts its calls in a finalizer list (it changes the object every time it is called);
# b.example adds a label once (JSON Patch `add` of the same value changes nothing the second time).
COUNTER = _mock("a.example", [{"op": "add", "path": "/metadata/finalizers/-", "value": "a"}])
LABELLER = _mock("b.example", [{"op": "add", "path": "/metadata/labels", "value": {"team": "x"}}])
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "c", "namespace": "default", "finalizers": []},
}
REQUEST = {"operation": "CREATE", "object": CONFIGMAP, "userInfo": {"username": "alice"}}


def _calls(result: dict) -> list[tuple[str, int]]:
    return [(d["webhook"], d["round"]) for d in result["mutatingWebhooks"] if d["result"] != "skipped"]


def test_an_if_needed_webhook_is_called_again_when_a_later_webhook_changed_the_object():
    docs = [_config(_webhook("a.example", "IfNeeded"), _webhook("b.example")), COUNTER, LABELLER]
    result = simulate(docs, REQUEST)
    assert result["allowed"] is True
    assert _calls(result) == [("a.example", 0), ("b.example", 0), ("a.example", 1)]
    assert result["mutatingWebhooks"][2]["reinvocationPolicy"] == "IfNeeded"
    annotations = result["auditAnnotations"]
    assert json.loads(annotations["mutation.webhook.admission.k8s.io/round_1_index_0"]) == {
        "configuration": "hooks",
        "webhook": "a.example",
        "mutated": True,
    }
    # b.example (Never) is not called again although a.example changed the object after it
    assert "mutation.webhook.admission.k8s.io/round_1_index_1" not in annotations


def test_never_is_the_default_and_nothing_is_called_twice():
    docs = [_config(_webhook("a.example"), _webhook("b.example")), COUNTER, LABELLER]
    assert _calls(simulate(docs, REQUEST)) == [("a.example", 0), ("b.example", 0)]


def test_no_reinvocation_when_nothing_changed_after_the_webhook():
    # a.example runs last: its own change does not make it run again
    docs = [_config(_webhook("b.example"), _webhook("a.example", "IfNeeded")), COUNTER, LABELLER]
    assert _calls(simulate(docs, REQUEST)) == [("b.example", 0), ("a.example", 0)]


def _policy(name: str, expression: str, reinvocation: str) -> list[dict]:
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "reinvocationPolicy": reinvocation,
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE"],
                            "resources": ["configmaps"],
                        }
                    ]
                },
                "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": name + "-binding"},
            "spec": {"policyName": name},
        },
    ]


# The policy copies the `team` label (set by the webhook, after the policies) into an annotation.
COPY_TEAM = "Object{metadata: Object.metadata{annotations: {'team': object.metadata.?labels.?team.orValue('none')}}}"


def test_a_policy_is_reinvoked_after_the_webhooks_changed_the_object():
    docs = [*_policy("copy-team", COPY_TEAM, "IfNeeded"), _config(_webhook("b.example")), LABELLER]
    result = simulate(docs, REQUEST)
    assert result["allowed"] is True
    policy_passes = [(p["policy"], p["pass"], p["outcome"]) for p in result["policies"] if p.get("pass")]
    assert policy_passes == [("copy-team", 1, "mutated"), ("copy-team", 2, "mutated")]
    assert result["mutation"]["reinvoked"] == ["copy-team|copy-team-binding|"]
    final = result["mutation"]["patchedObject"]
    assert final["metadata"]["annotations"] == {"team": "x"}
    assert final["metadata"]["labels"] == {"team": "x"}


def test_a_never_policy_keeps_what_it_saw_first():
    docs = [*_policy("copy-team", COPY_TEAM, "Never"), _config(_webhook("b.example")), LABELLER]
    result = simulate(docs, REQUEST)
    assert [p["pass"] for p in result["policies"] if p.get("pass")] == [1]
    assert result["mutation"]["patchedObject"]["metadata"]["annotations"] == {"team": "none"}


def test_a_policy_change_on_reinvocation_reinvokes_an_if_needed_webhook():
    # round 0: policy (team none), a.example, b.example (label) -> reinvoke; round 1: the policy changes
    # the annotation, so a.example (IfNeeded, called before) is called again
    docs = [
        *_policy("copy-team", COPY_TEAM, "IfNeeded"),
        _config(_webhook("a.example", "IfNeeded"), _webhook("b.example")),
        COUNTER,
        LABELLER,
    ]
    result = simulate(docs, REQUEST)
    assert _calls(result) == [("a.example", 0), ("b.example", 0), ("a.example", 1)]
