"""RBAC rule semantics over Role/ClusterRole/RoleBinding/ClusterRoleBinding documents."""

from __future__ import annotations

import pytest

from evaluator.authz import CachingAuthorizer, RBACAuthorizer
from evaluator.authz.rbac import Attributes, aggregate, effective_groups

RBAC = "rbac.authorization.k8s.io/v1"


def role(name, rules, namespace=None):
    kind = "Role" if namespace else "ClusterRole"
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": RBAC, "kind": kind, "metadata": meta, "rules": rules}


def binding(name, role_kind, role_name, subjects, namespace=None):
    kind = "RoleBinding" if namespace else "ClusterRoleBinding"
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": RBAC,
        "kind": kind,
        "metadata": meta,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role_name},
        "subjects": subjects,
    }


def attrs(user="alice", groups=(), **kw):
    return Attributes(user=user, groups=tuple(effective_groups(user, groups)), **kw)


DOCS = [
    role("pod-reader", [{"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list"]}], "dev"),
    binding("read-pods", "Role", "pod-reader", [{"kind": "User", "name": "alice"}], "dev"),
    role("deploy-admin", [{"apiGroups": ["apps"], "resources": ["*"], "verbs": ["*"]}]),
    binding("ops", "ClusterRole", "deploy-admin", [{"kind": "Group", "name": "ops"}]),
    role(
        "one-cm", [{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["settings"], "verbs": ["update"]}]
    ),
    binding("bob-cm", "ClusterRole", "one-cm", [{"kind": "User", "name": "bob"}], "dev"),
    role("scaler", [{"apiGroups": ["apps"], "resources": ["*/scale"], "verbs": ["update"]}]),
    binding(
        "sa-scaler", "ClusterRole", "scaler", [{"kind": "ServiceAccount", "name": "hpa", "namespace": "kube-system"}]
    ),
    role("healthz", [{"nonResourceURLs": ["/healthz", "/metrics/*"], "verbs": ["get"]}]),
    binding("all-healthz", "ClusterRole", "healthz", [{"kind": "Group", "name": "system:authenticated"}]),
    role("ns-sa", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}], "dev"),
    binding("dev-sas", "Role", "ns-sa", [{"kind": "Group", "name": "system:serviceaccounts:dev"}], "dev"),
    binding("local-sa", "Role", "ns-sa", [{"kind": "ServiceAccount", "name": "builder"}], "dev"),
    binding("dangling", "ClusterRole", "missing", [{"kind": "User", "name": "carol"}]),
]


@pytest.fixture(scope="module")
def rbac():
    return RBACAuthorizer(DOCS)


def test_role_binding_allows_in_its_namespace_only(rbac):
    decision, reason = rbac.authorize(attrs(verb="get", resource="pods", namespace="dev"))
    assert decision == "allow"
    assert reason == 'RBAC: allowed by RoleBinding "read-pods/dev" of Role "pod-reader" to User "alice"'
    assert rbac.authorize(attrs(verb="get", resource="pods", namespace="prod")) == ("no-opinion", "")
    assert rbac.authorize(attrs(verb="delete", resource="pods", namespace="dev"))[0] == "no-opinion"


def test_subresource_must_be_named(rbac):
    assert rbac.authorize(attrs(verb="get", resource="pods", subresource="log", namespace="dev"))[0] == "allow"
    assert rbac.authorize(attrs(verb="get", resource="pods", subresource="exec", namespace="dev"))[0] == "no-opinion"


def test_wildcards_and_groups(rbac):
    decision, reason = rbac.authorize(attrs("dave", ("ops",), verb="delete", group="apps", resource="deployments"))
    assert decision == "allow" and reason.startswith('RBAC: allowed by ClusterRoleBinding "ops" of ClusterRole')
    assert rbac.authorize(attrs("dave", ("ops",), verb="delete", group="", resource="pods"))[0] == "no-opinion"


