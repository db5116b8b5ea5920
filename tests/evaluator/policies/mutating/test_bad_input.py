"""Unusable policies and values never raise: each becomes a located error and the failurePolicy applies."""

import pytest

from evaluator.simulation import simulate

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}}


def documents(mutations, failure="Fail"):
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "failurePolicy": failure,
                "mutations": mutations,
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE"],
                            "resources": ["configmaps"],
                        }
                    ]
                },
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "b"},
            "spec": {"policyName": "p"},
        },
    ]


def jsonpatch(expression):
    return [{"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}]


def apply(expression):
    return [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}]


@pytest.mark.parametrize(
    "mutations, expected",
    [
        (apply("Object{metadata: Object.metadata{labels: 1}}"), "expected map, got 1"),
        (apply("Object{metadata: Object.metadata{labelz: {}}}"), ".metadata.labelz: field not declared in schema"),
        (apply("Object{"), "compilation failed: ERROR: <input>:1:8"),
        (apply("[1, 2]"), "must evaluate to Object but got list(int)"),
        (jsonpatch("[JSONPatch{op: 'remove', path: '/data/none'}]"), 'doc is missing path: "/data/none"'),
        (jsonpatch("[JSONPatch{op: 1, path: '/x'}]"), "field 'op' must be a string"),
        (
            jsonpatch("[JSONPatch{op: 'add', path: '/metadata/labels', value: int}]"),
            "JSONPath valueExpression evaluated to a type that could not marshal to JSON",
        ),
        (jsonpatch("Object{}"), "must evaluate to list(JSONPatch) but got Object"),
        ([{"patchType": "Strategic", "jsonPatch": {"expression": "[]"}}], 'unsupported patch type "Strategic"'),
    ],
)
def test_errors_are_located_and_deny_under_fail(mutations, expected):
    result = simulate(documents(mutations), CONFIGMAP, api_validation="report")
    assert not [e for e in result["errors"] if "traceback" in e], result["errors"]
    assert result["allowed"] is False, result["mutation"]
    assert expected in result["status"]["message"]
    assert result["status"]["message"].startswith("configmaps \"cm\" is forbidden: policy 'p' with binding 'b' denied")
    assert result["mutation"]["errors"][0]["failurePolicy"] == "Fail"


def test_decoding_errors_are_internal_errors_whatever_the_failure_policy():
    for failure in ("Fail", "Ignore"):
        result = simulate(
            documents(jsonpatch("[JSONPatch{op: 'add', path: '/spec', value: {'x': 1}}]"), failure=failure),
            CONFIGMAP,
            api_validation="report",
        )
        assert result["allowed"] is False
        assert result["status"] == {
            "code": 500,
            "reason": "InternalError",
            "message": 'Internal error occurred: strict decoding error: unknown field "spec"',
        }


def test_the_same_errors_are_ignored_under_ignore():
    result = simulate(documents(apply("[1]"), failure="Ignore"), CONFIGMAP, api_validation="report")
    assert result["allowed"] is True
    assert result["patchedObject"] == CONFIGMAP
    assert result["mutation"]["errors"][0]["ignored"] is True


@pytest.mark.parametrize(
    "request_object",
    [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}, "data": "oops"},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": "not a map"},
    ],
)
def test_odd_request_objects_do_not_crash(request_object):
    result = simulate(
        documents(apply("Object{metadata: Object.metadata{labels: {'a': 'b'}}}")),
        request_object,
        api_validation="report",
    )
    assert not [e for e in result["errors"] if "traceback" in e], result["errors"]
