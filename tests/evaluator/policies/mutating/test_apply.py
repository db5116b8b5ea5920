"""Server-side-apply merge of an ApplyConfiguration, with the built-in types' list types and merge keys."""

import pytest

from evaluator.policies.mutating.apply import ApplyError, apply_configuration
from evaluator.k8s.object_schema import schema_for

DEPLOYMENT = schema_for("apps/v1", "Deployment")
POD = schema_for("v1", "Pod")


def pod(spec=None, metadata=None):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata or {"name": "p"}, "spec": spec or {}}


def test_map_list_merges_by_name_in_place_and_appends_new_entries():
    live = pod({"containers": [{"name": "app", "image": "a:1"}, {"name": "side", "image": "s:1"}]})
    patch = {"spec": {"containers": [{"name": "side", "image": "s:2"}, {"name": "new", "image": "n:1"}]}}
    merged = apply_configuration(live, patch, POD)
    assert merged["spec"]["containers"] == [
        {"name": "app", "image": "a:1"},
        {"name": "side", "image": "s:2"},
        {"name": "new", "image": "n:1"},
    ]


def test_map_list_with_two_keys():
    live = pod({"containers": [{"name": "c", "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]}]})
    patch = {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "protocol": "UDP"}]}]}}
    ports = apply_configuration(live, patch, POD)["spec"]["containers"][0]["ports"]
    assert ports == [{"containerPort": 80, "protocol": "TCP", "name": "http"}, {"containerPort": 80, "protocol": "UDP"}]


def test_set_list_is_a_union():
    live = pod(metadata={"name": "p", "finalizers": ["a", "b"]})
    merged = apply_configuration(live, {"metadata": {"finalizers": ["b", "c"]}}, POD)
    assert merged["metadata"]["finalizers"] == ["a", "b", "c"]


def test_granular_maps_merge_and_scalars_replace():
    live = pod(metadata={"name": "p", "labels": {"a": "1", "b": "2"}})
    merged = apply_configuration(live, {"metadata": {"labels": {"b": "3", "c": "4"}}}, POD)
    assert merged["metadata"] == {"name": "p", "labels": {"a": "1", "b": "3", "c": "4"}}


def test_duplicates_survive_unless_touched():
    env = [{"name": "X", "value": "1"}, {"name": "X", "value": "2"}, {"name": "Y", "value": "3"}]
    live = pod({"containers": [{"name": "c", "env": env}], "hostNetwork": False})
    untouched = apply_configuration(live, {"spec": {"hostNetwork": True}}, POD)
    assert untouched["spec"]["containers"][0]["env"] == env
    touched = apply_configuration(
        live, {"spec": {"containers": [{"name": "c", "env": [{"name": "X", "value": "9"}]}]}}, POD
    )
    assert touched["spec"]["containers"][0]["env"] == [{"name": "X", "value": "9"}, {"name": "Y", "value": "3"}]


@pytest.mark.parametrize(
    "patch, path",
    [
        ({"spec": {"selector": {"matchLabels": {"a": "b"}}}}, ".spec.selector"),
        ({"spec": {"template": {"spec": {"tolerations": [{"key": "k"}]}}}}, ".spec.template.spec.tolerations"),
        ({"spec": {"template": {"spec": {"nodeSelector": {"a": "b"}}}}}, ".spec.template.spec.nodeSelector"),
    ],
)
def test_atomic_fields_may_not_be_mutated(patch, path):
    with pytest.raises(ApplyError) as info:
        apply_configuration({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}}, patch, DEPLOYMENT)
    assert info.value.message == f"invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: {path}"


def test_fields_outside_the_schema_are_rejected():
    with pytest.raises(ApplyError) as info:
        apply_configuration(pod(), {"spec": {"containerz": []}}, POD)
    assert info.value.message == (
        "failed to convert patch object to typed object: .spec.containerz: field not declared in schema"
    )


def test_wrong_scalar_type_is_rejected():
    with pytest.raises(ApplyError) as info:
        apply_configuration(pod(), {"spec": {"hostNetwork": "yes"}}, POD)
    assert "failed to convert patch object to typed object: .spec.hostNetwork: expected boolean" in info.value.message


def test_without_a_schema_lists_are_atomic():
    unknown = schema_for("example.com/v1", "Widget")
    assert unknown.note and "atomic" in unknown.note
    live = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"items": [1, 2], "keep": True}}
    merged = apply_configuration(live, {"spec": {"items": [3]}}, unknown)
    assert merged["spec"] == {"items": [3], "keep": True}


def test_crd_schema_gives_list_types():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "parts": {
                                            "type": "array",
                                            "x-kubernetes-list-type": "map",
                                            "x-kubernetes-list-map-keys": ["id"],
                                            "items": {
                                                "type": "object",
                                                "properties": {"id": {"type": "string"}, "size": {"type": "integer"}},
                                            },
                                        }
                                    },
                                }
                            },
                        }
                    },
                }
            ],
        },
    }
    widget = schema_for("example.com/v1", "Widget", [crd])
    assert widget.note is None
    live = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"parts": [{"id": "a", "size": 1}]}}
    merged = apply_configuration(live, {"spec": {"parts": [{"id": "b", "size": 2}]}}, widget)
    assert merged["spec"]["parts"] == [{"id": "a", "size": 1}, {"id": "b", "size": 2}]


def test_key_fields_with_a_default_match_items_that_omit_them():
    live = pod({"containers": [{"name": "c", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]})
    patch = {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "name": "http"}]}]}}
    ports = apply_configuration(live, patch, POD)["spec"]["containers"][0]["ports"]
    assert ports == [{"containerPort": 80, "protocol": "TCP", "name": "http"}]
