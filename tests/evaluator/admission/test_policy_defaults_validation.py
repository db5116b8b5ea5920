"""API defaulting and validation of VAP/MAP policies and bindings, with the server's wording."""

from __future__ import annotations

import copy

import pytest

from evaluator.admission.defaults import apply_defaults, is_admission_object
from evaluator.admission.validation import prepare, validate_admission_object
from evaluator.policies import load_kinds

load_kinds()  # each kind's own create-time rules (policy_kind.CreateRules) are registered by its package

GROUP = "admissionregistration.k8s.io"


def vap(spec, version="v1", name="demo.example.com"):
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }


def binding(spec, kind="ValidatingAdmissionPolicyBinding", version="v1"):
    return {"apiVersion": f"{GROUP}/{version}", "kind": kind, "metadata": {"name": "b"}, "spec": spec}


RULE = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}
GOOD_SPEC = {"matchConstraints": {"resourceRules": [RULE]}, "validations": [{"expression": "true"}]}


def texts(obj, **kw):
    return [str(e) for e in prepare(obj, **kw).errors]


@pytest.mark.parametrize("version", ["v1", "v1beta1", "v1alpha1"])
def test_policy_defaults(version):
    out = apply_defaults(vap(copy.deepcopy(GOOD_SPEC), version))
    spec = out["spec"]
    assert spec["failurePolicy"] == "Fail"
    match = spec["matchConstraints"]
    assert match["matchPolicy"] == "Equivalent" and match["namespaceSelector"] == {} and match["objectSelector"] == {}
    assert match["resourceRules"][0]["scope"] == "*"


def test_defaults_keep_set_values_and_do_not_mutate_input():
    spec = copy.deepcopy(GOOD_SPEC)
    spec["failurePolicy"] = "Ignore"
    spec["matchConstraints"]["matchPolicy"] = "Exact"
    original = vap(spec)
    snapshot = copy.deepcopy(original)
    out = apply_defaults(original)
    assert original == snapshot
    assert out["spec"]["failurePolicy"] == "Ignore" and out["spec"]["matchConstraints"]["matchPolicy"] == "Exact"


def test_binding_and_map_defaults():
    out = apply_defaults(
        binding(
            {
                "policyName": "p",
                "paramRef": {"name": "x"},
                "validationActions": ["Deny"],
                "matchResources": {"excludeResourceRules": [dict(RULE)]},
            }
        )
    )
    assert out["spec"]["paramRef"]["parameterNotFoundAction"] == "Deny"
    assert out["spec"]["matchResources"]["matchPolicy"] == "Equivalent"
    assert out["spec"]["matchResources"]["excludeResourceRules"][0]["scope"] == "*"
    assert "matchResources" not in apply_defaults(binding({"policyName": "p"}))["spec"]
    map_policy = apply_defaults(
        {"apiVersion": f"{GROUP}/v1alpha1", "kind": "MutatingAdmissionPolicy", "metadata": {"name": "m"}, "spec": {}}
    )
    assert map_policy["spec"]["reinvocationPolicy"] == "Never" and map_policy["spec"]["failurePolicy"] == "Fail"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    assert apply_defaults(cm) == cm and not is_admission_object(cm)


def test_valid_policy_and_binding_have_no_errors():
    assert prepare(vap(copy.deepcopy(GOOD_SPEC))).valid
    assert prepare(
        binding(
            {
                "policyName": "demo.example.com",
                "validationActions": ["Deny", "Audit"],
                "paramRef": {"selector": {}, "namespace": "ns"},
            }
        )
    ).valid


def test_required_fields():
    assert texts(vap({})) == [
        "spec.matchConstraints: Required value",
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ]
    assert texts(vap(dict(GOOD_SPEC, matchConstraints={}))) == ["spec.matchConstraints.resourceRules: Required value"]
    no_name = vap(copy.deepcopy(GOOD_SPEC), name="")
    assert texts(no_name) == ["metadata.name: Required value: name or generateName is required"]
    assert texts(vap(copy.deepcopy(GOOD_SPEC), name="Bad_Name"))[0].startswith(
        'metadata.name: Invalid value: "Bad_Name"'
    )


def test_validation_entries():
    spec = dict(
        copy.deepcopy(GOOD_SPEC),
        validations=[
            {"expression": "  "},
            {"expression": "true", "messageExpression": "   "},
            {"expression": "true", "message": " "},
            {"expression": "true", "message": "two\nlines"},
            {"expression": "true", "reason": "Teapot"},
        ],
    )
    assert texts(vap(spec)) == [
        "spec.validations[0].expression: Required value: expression is not specified",
        'spec.validations[1].messageExpression: Invalid value: "   ": must be non-empty if specified',
        'spec.validations[2].message: Invalid value: " ": message must be non-empty if specified',
        'spec.validations[3].message: Invalid value: "two\\nlines": message must not contain line breaks',
        'spec.validations[4].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge"',
    ]


