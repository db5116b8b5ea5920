"""Matching tables: rules, Equivalent conversion, selectors, namespace lookup, exemptions, reasons."""

from __future__ import annotations

import pytest

from evaluator.admission.matching import binding_matches, exempt_reason, match_resources, policy_matches, rule_mismatch
from evaluator.k8s.restmapping import GVR


def request(
    operation="CREATE",
    group="apps",
    version="v1",
    resource="deployments",
    kind="Deployment",
    sub="",
    namespace="default",
    name="web",
    obj=None,
    old=None,
):
    kind_group = "autoscaling" if sub == "scale" else group
    kind_version = "v1" if sub == "scale" else version
    return {
        "operation": operation,
        "kind": {"group": kind_group, "version": kind_version, "kind": "Scale" if sub == "scale" else kind},
        "resource": {"group": group, "version": version, "resource": resource},
        "subResource": sub,
        "namespace": namespace,
        "name": name,
        "object": obj,
        "oldObject": old,
    }


def rule(**overrides):
    base = {
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["deployments"],
        "scope": "*",
    }
    base.update(overrides)
    return base


def criteria(*rules, policy="Equivalent", exclude=(), ns=None, obj=None):
    return {
        "matchPolicy": policy,
        "namespaceSelector": ns if ns is not None else {},
        "objectSelector": obj if obj is not None else {},
        "resourceRules": list(rules),
        "excludeResourceRules": list(exclude),
    }


NAMESPACES = {
    "default": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"env": "prod"}}},
    "bare": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bare"}},
}


@pytest.mark.parametrize(
    "the_rule, req, reason",
    [
        (rule(), request(operation="DELETE"), "operation DELETE not in [CREATE UPDATE]"),
        (rule(apiGroups=[""]), request(), 'apiGroup "apps" not in [""]'),
        (rule(apiVersions=["v1beta1"]), request(), 'apiVersion "v1" not in ["v1beta1"]'),
        (rule(resources=["pods"]), request(), 'resource "deployments" not in [pods]'),
        (rule(resources=["deployments"]), request(sub="status"), 'resource "deployments/status" not in [deployments]'),
        (rule(scope="Cluster"), request(), "scope Cluster does not match a namespaced request"),
        (rule(scope="Namespaced"), request(namespace=""), "scope Namespaced does not match a cluster-scoped request"),
    ],
)
def test_rule_mismatch_reasons(the_rule, req, reason):
    assert rule_mismatch(the_rule, req, GVR.from_dict(req["resource"])) == reason
    result = match_resources(criteria(the_rule, policy="Exact"), req, NAMESPACES)
    assert not result.matched and result.reason == f"no resourceRules matched: {reason}"


@pytest.mark.parametrize(
    "resources, sub, matched",
    [
        (["*"], "", True),
        (["*"], "status", False),
        (["*/*"], "status", True),
        (["*/*"], "", True),  # "*" subresource also matches the main resource (sub == "")
        (["deployments/*"], "scale", True),
        (["deployments/*"], "", True),
        (["pods/*"], "", False),
        (["*/scale"], "scale", True),
        (["*/scale"], "status", False),
        (["deployments", "deployments/status"], "status", True),
    ],
)
def test_resource_wildcards(resources, sub, matched):
    result = match_resources(
        criteria(rule(resources=resources, operations=["*"]), policy="Exact"), request(sub=sub), NAMESPACES
    )
    assert result.matched is matched


def test_operations_wildcard_and_connect():
    assert match_resources(criteria(rule(operations=["*"])), request(operation="CONNECT"), NAMESPACES).matched
    assert not match_resources(criteria(rule()), request(operation="CONNECT"), NAMESPACES).matched


def test_namespaces_are_cluster_scoped_for_rule_scope():
    ns_request = request(
        group="", resource="namespaces", kind="Namespace", namespace="bare", name="bare", obj=NAMESPACES["bare"]
    )
    star = dict(apiGroups=[""], resources=["namespaces"], operations=["*"], apiVersions=["v1"])
    assert match_resources(criteria(rule(scope="Cluster", **star), policy="Exact"), ns_request, NAMESPACES).matched
    assert not match_resources(
        criteria(rule(scope="Namespaced", **star), policy="Exact"), ns_request, NAMESPACES
    ).matched


