"""Go's decoding of an object into its built-in type, in encoding/json's words: the first value of the wrong
JSON type (its innermost struct, the JSON field names down to it, the Go type), or the error a type's own
UnmarshalJSON stops at (quantities, int-or-strings, times)."""

import pytest

from evaluator.admission.go_decode import decode_errors, decode_problems
from evaluator.k8s.object_schema import schema_for

QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def pod(**spec):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c"}], **spec},
    }


def container(**fields):
    return pod(containers=[{"name": "c", **fields}])


@pytest.mark.parametrize(
    ("obj", "message", "path"),
    [
        (
            pod(hostNetwork="yes"),
            "json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool",
            "spec.hostNetwork",
        ),
        (
            pod(containers="c"),
            "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container",
            "spec.containers",
        ),
        (
            container(securityContext="x"),
            "json: cannot unmarshal string into Go struct field Container.spec.containers.securityContext of type "
            "v1.SecurityContext",
            "spec.containers[0].securityContext",
        ),
        (
            container(args=["a", 1]),
            "json: cannot unmarshal number into Go struct field Container.spec.containers.args of type string",
            "spec.containers[0].args[1]",
        ),
        (  # a number that does not fit is quoted
            container(ports=[{"containerPort": 1.5}]),
            "json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort "
            "of type int32",
            "spec.containers[0].ports[0].containerPort",
        ),
        (
            container(ports=[{"containerPort": 2**31}]),
            "json: cannot unmarshal number 2147483648 into Go struct field ContainerPort.spec.containers.ports."
            "containerPort of type int32",
            "spec.containers[0].ports[0].containerPort",
        ),
        (
            pod(nodeSelector=["ssd"]),
            "json: cannot unmarshal array into Go struct field PodSpec.spec.nodeSelector of type map[string]string",
            "spec.nodeSelector",
        ),
        (
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": True}}},
            "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string",
            "metadata.labels[a]",
        ),
    ],
)
def test_a_value_of_the_wrong_type(obj, message, path):
    [wrong], _ = decode_problems(obj, schema_for(obj["apiVersion"], obj["kind"]))
    assert (wrong.message, wrong.path) == (message, path)


@pytest.mark.parametrize(
    ("obj", "message", "path"),
    [
        (container(resources={"limits": {"cpu": "abc"}}), QUANTITY_FORMAT, "spec.containers[0].resources.limits[cpu]"),
        (
            container(resources={"limits": {"memory": "1GB"}}),
            QUANTITY_FORMAT,
            "spec.containers[0].resources.limits[memory]",
        ),
        (
            container(resources={"requests": {"cpu": True}}),
            QUANTITY_FORMAT,
            "spec.containers[0].resources.requests[cpu]",
        ),
        (
            container(livenessProbe={"httpGet": {"port": 1.5}}),
            "json: cannot unmarshal number 1.5 into Go value of type int32",
            "spec.containers[0].livenessProbe.httpGet.port",
        ),
        (
            container(livenessProbe={"httpGet": {"port": [80]}}),
            "json: cannot unmarshal array into Go value of type int32",
            "spec.containers[0].livenessProbe.httpGet.port",
        ),
        (
            {**pod(), "metadata": {"name": "p", "creationTimestamp": "2024-01-01"}},
            'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
            "metadata.creationTimestamp",
        ),
        (  # metav1.Time reads a string with the standard library's decoder: Go's words name no struct field
            {**pod(), "metadata": {"name": "p", "creationTimestamp": 1700000000}},
            "json: cannot unmarshal number into Go value of type string",
            "metadata.creationTimestamp",
        ),
    ],
)
def test_a_types_own_decoding_stops_at_its_error(obj, message, path):
    [refused], _ = decode_problems(obj, schema_for("v1", "Pod"))
    assert (refused.message, refused.path) == (message, path)


def test_a_types_own_error_wins_over_a_wrong_type_met_before_it():
    """Go keeps the first wrong type and goes on, but an UnmarshalJSON error ends the decoding at once."""
    obj = pod(hostNetwork="yes", containers=[{"name": "c", "resources": {"limits": {"cpu": "x"}}}])
    assert decode_errors(obj, schema_for("v1", "Pod")) == QUANTITY_FORMAT


@pytest.mark.parametrize(
    "obj",
    [
        container(resources={"limits": {"cpu": 1.5, "memory": "1Gi"}, "requests": {"cpu": " 100m "}}),
        container(livenessProbe={"httpGet": {"port": "http"}}, ports=[{"containerPort": 80.0}]),
        pod(terminationGracePeriodSeconds=2**40, nodeSelector={"disk": "ssd"}, hostNetwork=False),
        pod(containers=None),  # null is every type's zero value
        {**pod(), "metadata": {"name": "p", "creationTimestamp": None, "deletionTimestamp": "2024-01-02T3:04:05Z"}},
    ],
)
def test_values_go_can_decode(obj):
    assert decode_problems(obj, schema_for("v1", "Pod")) == ([], [])


def test_unknown_fields_are_named_only_by_strict_decoding():
    obj = pod(colour="blue")
    assert decode_problems(obj, schema_for("v1", "Pod")) == ([], ["spec.colour"])
    assert decode_errors(obj, schema_for("v1", "Pod")) == 'strict decoding error: unknown field "spec.colour"'


def test_a_kind_without_a_go_type_is_not_decoded():
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"size": [1]}}
    assert decode_problems(widget, schema_for("example.com/v1", "Widget")) == ([], [])
