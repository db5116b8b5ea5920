"""Several MutatingAdmissionPolicies on one request: order, reinvocation, failurePolicy, bad input as data."""

import base64
import json

from evaluator.simulation import simulate


def policy(
    name,
    *expressions,
    patch_type="ApplyConfiguration",
    failure=None,
    reinvocation=None,
    conditions=None,
    param_kind=None,
):
    key = "applyConfiguration" if patch_type == "ApplyConfiguration" else "jsonPatch"
    spec = {
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["configmaps"],
                }
            ]
        },
        "mutations": [{"patchType": patch_type, key: {"expression": e}} for e in expressions],
    }
    if failure:
        spec["failurePolicy"] = failure
    if reinvocation:
        spec["reinvocationPolicy"] = reinvocation
    if conditions:
        spec["matchConditions"] = [{"name": f"c{i}", "expression": c} for i, c in enumerate(conditions)]
    if param_kind:
        spec["paramKind"] = param_kind
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": spec,
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": name + "-binding"},
            "spec": {"policyName": name},
        },
    ]


CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cm", "namespace": "default"},
    "data": {"k": "v"},
}
LABEL = "Object{metadata: Object.metadata{labels: {'%s': '%s'}}}"


def run(*documents):
    return simulate([d for group in documents for d in group], CONFIGMAP)


def test_mutations_apply_in_order_and_the_chain_is_reported():
    result = run(policy("first", LABEL % ("a", "1")), policy("second", LABEL % ("b", "2")))
    assert result["allowed"] is True
    assert result["patchedObject"]["metadata"]["labels"] == {"a": "1", "b": "2"}
    steps = result["mutation"]["mutations"]
    assert [(m["policy"], m["patch"]) for m in steps] == [
        ("first", [{"op": "add", "path": "/metadata/labels", "value": {"a": "1"}}]),
        ("second", [{"op": "add", "path": "/metadata/labels/b", "value": "2"}]),
    ]
    patch = result["mutation"]["patch"]
    assert json.loads(base64.b64decode(result["response"]["response"]["patch"])) == patch
    assert result["response"]["response"]["patchType"] == "JSONPatch"
    assert [r["outcome"] for r in result["policies"] if r["kind"] == "MutatingAdmissionPolicy"] == [
        "mutated",
        "mutated",
    ]


def test_if_needed_policy_is_reinvoked_after_a_later_change():
    counter = (
        "Object{metadata: Object.metadata{labels: {'seen': string(object.?metadata.labels['b'].orValue('none'))}}}"
    )
    result = run(policy("first", counter, reinvocation="IfNeeded"), policy("second", LABEL % ("b", "2")))
    assert result["patchedObject"]["metadata"]["labels"] == {"seen": "2", "b": "2"}
    assert result["mutation"]["reinvoked"] == ["first|first-binding|"]
    assert [r["pass"] for r in result["policies"]] == [1, 1, 2]


def test_never_policy_is_not_reinvoked():
    counter = (
        "Object{metadata: Object.metadata{labels: {'seen': string(object.?metadata.labels['b'].orValue('none'))}}}"
    )
    result = run(policy("first", counter), policy("second", LABEL % ("b", "2")))
    assert result["patchedObject"]["metadata"]["labels"] == {"seen": "none", "b": "2"}
    assert result["mutation"]["reinvoked"] == []


def test_a_policy_that_never_settles_is_reinvoked_once_with_a_note():
    bump = (
        "Object{metadata: Object.metadata{annotations: {'n': "
        "string(int(object.?metadata.annotations['n'].orValue('0')) + 1)}}}"
    )
    result = run(policy("bump", bump, reinvocation="IfNeeded"))
    assert result["allowed"] is True
    assert result["patchedObject"]["metadata"]["annotations"] == {"n": "2"}
    assert any("reinvokes at most once" in note for note in result["mutation"]["notes"])


def test_match_conditions_see_earlier_mutations():
    result = run(
        policy("first", LABEL % ("env", "prod")),
        policy("second", LABEL % ("prod", "yes"), conditions=["object.metadata.?labels.env == optional.of('prod')"]),
    )
    assert result["patchedObject"]["metadata"]["labels"] == {"env": "prod", "prod": "yes"}


def test_wrong_object_type_is_a_located_error_under_fail():
    result = run(policy("bad", "Object.metadata{labels: {'a': 'b'}}"))
    assert result["allowed"] is False
    assert result["status"]["message"] == (
        "configmaps \"cm\" is forbidden: policy 'bad' with binding 'bad-binding' "
        "denied request: must evaluate to Object but got Object.metadata"
    )
    assert any(e.get("path") == "spec.mutations[0].applyConfiguration.expression" for e in result["errors"])


def test_errors_are_ignored_under_ignore_and_later_mutations_still_run():
    result = run(
        policy(
            "bad",
            "[JSONPatch{op: 'replace', path: '/nothere/x', value: 1}]",
            "[JSONPatch{op: 'add', path: '/data/added', value: 'yes'}]",
            patch_type="JSONPatch",
            failure="Ignore",
        )
    )
    assert result["allowed"] is True
    assert result["patchedObject"]["data"] == {"k": "v", "added": "yes"}
    errors = result["mutation"]["errors"]
    assert errors[0]["ignored"] is True
    assert errors[0]["message"].endswith(
        "JSON Patch: replace operation does not apply: doc is missing path: /nothere/x: missing value"
    )


def test_non_object_result_and_runtime_error_are_data():
    for expression, text in [
        ("'just a string'", "must evaluate to Object but got string"),
        ("object.missing", "no such key: missing"),
    ]:
        result = run(policy("bad", expression))
        assert result["allowed"] is False
        assert text in result["status"]["message"]
        assert not [e for e in result["errors"] if "traceback" in e]


def test_params_are_visible_to_mutations():
    docs = policy(
        "with-param",
        "Object{metadata: Object.metadata{labels: {'team': params.data.team}}}",
        param_kind={"apiVersion": "v1", "kind": "ConfigMap"},
    )
    docs[1]["spec"]["paramRef"] = {"name": "settings", "namespace": "default", "parameterNotFoundAction": "Deny"}
    settings = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default"},
        "data": {"team": "blue"},
    }
    result = simulate(docs + [settings], CONFIGMAP)
    assert result["patchedObject"]["metadata"]["labels"] == {"team": "blue"}
    assert [r["param"] for r in result["policies"]] == ["default/settings"]


def test_validating_policies_see_the_mutated_object():
    vap = [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "needs-owner"},
            "spec": {
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
                "validations": [
                    {
                        "expression": "has(object.metadata.labels) && 'owner' in object.metadata.labels",
                        "message": "owner label required",
                    }
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "needs-owner-binding"},
            "spec": {"policyName": "needs-owner", "validationActions": ["Deny"]},
        },
    ]
    assert simulate(vap, CONFIGMAP)["allowed"] is False
    combined = simulate(vap + policy("owner", LABEL % ("owner", "me")), CONFIGMAP)
    assert combined["allowed"] is True
    assert [(r.get("kind"), r["policy"], r["outcome"]) for r in combined["policies"]] == [
        ("MutatingAdmissionPolicy", "owner", "mutated"),
        (None, "needs-owner", "admitted"),
    ]