def test_equivalent_matching_converts_kind_and_resource():
    legacy = rule(apiGroups=["extensions"], apiVersions=["v1beta1"])
    exact = match_resources(criteria(legacy, policy="Exact"), request(), NAMESPACES)
    assert not exact.matched
    equivalent = match_resources(criteria(legacy), request(), NAMESPACES)
    assert equivalent.matched and equivalent.equivalent
    assert equivalent.matched_resource == {"group": "extensions", "version": "v1beta1", "resource": "deployments"}
    assert equivalent.matched_kind == {"group": "extensions", "version": "v1beta1", "kind": "Deployment"}


def test_equivalent_scale_uses_the_subresource_kind():
    legacy = rule(apiGroups=["apps"], apiVersions=["v1beta1"], resources=["deployments/scale"])
    result = match_resources(criteria(legacy), request(sub="scale"), NAMESPACES)
    assert result.matched
    assert result.matched_kind == {"group": "apps", "version": "v1beta1", "kind": "Scale"}


def test_exact_match_is_preferred_over_equivalent():
    result = match_resources(
        criteria(rule(apiGroups=["extensions"], apiVersions=["v1beta1"]), rule()), request(), NAMESPACES
    )
    assert result.matched and not result.equivalent
    assert result.matched_resource == {"group": "apps", "version": "v1", "resource": "deployments"}


def test_resource_names_restrict_exact_and_equivalent_matches():
    named = rule(resourceNames=["other"])
    result = match_resources(criteria(named), request(), NAMESPACES)
    assert not result.matched and 'name "web" not in resourceNames [other]' in result.reason
    legacy = rule(apiGroups=["extensions"], apiVersions=["v1beta1"], resourceNames=["other"])
    assert not match_resources(criteria(legacy), request(), NAMESPACES).matched
    assert match_resources(criteria(rule(resourceNames=["web"])), request(), NAMESPACES).matched


def test_exclusion_wins_including_equivalent_exclusion():
    everything = rule(apiGroups=["*"], apiVersions=["*"], resources=["*"], operations=["*"])
    excluded = match_resources(criteria(everything, exclude=[rule()]), request(), NAMESPACES)
    assert not excluded.matched and excluded.reason == "excluded by excludeResourceRules"
    legacy = rule(apiGroups=["extensions"], apiVersions=["v1beta1"])
    assert not match_resources(criteria(everything, exclude=[legacy]), request(), NAMESPACES).matched
    assert match_resources(criteria(everything, exclude=[legacy], policy="Exact"), request(), NAMESPACES).matched


def test_empty_rules_list_matches_and_empty_rule_does_not():
    assert match_resources(criteria(), request(), NAMESPACES).matched
    assert not match_resources(criteria({}), request(), NAMESPACES).matched


