"""Request normalisation: what is inferred from a plain object, an AdmissionRequest or an AdmissionReview."""

from __future__ import annotations

from evaluator.admission.request import DEFAULT_USER, is_plain_object, normalize_request
from evaluator.k8s.restmapping import builtin_mapper

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx", "namespace": "web"}}


def test_plain_object_is_a_create():
    out = normalize_request(DEPLOYMENT)
    assert out.ok
    req = out.request
    assert req["operation"] == "CREATE"
    assert req["kind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert req["resource"] == {"group": "apps", "version": "v1", "resource": "deployments"}
    assert req["requestKind"] == req["kind"] and req["requestResource"] == req["resource"]
    assert req["name"] == "nginx" and req["namespace"] == "web"
    assert req["subResource"] == "" and req["dryRun"] is False
    assert req["userInfo"] == DEFAULT_USER
    assert req["options"] == {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
    assert req["object"] == DEPLOYMENT and req["oldObject"] is None
    assert out.namespaced is True
    assert {"operation", "kind", "resource", "userInfo", "uid"} <= set(out.inferred)


def test_uid_is_deterministic_and_kept_when_given():
    assert normalize_request(DEPLOYMENT).request["uid"] == normalize_request(DEPLOYMENT).request["uid"]
    assert normalize_request({"object": DEPLOYMENT, "uid": "u-1"}).request["uid"] == "u-1"


def test_operation_follows_the_objects_given():
    old = {**DEPLOYMENT, "metadata": {"name": "nginx", "namespace": "web", "labels": {"a": "b"}}}
    assert normalize_request({"object": DEPLOYMENT, "oldObject": old}).request["operation"] == "UPDATE"
    delete = normalize_request({"oldObject": old}).request
    assert delete["operation"] == "DELETE" and delete["name"] == "nginx" and delete["namespace"] == "web"
    assert delete["options"]["kind"] == "DeleteOptions"


def test_namespaced_object_without_namespace_goes_to_default_and_cluster_scoped_has_none():
    assert (
        normalize_request({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}).request["namespace"]
        == "default"
    )
    node = normalize_request({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "namespace": "x"}})
    assert node.request["namespace"] == "" and node.namespaced is False


def test_namespace_objects_carry_their_name_as_namespace_except_on_create():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    assert normalize_request(ns).request["namespace"] == ""
    assert normalize_request({"oldObject": ns}).request["namespace"] == "team-a"


def test_subresource_kind_is_inferred_from_the_mapping():
    out = normalize_request(
        {
            "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
            "subResource": "scale",
            "operation": "UPDATE",
            "name": "web",
            "namespace": "d",
        }
    )
    assert out.ok
    assert out.request["kind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    connect = normalize_request(
        {
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "subResource": "exec",
            "operation": "CONNECT",
            "name": "p",
            "namespace": "d",
        }
    )
    assert connect.request["kind"]["kind"] == "PodExecOptions" and connect.request["options"] is None


def test_explicit_fields_are_kept():
    given = {
        "object": DEPLOYMENT,
        "operation": "CREATE",
        "namespace": "other",
        "name": "x",
        "userInfo": {"username": "alice", "groups": ["dev"]},
        "dryRun": True,
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
    }
    req = normalize_request(given).request
    assert req["namespace"] == "other" and req["name"] == "x" and req["dryRun"] is True
    assert req["userInfo"] == {"username": "alice", "groups": ["dev"]}


def test_admission_review_is_unwrapped():
    review = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {"uid": "abc", "object": DEPLOYMENT},
    }
    out = normalize_request(review)
    assert out.ok and out.request["uid"] == "abc" and out.request["operation"] == "CREATE"
    assert is_plain_object(DEPLOYMENT) and not is_plain_object(review)


def test_unknown_kinds_are_guessed_with_a_warning_and_crds_are_known():
    widget = {"apiVersion": "example.com/v1", "kind": "Policy", "metadata": {"name": "w", "namespace": "a"}}
    out = normalize_request(widget)
    assert out.ok and out.request["resource"]["resource"] == "policies"
    assert out.warnings and 'no matches for kind "Policy" in version "example.com/v1"' in out.warnings[0]
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "x"},
        "spec": {
            "group": "example.com",
            "scope": "Cluster",
            "names": {"kind": "Policy", "plural": "policyrules"},
            "versions": [{"name": "v1", "served": True}],
        },
    }
    mapper, _ = builtin_mapper().with_crds([crd])
    known = normalize_request(widget, mapper)
    assert known.request["resource"]["resource"] == "policyrules" and known.request["namespace"] == ""
    assert not known.warnings or "cluster-scoped" not in known.warnings[0]


def test_errors_are_located_field_errors():
    out = normalize_request({"object": {"metadata": {"name": "x"}}})
    assert not out.ok and out.errors[0].path == "request.object.kind"
    out = normalize_request({"object": {"apiVersion": "a/b/c", "kind": "X"}})
    assert out.errors[0].path == "request.object.apiVersion"
    out = normalize_request({"operation": "PATCH", "object": DEPLOYMENT})
    assert str(out.errors[0]).startswith('request.operation: Unsupported value: "PATCH"')
    out = normalize_request({})
    assert out.request is None and out.errors[0].path == "request.object"
    assert normalize_request("nope").errors[0].path == "request"
    assert normalize_request({"object": "x"}).errors[0].path == "request.object"
    assert (
        normalize_request({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"}).errors[0].path == "request"
    )
    assert normalize_request({"object": DEPLOYMENT}).to_dict()["errors"] == []
