"""The core's cluster index and generic (policy, binding, param) dispatcher, for any policy/binding kind pair."""

from __future__ import annotations

from evaluator.admission.cluster import ClusterIndex
from evaluator.admission.dispatcher import PolicyDispatcher
from evaluator.k8s.restmapping import builtin_mapper

GROUP = "admissionregistration.k8s.io/v1"
RULES = {
    "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
}


def policy(name, kind="ValidatingAdmissionPolicy", **spec):
    return {"apiVersion": GROUP, "kind": kind, "metadata": {"name": name}, "spec": {"matchConstraints": RULES, **spec}}


def binding(name, policy_name, kind="ValidatingAdmissionPolicyBinding", **spec):
    return {"apiVersion": GROUP, "kind": kind, "metadata": {"name": name}, "spec": {"policyName": policy_name, **spec}}


REQUEST = {
    "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
    "resource": {"group": "", "version": "v1", "resource": "configmaps"},
    "operation": "CREATE",
    "namespace": "default",
    "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
}


class Compiled:
    def __init__(self, document):
        self.param_kind = (document.get("spec") or {}).get("paramKind")


def test_hooks_are_per_kind_pair_in_document_order_first_policy_of_a_name_wins():
    first, second, again = policy("a"), policy("b"), policy("a", validations=[])
    mutating = policy("a", kind="MutatingAdmissionPolicy")
    docs = [
        first,
        second,
        again,
        mutating,
        binding("x", "a"),
        binding("y", "b"),
        binding("z", "missing"),
        binding("m", "a", kind="MutatingAdmissionPolicyBinding"),
    ]
    cluster = ClusterIndex(docs, builtin_mapper())
    hooks = cluster.hooks("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
    assert [(p, [b["metadata"]["name"] for b in bs]) for p, bs in hooks] == [(first, ["x"]), (second, ["y"])]
    assert [p for p, _ in cluster.hooks("MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding")] == [mutating]
    orphans = cluster.orphan_bindings("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
    assert [b["metadata"]["name"] for b in orphans] == ["z"]


def test_dispatcher_describes_skips_errors_and_params():
    params_ref = {"name": "limits", "parameterNotFoundAction": "Deny"}
    with_params = policy("p", paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    docs = [
        with_params,
        binding("found", "p", paramRef={"name": "limits"}),
        binding("missing", "p", paramRef={**params_ref, "name": "nope"}),
        binding("elsewhere", "p", matchResources={"namespaceSelector": {"matchLabels": {"team": "x"}}}),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "default"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
    ]
    cluster = ClusterIndex(docs, builtin_mapper())
    dispatcher = PolicyDispatcher(cluster, "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", Compiled)
    ((found_policy, bindings),) = dispatcher.hooks()
    found = dispatcher.resolve(found_policy, bindings, REQUEST)
    assert found.skip is None and found.error is None and found.matched_kind["kind"] == "ConfigMap"
    outcome = {
        b.binding["metadata"]["name"]: (b.skip, b.error, [p["metadata"]["name"] for p in b.params])
        for b in found.bindings
    }
    assert outcome["found"] == (None, None, ["limits"])
    assert outcome["missing"] == (None, "no params found for policy binding with `Deny` parameterNotFoundAction", [])
    assert outcome["elsewhere"][0] and outcome["elsewhere"][2] == []
    assert dispatcher.compiled(found_policy) is dispatcher.compiled(found_policy)


def test_dispatcher_skips_a_policy_that_does_not_match():
    docs = [policy("p"), binding("b", "p")]
    dispatcher = PolicyDispatcher(
        ClusterIndex(docs, builtin_mapper()), "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", Compiled
    )
    ((p, bs),) = dispatcher.hooks()
    found = dispatcher.resolve(p, bs, {**REQUEST, "operation": "DELETE"})
    assert found.skip and not found.bindings
