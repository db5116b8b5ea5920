"""Param resolution: paramKind scope, paramRef name/namespace/selector, parameterNotFoundAction."""

from __future__ import annotations

from evaluator.simulation import simulate

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "limits.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Cluster",
        "names": {"kind": "Limit", "plural": "limits", "singular": "limit", "listKind": "LimitList"},
        "versions": [
            {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}
        ],
    },
}


def limit(name, maximum, labels=None):
    return {
        "apiVersion": "example.com/v1",
        "kind": "Limit",
        "metadata": {"name": name, **({"labels": labels} if labels else {})},
        "max": maximum,
    }


def cm_policy(vap, **spec):
    return vap.policy(
        validations=[
            {
                "expression": "size(object.data) <= int(params.data.max)",
                "messageExpression": "'too many keys for ' + params.metadata.name",
            }
        ],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        **spec,
    )


def request(vap, keys=3, namespace="default"):
    return vap.create(vap.configmap(namespace=namespace, data={str(i): "x" for i in range(keys)}))


def test_namespaced_param_defaults_to_request_namespace(vap):
    docs = [
        cm_policy(vap),
        vap.binding(paramRef={"name": "limits"}),
        vap.namespace(),
        vap.namespace("other"),
        vap.configmap("limits", "default", {"max": "2"}),
        vap.configmap("limits", "other", {"max": "5"}),
    ]
    result = simulate(docs, request(vap))
    assert result["status"]["message"].endswith("denied request: too many keys for limits")
    assert [r["param"] for r in result["policies"]] == ["default/limits"]
    assert simulate(docs, request(vap, namespace="other"))["allowed"] is True


def test_param_namespace_overrides(vap):
    docs = [
        cm_policy(vap),
        vap.binding(paramRef={"name": "limits", "namespace": "other"}),
        vap.namespace(),
        vap.namespace("other"),
        vap.configmap("limits", "other", {"max": "5"}),
    ]
    result = simulate(docs, request(vap))
    assert result["allowed"] is True and result["policies"][0]["param"] == "other/limits"


def test_missing_param_deny_and_allow(vap):
    denied = simulate([cm_policy(vap), vap.binding(paramRef={"name": "nope"}), vap.namespace()], request(vap))
    assert denied["status"]["message"].endswith(
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: "
        "no params found for policy binding with `Deny` parameterNotFoundAction"
    )
    allowed = simulate(
        [cm_policy(vap), vap.binding(paramRef={"name": "nope", "parameterNotFoundAction": "Allow"}), vap.namespace()],
        request(vap),
    )
    assert allowed["allowed"] is True
    assert allowed["policies"][0]["outcome"] == "skipped"


def test_selector_evaluates_once_per_param(vap):
    docs = [
        cm_policy(vap),
        vap.binding(paramRef={"selector": {"matchLabels": {"use": "yes"}}}),
        vap.namespace(),
        vap.configmap("a", "default", {"max": "5"}, labels={"use": "yes"}),
        vap.configmap("b", "default", {"max": "1"}, labels={"use": "yes"}),
        vap.configmap("c", "default", {"max": "0"}, labels={"use": "no"}),
    ]
    result = simulate(docs, request(vap, keys=2))
    assert sorted(r["param"] for r in result["policies"]) == ["default/a", "default/b"]
    assert [r["outcome"] for r in result["policies"]] == ["admitted", "denied"]
    assert result["status"]["message"].endswith("too many keys for b")


def test_cluster_scoped_param_kind_from_crd(vap):
    policy = vap.policy(
        validations=[{"expression": "size(object.data) <= params.max"}],
        paramKind={"apiVersion": "example.com/v1", "kind": "Limit"},
    )
    docs = [CRD, policy, vap.binding(paramRef={"name": "small"}), vap.namespace(), limit("small", 1)]
    result = simulate(docs, request(vap, keys=2))
    assert result["allowed"] is False and result["policies"][0]["param"] == "/small"


def test_namespace_on_cluster_scoped_param_ref_is_a_binding_error(vap):
    policy = vap.policy(
        validations=[{"expression": "true"}], paramKind={"apiVersion": "example.com/v1", "kind": "Limit"}
    )
    docs = [
        CRD,
        policy,
        vap.binding(paramRef={"name": "small", "namespace": "default"}),
        vap.namespace(),
        limit("small", 1),
    ]
    result = simulate(docs, request(vap), api_validation="report")
    assert result["status"]["message"].endswith(
        "failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
    )


def test_namespaced_param_for_cluster_scoped_request(vap):
    policy = vap.policy(
        validations=[{"expression": "true"}],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConstraints={
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["namespaces"]}
            ]
        },
    )
    result = simulate([policy, vap.binding(paramRef={"name": "x"})], vap.create(vap.namespace("new")))
    assert result["status"]["message"].endswith(
        "failed to configure binding: cannot use namespaced paramRef in "
        "policy binding that matches cluster-scoped resources"
    )


def test_unknown_param_kind_is_a_policy_configuration_error(vap):
    policy = vap.policy(
        validations=[{"expression": "true"}], paramKind={"apiVersion": "example.com/v1", "kind": "Nope"}
    )
    result = simulate([policy, vap.binding(paramRef={"name": "x"}), vap.namespace()], request(vap))
    assert result["status"]["message"].endswith(
        "ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: "
        "failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'"
    )


def test_param_kind_without_param_ref_binds_null(vap):
    policy = vap.policy(
        validations=[{"expression": "params == null"}], paramKind={"apiVersion": "v1", "kind": "ConfigMap"}
    )
    result = simulate([policy, vap.binding(), vap.namespace()], request(vap))
    assert result["allowed"] is True and result["policies"][0]["param"] is None
