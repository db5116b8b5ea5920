"""List types, merge keys and atomic structs of built-in types, read from the shipped OpenAPI definitions."""

from evaluator.k8s.object_schema import ASSOCIATIVE, ATOMIC, LIST, SET, schema_for


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


def test_a_kind_is_resolved_once_however_many_objects_ask():
    """Nodes are kept by their raw schema's identity: each object's lookup reads the same root, so
    nothing is built, nor kept, again per object."""
    first = schema_for("apps/v1", "Deployment")
    first.root_node()
    kept = len(first.schema._nodes)
    for _ in range(50):
        again = schema_for("apps/v1", "Deployment")
        assert again.root is first.root and again.root_node() is first.root_node()
    assert len(first.schema._nodes) == kept


def test_a_struct_carries_its_go_type_with_its_package():
    deployment = schema_for("apps/v1", "Deployment")
    assert _walk(deployment, "spec").go_type == "v1.DeploymentSpec"
    assert _walk(deployment, "metadata").go_type == "v1.ObjectMeta"