def test_unauthorized_reason_is_tolerated_with_the_servers_error_as_a_warning():
    spec = dict(copy.deepcopy(GOOD_SPEC), validations=[{"expression": "true", "reason": "Unauthorized"}])
    out = prepare(vap(spec))
    assert out.valid
    assert [str(w) for w in out.warnings] == [
        'spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge"'
    ]


def test_variables_match_conditions_and_audit_annotations():
    spec = dict(
        copy.deepcopy(GOOD_SPEC),
        variables=[
            {"name": "in", "expression": "1"},
            {"name": "x", "expression": ""},
            {"name": "x", "expression": "2"},
        ],
        matchConditions=[{"name": "a", "expression": "true"}, {"name": "a", "expression": " "}],
        auditAnnotations=[
            {"key": "k", "valueExpression": "'v'"},
            {"key": "k", "valueExpression": ""},
            {"key": "bad key!", "valueExpression": "'v'"},
        ],
    )
    errors = texts(vap(spec))
    assert "spec.matchConditions[1].expression: Required value" in errors
    assert 'spec.matchConditions[1].name: Duplicate value: "a"' in errors
    assert 'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier' in errors
    assert "spec.variables[1].expression: Required value: expression is not specified" in errors
    assert not any(e.startswith("spec.variables[2]") for e in errors)  # the server allows repeated names
    assert "spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified" in errors
    assert 'spec.auditAnnotations[1].key: Duplicate value: "k"' in errors
    assert any(e.startswith('spec.auditAnnotations[2].key: Invalid value: "demo.example.com/bad key!"') for e in errors)


def test_rules_validation():
    bad_rules = [
        {
            "apiGroups": ["*", "apps"],
            "apiVersions": ["*", "v1"],
            "operations": ["*", "CREATE"],
            "resources": ["*", "pods"],
        },
        {
            "apiGroups": [],
            "apiVersions": [""],
            "operations": ["PATCH"],
            "resources": ["*/*", "pods"],
            "scope": "Global",
        },
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "operations": ["CREATE"],
            "resources": ["pods/*", "pods/log"],
            "resourceNames": ["a", "a", "x/y"],
        },
    ]
    errors = texts(
        vap(dict(copy.deepcopy(GOOD_SPEC), matchConstraints={"resourceRules": bad_rules, "matchPolicy": "Fuzzy"}))
    )
    r = "spec.matchConstraints.resourceRules"
    assert (
        'spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"'
        in errors
    )
    assert (
        f'{r}[0].operations: Invalid value: []admissionregistration.OperationType{{"*", "CREATE"}}: '
        "if '*' is present, must not specify other operations"
    ) in errors
    assert (
        f'{r}[0].apiGroups: Invalid value: []string{{"*", "apps"}}: if \'*\' is present, must not specify other API groups'
        in errors
    )
    assert (
        f'{r}[0].resources: Invalid value: []string{{"*", "pods"}}: if \'*\' is present, must not specify other resources without subresources'
        in errors
    )
    assert f"{r}[1].apiGroups: Required value" in errors
    assert f"{r}[1].apiVersions[0]: Required value" in errors
    assert (
        f'{r}[1].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'
        in errors
    )
    assert (
        f'{r}[1].resources: Invalid value: []string{{"*/*", "pods"}}: if \'*/*\' is present, must not specify other resources'
        in errors
    )
    assert f'{r}[1].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"' in errors
    assert (
        f"{r}[2].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, must not specify pods/log" in errors
    )
    assert f'{r}[2].resourceNames[1]: Duplicate value: "a"' in errors
    assert f"{r}[2].resourceNames[2]: Invalid value: \"x/y\": may not contain '/'" in errors


