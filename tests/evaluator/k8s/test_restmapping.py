"""REST mapping lookups: kinds, resources, scope, subresources, equivalents, CRDs."""

from __future__ import annotations

import pytest

from evaluator.k8s.restmapping import GVK, GVR, RESTMapper, builtin_mapper, guess_resource, parse_api_version


@pytest.mark.parametrize(
    "api_version, kind, resource, namespaced",
    [
        ("v1", "Pod", "pods", True),
        ("v1", "Namespace", "namespaces", False),
        ("v1", "ConfigMap", "configmaps", True),
        ("v1", "Node", "nodes", False),
        ("apps/v1", "Deployment", "deployments", True),
        ("batch/v1", "CronJob", "cronjobs", True),
        ("networking.k8s.io/v1", "Ingress", "ingresses", True),
        ("networking.k8s.io/v1", "IngressClass", "ingressclasses", False),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", False),
        ("rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings", True),
        ("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", True),
        ("storage.k8s.io/v1", "StorageClass", "storageclasses", False),
        ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", False),
        (
            "admissionregistration.k8s.io/v1alpha1",
            "MutatingAdmissionPolicyBinding",
            "mutatingadmissionpolicybindings",
            False,
        ),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions", False),
        ("autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", True),
        ("autoscaling/v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", True),
        ("coordination.k8s.io/v1", "Lease", "leases", True),
        ("discovery.k8s.io/v1", "EndpointSlice", "endpointslices", True),
        ("events.k8s.io/v1", "Event", "events", True),
        ("certificates.k8s.io/v1", "CertificateSigningRequest", "certificatesigningrequests", False),
        ("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", False),
        ("node.k8s.io/v1", "RuntimeClass", "runtimeclasses", False),
        ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "flowschemas", False),
        ("resource.k8s.io/v1", "ResourceClaim", "resourceclaims", True),
        ("extensions/v1beta1", "Deployment", "deployments", True),
    ],
)
def test_builtin_kinds(api_version, kind, resource, namespaced):
    info = builtin_mapper().resource_for(api_version, kind)
    assert info is not None
    assert info.gvr.resource == resource
    assert info.namespaced is namespaced
    assert info.scope == ("Namespaced" if namespaced else "Cluster")


@pytest.mark.parametrize(
    "gvr, sub, kind",
    [
        (GVR("apps", "v1", "deployments"), "scale", GVK("autoscaling", "v1", "Scale")),
        (GVR("apps", "v1beta2", "deployments"), "scale", GVK("apps", "v1beta2", "Scale")),
        (GVR("extensions", "v1beta1", "deployments"), "scale", GVK("extensions", "v1beta1", "Scale")),
        (GVR("", "v1", "pods"), "eviction", GVK("policy", "v1", "Eviction")),
        (GVR("", "v1", "pods"), "exec", GVK("", "v1", "PodExecOptions")),
        (GVR("", "v1", "pods"), "status", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "ephemeralcontainers", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "resize", GVK("", "v1", "Pod")),
        (GVR("", "v1", "pods"), "binding", GVK("", "v1", "Binding")),
        (GVR("", "v1", "serviceaccounts"), "token", GVK("authentication.k8s.io", "v1", "TokenRequest")),
        (GVR("", "v1", "namespaces"), "finalize", GVK("", "v1", "Namespace")),
        (GVR("", "v1", "nodes"), "proxy", GVK("", "v1", "NodeProxyOptions")),
        (
            GVR("certificates.k8s.io", "v1", "certificatesigningrequests"),
            "approval",
            GVK("certificates.k8s.io", "v1", "CertificateSigningRequest"),
        ),
    ],
)
def test_subresource_kinds(gvr, sub, kind):
    assert builtin_mapper().kind_for(gvr, sub) == kind


def test_unknown_lookups_are_none():
    mapper = builtin_mapper()
    assert mapper.resource_for("apps/v9", "Deployment") is None
    assert mapper.kind_for(GVR("", "v1", "pods"), "nope") is None
    assert mapper.equivalent_resources_for(GVR("g", "v", "r")) == []
    assert "v1" in mapper.versions_of_kind("apps", "Deployment")


def test_equivalents_share_storage_and_need_the_subresource():
    mapper = builtin_mapper()
    deployments = mapper.equivalent_resources_for(GVR("apps", "v1", "deployments"))
    assert GVR("extensions", "v1beta1", "deployments") in deployments
    assert GVR("apps", "v1beta1", "deployments") in deployments
    assert GVR("apps", "v1beta2", "deployments") in deployments
    assert deployments[0] == GVR("apps", "v1", "deployments")
    scale = mapper.equivalent_resources_for(GVR("apps", "v1", "deployments"), "scale")
    assert GVR("extensions", "v1beta1", "deployments") in scale
    # daemonsets have no scale subresource anywhere
    assert mapper.equivalent_resources_for(GVR("apps", "v1", "daemonsets"), "scale") == []
    events = mapper.equivalent_resources_for(GVR("", "v1", "events"))
    assert GVR("events.k8s.io", "v1", "events") in events
    assert GVR("batch", "v1", "jobs") not in mapper.equivalent_resources_for(GVR("batch", "v1", "cronjobs"))


def test_crds_extend_the_mapping():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "replicalimits.rules.example.com"},
        "spec": {
            "group": "rules.example.com",
            "names": {"kind": "ReplicaLimit", "plural": "replicalimits"},
            "scope": "Cluster",
            "versions": [
                {"name": "v1", "served": True, "subresources": {"status": {}, "scale": {}}},
                {"name": "v1beta1", "served": False},
            ],
        },
    }
    mapper, problems = builtin_mapper().with_crds([crd, {"metadata": {"name": "broken"}}])
    assert problems and "broken" in problems[0]
    info = mapper.resource_for("rules.example.com/v1", "ReplicaLimit")
    assert info.gvr == GVR("rules.example.com", "v1", "replicalimits") and not info.namespaced
    assert info.source == "crd"
    assert mapper.kind_for(info.gvr, "scale") == GVK("autoscaling", "v1", "Scale")
    assert mapper.resource_for("rules.example.com/v1beta1", "ReplicaLimit").served is False
    assert GVR("rules.example.com", "v1beta1", "replicalimits") in mapper.equivalent_resources_for(info.gvr)
    # the builtin mapper itself is untouched
    assert builtin_mapper().resource_for("rules.example.com/v1", "ReplicaLimit") is None


def test_registry_mapper_and_helpers():
    mapper = RESTMapper.from_registry(
        [
            {
                "kind": {"group": "g", "version": "v1", "kind": "K"},
                "resource": {"group": "g", "version": "v1", "resource": "ks"},
            },
            {
                "kind": {"group": "h", "version": "v2", "kind": "K"},
                "resource": {"group": "h", "version": "v2", "resource": "ks"},
            },
        ],
        identity=lambda gvr: gvr.resource,
    )
    assert mapper.equivalent_resources_for(GVR("g", "v1", "ks")) == [GVR("g", "v1", "ks"), GVR("h", "v2", "ks")]
    assert parse_api_version("v1") == ("", "v1")
    assert parse_api_version("apps/v1") == ("apps", "v1")
    assert parse_api_version("a/b/c") is None
    assert [guess_resource(k) for k in ("Widget", "Policy", "Class")] == ["widgets", "policies", "classes"]
    assert str(GVR("apps", "v1", "deployments")) == "apps/v1, Resource=deployments"
