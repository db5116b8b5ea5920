"""List types, merge keys and atomic structs of built-in types, read from the shipped OpenAPI definitions."""

from evaluator.policies.mutating.schema import ASSOCIATIVE, ATOMIC, LIST, SET, schema_for


def _walk(objschema, *path):
    node = objschema.root_node()
    for name in path:
        if node.kind == LIST:  # step into the list item first
            node = objschema.schema.node(node.element)
        node = objschema.schema.node(node.fields[name])
    return node


def test_builtin_definitions_are_found_by_group_version_kind():
    deployment = schema_for("apps/v1", "Deployment")
    assert deployment.typed and deployment.known
    assert deployment.root_node().go_name == "Deployment"
    assert schema_for("v1", "ConfigMap").known


def test_list_types_and_keys():
    pod = schema_for("v1", "Pod")
    containers = _walk(pod, "spec", "containers")
    assert (containers.kind, containers.list_type, containers.keys) == (LIST, ASSOCIATIVE, ("name",))
    ports = _walk(pod, "spec", "containers", "ports")
    assert ports.keys == ("containerPort", "protocol")
    assert _walk(pod, "spec", "tolerations").list_type == ATOMIC
    assert _walk(pod, "metadata", "finalizers").list_type == SET


def test_atomic_structs_and_maps():
    deployment = schema_for("apps/v1", "Deployment")
    assert _walk(deployment, "spec", "selector").atomic
    assert not _walk(deployment, "spec", "template").atomic
    assert _walk(deployment, "spec", "template", "spec", "nodeSelector").atomic