def test_binding_validation():
    errors = texts(
        binding(
            {
                "validationActions": ["Deny", "Warn", "Deny", "Block"],
                "paramRef": {"name": "a", "selector": {}, "parameterNotFoundAction": "Maybe"},
                "matchResources": {"matchPolicy": "Exact", "namespaceSelector": {"matchLabels": {"a": "b c"}}},
            }
        )
    )
    assert errors[0] == "spec.policyName: Required value"
    assert "spec.paramRef.name: Forbidden: name and selector are mutually exclusive" in errors
    assert "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive" in errors
    assert (
        'spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"' in errors
    )
    assert any(e.startswith('spec.matchResources.namespaceSelector.matchLabels: Invalid value: "b c"') for e in errors)
    assert 'spec.validationActions[2]: Duplicate value: "Deny"' in errors
    assert 'spec.validationActions[3]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"' in errors
    assert any(
        e.startswith("spec.validationActions: Invalid value: []admissionregistration.ValidationAction{")
        and "must not contain both Deny and Warn" in e
        for e in errors
    )
    assert texts(binding({"policyName": "p"})) == [
        "spec.validationActions: Required value: at least one validation action is required"
    ]
    assert "spec.paramRef: Required value: one of name or selector must be specified" in texts(
        binding({"policyName": "p", "validationActions": ["Deny"], "paramRef": {}})
    )
    raw = binding({"policyName": "p", "validationActions": ["Audit"], "paramRef": {"name": "x"}})
    assert "spec.paramRef.parameterNotFoundAction: Required value" in [str(e) for e in validate_admission_object(raw)]


def test_mutating_policy_and_binding_validation():
    map_policy = {
        "apiVersion": f"{GROUP}/v1beta1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "m"},
        "spec": {
            "matchConstraints": {"resourceRules": [RULE]},
            "mutations": [
                {"patchType": "JSONPatch"},
                {
                    "patchType": "ApplyConfiguration",
                    "applyConfiguration": {"expression": "x"},
                    "jsonPatch": {"expression": "y"},
                },
                {"patchType": "Merge"},
            ],
            "reinvocationPolicy": "Sometimes",
        },
    }
    errors = texts(map_policy)
    assert "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch" in errors
    assert (
        'spec.mutations[1].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration'
        in errors
    )
    assert (
        'spec.mutations[2].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"'
        in errors
    )
    assert 'spec.reinvocationPolicy: Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"' in errors
    empty = dict(map_policy, spec={"matchConstraints": {"resourceRules": [RULE]}})
    prepared = prepare(empty)
    assert [str(e) for e in prepared.errors] == [
        "spec.mutations: Required value: mutations must contain at least one item"
    ]
    assert [w.path for w in prepared.warnings] == ["spec.reinvocationPolicy"]
    blank = dict(
        map_policy,
        spec={
            "matchConstraints": {"resourceRules": [RULE]},
            "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": " "}}, {}],
        },
    )
    assert texts(blank) == [
        "spec.mutations[0].jsonPatch.expression: Required value",
        "spec.mutations[1].patchType: Required value",
    ]
    delete_rule = dict(RULE, operations=["DELETE"])
    deleting = dict(
        map_policy,
        spec={
            "matchConstraints": {"resourceRules": [delete_rule]},
            "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}],
        },
    )
    assert texts(deleting) == [
        'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": '
        'supported values: "*", "CONNECT", "CREATE", "UPDATE"'
    ]
    assert prepare(binding({"policyName": "m"}, kind="MutatingAdmissionPolicyBinding", version="v1alpha1")).valid
    map_binding = binding(
        {"policyName": "m", "matchResources": {"resourceRules": [delete_rule]}}, kind="MutatingAdmissionPolicyBinding"
    )
    assert texts(map_binding) == [
        'spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": '
        'supported values: "*", "CONNECT", "CREATE", "UPDATE"'
    ]


def test_unknown_version_and_compile_hook():
    assert texts(vap(copy.deepcopy(GOOD_SPEC), version="v2"))[0].startswith("apiVersion: Invalid value")
    calls = []

    def compile_check(expression, context, has_params, variables):
        calls.append((expression, context, has_params))
        return (
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope'" if "nope" in expression else None
        )

    spec = dict(copy.deepcopy(GOOD_SPEC), validations=[{"expression": "nope", "messageExpression": "'m'"}])
    out = prepare(vap(spec), compile_check=compile_check)
    assert [str(e) for e in out.errors] == [
        'spec.validations[0].expression: Invalid value: "nope": compilation failed: ERROR: <input>:1:1: '
        "undeclared reference to 'nope'"
    ]
    assert ("'m'", "messageExpression", False) in calls
    assert out.message.startswith('The ValidatingAdmissionPolicy "demo.example.com" is invalid: spec.validations[0]')


def test_validation_actions_of_the_wrong_type_are_field_errors_not_crashes():
    from evaluator.admission.validation import prepare

    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": [[1], {}, "Deny", "Deny"]},
    }
    texts = [str(e) for e in prepare(binding).errors]
    assert any("spec.validationActions[0]" in t and "Unsupported value" in t for t in texts)
    assert any("spec.validationActions[3]" in t and "Duplicate value" in t for t in texts)