def test_resource_names(rbac):
    assert (
        rbac.authorize(attrs("bob", verb="update", resource="configmaps", namespace="dev", name="settings"))[0]
        == "allow"
    )
    assert (
        rbac.authorize(attrs("bob", verb="update", resource="configmaps", namespace="dev", name="other"))[0]
        == "no-opinion"
    )


def test_star_slash_subresource_and_service_account(rbac):
    sa = "system:serviceaccount:kube-system:hpa"
    decision, reason = rbac.authorize(
        attrs(sa, verb="update", group="apps", resource="deployments", subresource="scale", namespace="dev")
    )
    assert decision == "allow" and reason.endswith('to ServiceAccount "hpa/kube-system"')
    assert (
        rbac.authorize(attrs(sa, verb="update", group="apps", resource="deployments", namespace="dev"))[0]
        == "no-opinion"
    )


def test_service_account_groups_and_local_subjects(rbac):
    assert (
        rbac.authorize(attrs("system:serviceaccount:dev:any", verb="get", resource="secrets", namespace="dev"))[0]
        == "allow"
    )
    decision, reason = rbac.authorize(
        attrs("system:serviceaccount:dev:builder", (), verb="get", resource="secrets", namespace="dev")
    )
    assert decision == "allow"
    assert effective_groups("system:serviceaccount:dev:x", []) == [
        "system:serviceaccounts",
        "system:serviceaccounts:dev",
        "system:authenticated",
    ]


def test_non_resource_urls(rbac):
    assert rbac.authorize(attrs(verb="get", path="/healthz"))[0] == "allow"
    assert rbac.authorize(attrs(verb="get", path="/metrics/cadvisor"))[0] == "allow"
    assert rbac.authorize(attrs(verb="get", path="/api"))[0] == "no-opinion"
    assert rbac.authorize(attrs(verb="post", path="/healthz"))[0] == "no-opinion"


def test_missing_role_is_reported_in_the_refusal(rbac):
    assert rbac.authorize(attrs("carol", verb="get", resource="pods")) == (
        "no-opinion",
        'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found',
    )


def test_system_masters_is_always_allowed(rbac):
    assert rbac.authorize(attrs("root", ("system:masters",), verb="delete", resource="nodes"))[0] == "allow"


def test_aggregate_text():
    assert aggregate(["a"]) == "a"
    assert aggregate(["a", "b", "a"]) == "[a, b]"


def test_caching_authorizer_checks_each_attribute_set_once(rbac):
    calls = []

    def check(request):
        calls.append(request)
        return rbac.check(request)

    cached = CachingAuthorizer(check)
    request = {"user": "alice", "groups": [], "verb": "get", "resource": "pods", "namespace": "dev"}
    first, second = cached(request), cached(dict(request))
    assert first is second and len(calls) == 1
    assert first.decision == "allow"


def test_bootstrap_cluster_admin_for_the_default_user():
    rbac = RBACAuthorizer([])
    decision, reason = rbac.authorize(
        attrs("kubernetes-admin", ("kubeadm:cluster-admins",), verb="delete", resource="nodes")
    )
    assert decision == "allow"
    assert reason == (
        'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" '
        'to Group "kubeadm:cluster-admins"'
    )
    assert (
        RBACAuthorizer([], bootstrap=False).authorize(
            attrs("kubernetes-admin", ("kubeadm:cluster-admins",), verb="get", resource="pods")
        )[0]
        == "no-opinion"
    )


def test_rbac_in_cel_through_simulate():
    from evaluator.simulation import simulate

    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
                ]
            },
            "validations": [
                {
                    "expression": "authorizer.group('').resource('pods').namespace('dev').check('get').allowed()",
                    "messageExpression": "'no pod access for ' + request.userInfo.username",
                }
            ],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": ["Deny"]},
    }
    request = {
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "dev"}},
        "userInfo": {"username": "alice", "groups": []},
    }
    assert simulate([policy, binding, *DOCS], request)["allowed"] is True
    request["userInfo"]["username"] = "mallory"
    denied = simulate([policy, binding, *DOCS], request)
    assert denied["status"]["message"].endswith("denied request: no pod access for mallory")
