"""Schema -> CEL type conversion (SchemaDeclType) on hand-written schemas and on the built-in definitions."""

from __future__ import annotations

from evaluator.cel.schematypes import ObjectType, SchemaContext, schema_type, variable_field_type
from evaluator.cel.types import parse_type
from evaluator.k8s import schemas
from evaluator.k8s.restmapping import GVK
from evaluator.typechecking.environment import kind_type

CTX = SchemaContext({})


def _convert(schema, root=False):
    return schema_type(schema, CTX, "T", root)


def test_scalars_and_formats():
    assert str(_convert({"type": "integer"})) == "int"
    assert str(_convert({"type": "number"})) == "double"
    assert str(_convert({"type": "boolean"})) == "bool"
    assert str(_convert({"type": "string"})) == "string"
    assert str(_convert({"type": "string", "format": "byte"})) == "bytes"
    assert str(_convert({"type": "string", "format": "duration"})) == "google.protobuf.Duration"
    assert str(_convert({"type": "string", "format": "date-time"})) == "google.protobuf.Timestamp"
    assert str(_convert({"type": "string", "format": "date"})) == "google.protobuf.Timestamp"
    assert str(_convert({"type": ["string", "null"]})) == "string"


def test_int_or_string_is_dyn_by_extension_or_format():
    assert _convert({"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}).is_dyn
    assert _convert({"type": "string", "format": "int-or-string"}).is_dyn


def test_untyped_schemas_are_left_out():
    assert _convert({}) is None
    assert _convert({"oneOf": [{"type": "string"}, {"type": "number"}]}) is None
    assert _convert({"type": "array"}) is None
    assert _convert({"type": "array", "items": {}}) is None
    assert _convert({"type": "object", "additionalProperties": {}}) is None
    obj = _convert({"type": "object", "properties": {"a": {}, "b": {"type": "integer"}}})
    assert set(obj.fields) == {"b"}


def test_lists_maps_and_struct_names():
    t = _convert(
        {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "nested": {"type": "object", "additionalProperties": {"type": "object", "properties": {}}},
            },
        }
    )
    assert isinstance(t, ObjectType) and t.name == "T"
    assert str(t.fields["items"]) == "list(T.items.@idx)"
    assert str(t.fields["labels"]) == "map(string, string)"
    assert str(t.fields["nested"]) == "map(string, T.nested.@elem)"
    assert str(t.fields["items"].params[0].fields["x"]) == "int"


def test_additional_properties_true_is_a_plain_object():
    t = _convert({"type": "object", "additionalProperties": True, "properties": {"a": {"type": "string"}}})
    assert isinstance(t, ObjectType) and set(t.fields) == {"a"}


def test_preserve_unknown_fields_exposes_only_declared_fields():
    t = _convert({"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    assert isinstance(t, ObjectType) and dict(t.fields) == {}


def test_property_names_are_escaped_or_dropped():
    t = _convert(
        {
            "type": "object",
            "properties": {
                n: {"type": "string"}
                for n in ("namespace", "x-y", "a.b", "a/b", "a__b", "1st", "ok_name", "bad name", "if")
            },
        }
    )
    assert set(t.fields) == {
        "__namespace__",
        "x__dash__y",
        "a__dot__b",
        "a__slash__b",
        "a__underscores__b",
        "ok_name",
        "__if__",
    }


def test_resource_roots_get_kind_api_version_and_minimal_metadata():
    t = _convert({"type": "object", "properties": {"spec": {"type": "object", "properties": {}}}}, root=True)
    assert set(t.fields) == {"spec", "kind", "apiVersion", "metadata"}
    assert set(t.fields["metadata"].fields) == {"name", "generateName"}


def test_embedded_resources_are_resource_roots():
    t = _convert(
        {
            "type": "object",
            "properties": {
                "template": {
                    "type": "object",
                    "x-kubernetes-embedded-resource": True,
                    "x-kubernetes-preserve-unknown-fields": True,
                }
            },
        }
    )
    assert set(t.fields["template"].fields) == {"kind", "apiVersion", "metadata"}


def test_circular_refs_become_empty_objects():
    ctx = SchemaContext(
        {"Node": {"type": "object", "properties": {"child": {"$ref": "#/definitions/Node"}, "v": {"type": "integer"}}}}
    )
    t = schema_type({"$ref": "#/definitions/Node"}, ctx, "N")
    assert set(t.fields) == {"child", "v"}
    assert dict(t.fields["child"].fields) == {}


def test_builtin_deployment_keeps_full_object_meta_and_typed_fields():
    deployment = kind_type(GVK("apps", "v1", "Deployment")).type
    assert deployment.name.startswith("Deployment")
    meta = deployment.fields["metadata"]
    assert {"name", "generateName", "__namespace__", "labels", "annotations", "creationTimestamp", "uid"} <= set(
        meta.fields
    )
    assert str(meta.fields["creationTimestamp"]) == "google.protobuf.Timestamp"
    spec = deployment.fields["spec"]
    assert str(spec.fields["replicas"]) == "int"
    assert spec.fields["strategy"].fields["rollingUpdate"].fields["maxSurge"].is_dyn
    containers = spec.fields["template"].fields["spec"].fields["containers"]
    assert (
        containers.name == "list"
        and containers.params[0].name == f"{deployment.name}.spec.template.spec.containers.@idx"
    )


def test_builtin_schemas_load_lazily_from_kubernetes_validate():
    assert schemas.builtin_source().startswith("kubernetes-validate v")
    assert schemas.builtin_definition_name("apps", "v1", "Deployment") == "io.k8s.api.apps.v1.Deployment"
    assert schemas.resolve("", "v1", "ConfigMap").origin == "built-in"
    assert schemas.resolve("example.com", "v1", "Nope") is None


def test_variables_keep_primitives_and_containers_only():
    assert str(variable_field_type(parse_type("list(map(string, int))"))) == "list(map(string, int))"
    assert variable_field_type(parse_type("optional_type(int)")).is_dyn
    assert variable_field_type(parse_type("net.IP")).is_dyn
    assert variable_field_type(_convert({"type": "object", "properties": {}})).is_dyn
    assert str(variable_field_type(parse_type("list(net.IP)"))) == "list(dyn)"