def test_namespace_selector_uses_the_namespace_labels_and_notin_matches_missing_labels():
    prod = criteria(rule(), ns={"matchLabels": {"env": "prod"}})
    assert match_resources(prod, request(namespace="default"), NAMESPACES).matched
    miss = match_resources(prod, request(namespace="bare"), NAMESPACES)
    assert not miss.matched and miss.reason.startswith('namespaceSelector does not match namespace "bare"')
    not_test = criteria(rule(), ns={"matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["test"]}]})
    assert match_resources(not_test, request(namespace="bare"), NAMESPACES).matched


def test_cluster_scoped_requests_always_pass_the_namespace_selector():
    node_rule = rule(apiGroups=[""], resources=["nodes"])
    result = match_resources(
        criteria(node_rule, ns={"matchLabels": {"never": "x"}}),
        request(group="", resource="nodes", kind="Node", namespace=""),
        {},
    )
    assert result.matched


def test_namespace_requests_use_their_own_labels_on_create_and_stored_labels_on_delete():
    ns_rule = rule(apiGroups=[""], resources=["namespaces"], operations=["*"])
    selector = criteria(ns_rule, ns={"matchLabels": {"env": "prod"}})
    new_ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bare", "labels": {"env": "prod"}}}
    create = request(group="", resource="namespaces", kind="Namespace", namespace="bare", name="bare", obj=new_ns)
    assert match_resources(selector, create, NAMESPACES).matched
    delete = dict(create, operation="DELETE", object=None, oldObject=new_ns)
    assert not match_resources(selector, delete, NAMESPACES).matched  # stored "bare" has no labels


def test_missing_namespace_is_a_404_error_only_when_rules_match():
    selector = criteria(rule(), ns={"matchLabels": {"env": "prod"}})
    result = match_resources(selector, request(namespace="ghost"), NAMESPACES)
    assert not result.matched and result.error == 'namespaces "ghost" not found' and result.error_code == 404
    other = match_resources(
        criteria(rule(resources=["pods"]), ns={"matchLabels": {"env": "prod"}}), request(namespace="ghost"), NAMESPACES
    )
    assert other.error is None and not other.matched


def test_invalid_selector_errors_only_when_rules_match():
    bad = {"matchExpressions": [{"key": "k", "operator": "In", "values": ["bad value"]}]}
    hit = match_resources(criteria(rule(), obj=bad), request(), NAMESPACES)
    assert (
        hit.error.startswith("Internal error occurred: values[0][bad value]: Invalid value") and hit.error_code == 500
    )
    miss = match_resources(criteria(rule(resources=["pods"]), obj=bad), request(), NAMESPACES)
    assert miss.error is None


def test_object_selector_matches_new_or_old_object():
    selector = criteria(rule(), obj={"matchLabels": {"team": "a"}})
    labelled = {"metadata": {"labels": {"team": "a"}}}
    unlabelled = {"metadata": {}}
    assert match_resources(selector, request(obj=labelled), NAMESPACES).matched
    assert match_resources(selector, request(operation="UPDATE", obj=unlabelled, old=labelled), NAMESPACES).matched
    result = match_resources(selector, request(obj=unlabelled), NAMESPACES)
    assert not result.matched and "objectSelector" in result.reason
    assert not match_resources(selector, request(obj=None), NAMESPACES).matched


def test_policy_without_match_constraints_is_an_error_and_binding_without_match_resources_matches():
    result = policy_matches({"spec": {}}, request(), NAMESPACES)
    assert result.error == "policy contained no match constraints, a required field"
    assert binding_matches({"spec": {"policyName": "p"}}, request(), NAMESPACES).matched
    narrowed = {"spec": {"matchResources": criteria(rule(), ns={"matchLabels": {"env": "dev"}})}}
    assert not binding_matches(narrowed, request(), NAMESPACES).matched


def test_binding_match_keeps_the_request_kind():
    legacy = {"spec": {"matchResources": criteria(rule(apiGroups=["extensions"], apiVersions=["v1beta1"]))}}
    result = binding_matches(legacy, request(), NAMESPACES)
    assert result.matched and result.matched_kind["group"] == "apps"


@pytest.mark.parametrize(
    "group, resource, exempt",
    [
        ("admissionregistration.k8s.io", "validatingadmissionpolicies", True),
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings", True),
        ("admissionregistration.k8s.io", "mutatingadmissionpolicies", True),
        ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings", True),
        ("authentication.k8s.io", "tokenreviews", True),
        ("authorization.k8s.io", "selfsubjectaccessreviews", True),
        ("authorization.k8s.io", "localsubjectaccessreviews", True),
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations", False),
        ("apps", "deployments", False),
    ],
)
def test_exempt_resources(group, resource, exempt):
    reason = exempt_reason(request(group=group, resource=resource))
    assert (reason is not None) is exempt


def test_compiled_criteria_are_cached_by_identity_and_reusable():
    from evaluator.admission.matching import CompiledCriteria, compile_criteria

    crit = criteria(rule(), ns={"matchLabels": {"env": "prod"}})
    compiled = compile_criteria(crit)
    assert compile_criteria(crit) is compiled
    assert compile_criteria(criteria(rule())) is not compiled
    assert isinstance(compiled, CompiledCriteria)
    assert compiled.match(request(), NAMESPACES).matched
    assert not compiled.match(request(namespace="bare"), NAMESPACES).matched


def test_namespace_lookup_may_be_a_callable_and_reasons_list_every_rule():
    seen = []

    def lookup(name):
        seen.append(name)
        return NAMESPACES.get(name)

    crit = criteria(rule(), ns={"matchLabels": {"env": "prod"}})
    assert match_resources(crit, request(), lookup).matched and seen == ["default"]
    two = match_resources(
        criteria(rule(resources=["pods"]), rule(operations=["DELETE"]), policy="Exact"), request(), NAMESPACES
    )
    assert two.reason == (
        'no resourceRules matched: [0] resource "deployments" not in [pods]; [1] operation CREATE not in [DELETE]'
    )


def test_namespace_selector_reason_shows_the_labels_seen():
    result = match_resources(criteria(rule(), ns={"matchLabels": {"env": "dev"}}), request(), NAMESPACES)
    assert result.reason == 'namespaceSelector does not match namespace "default" (labels {"env": "prod"})'
