"""The `request` and `namespaceObject` values, serialised as the API server serialises them."""

from __future__ import annotations

from evaluator.admission.activation import RequestViews, cel_request, namespace_object, stored_namespace

REQUEST = {
    "uid": "abc",
    "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
    "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
    "subResource": "",
    "name": "web",
    "namespace": "default",
    "operation": "CREATE",
    "userInfo": {"username": "alice", "groups": ["dev"], "extra": {}},
    "dryRun": False,
    "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
}


def test_cel_request_uses_matched_kind_and_omits_empty_fields():
    matched = {"group": "extensions", "version": "v1beta1", "kind": "Deployment"}
    resource = {"group": "extensions", "version": "v1beta1", "resource": "deployments"}
    value = cel_request(REQUEST, matched, resource)
    assert value["uid"] == ""  # CreateAdmissionRequest leaves the UID unset
    assert value["kind"] == matched and value["resource"] == resource
    assert value["requestKind"] == REQUEST["kind"] and value["requestResource"] == REQUEST["resource"]
    assert "subResource" not in value and "requestSubResource" not in value
    assert value["userInfo"] == {"username": "alice", "groups": ["dev"]}
    assert value["dryRun"] is False and value["options"]["kind"] == "CreateOptions"


def test_subresource_is_present_when_set():
    value = cel_request({**REQUEST, "subResource": "scale"}, REQUEST["kind"], REQUEST["resource"])
    assert value["subResource"] == "scale" and value["requestSubResource"] == "scale"


def test_request_views_are_built_once_per_kind_and_resource():
    views = RequestViews(REQUEST)
    assert views.view(REQUEST["kind"], REQUEST["resource"]) is views.view(dict(REQUEST["kind"]), REQUEST["resource"])
    other = views.view({"group": "apps", "version": "v1beta1", "kind": "Deployment"}, REQUEST["resource"])
    assert other["kind"]["version"] == "v1beta1" and other["requestKind"]["version"] == "v1"


def test_namespace_object_keeps_a_metadata_subset():
    ns = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "team",
            "labels": {"a": "b"},
            "uid": "1",
            "managedFields": [{}],
            "ownerReferences": [{}],
            "annotations": {"x": "y"},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    value = namespace_object(ns)
    assert value == {
        "metadata": {
            "name": "team",
            "uid": "1",
            "labels": {"a": "b"},
            "annotations": {"x": "y"},
            "creationTimestamp": None,
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    assert namespace_object(None) is None
    stored = stored_namespace(ns)
    assert "managedFields" in stored["metadata"] and "kind" not in stored
