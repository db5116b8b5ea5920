"""Our own diagnostics: every expression of the policy, result types, runtime bindings, one entry per issue."""

from __future__ import annotations

import pytest

from evaluator.typechecking import typecheck

from .helpers import diagnostics, policy, warnings


def _one(result: dict, field_ref: str) -> dict:
    found = diagnostics(result, field_ref)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    "expression, code, message, column",
    [
        ("object.nope", "undefined-field", "undefined field 'nope'", 7),
        (
            "object.spec.replicas > 'x'",
            "no-matching-overload",
            "found no matching overload for '_>_' applied to '(int, string)'",
            22,
        ),
        ("nope == 1", "undeclared-reference", "undeclared reference to 'nope' (in container '')", 1),
        ("object.spec.replicas.x", "no-field-selection", "type 'int' does not support field selection", 21),
        ("object.spec.replicas >", "syntax", "Syntax error: mismatched input '<EOF>'", 23),
        ("[1, 'a'].size() > 0", "mixed-literal", "expected type 'int' but found 'string'", 5),
    ],
)
def test_error_classes_in_match_conditions(expression, code, message, column):
    result = typecheck(policy("true", matchConditions=[{"name": "m", "expression": expression}]))
    found = [d for d in diagnostics(result, "spec.matchConditions[0].expression") if d["code"] != "result-type"]
    assert len(found) == 1, found
    entry = found[0]
    assert entry["code"] == code and entry["message"].startswith(message)
    assert (entry["line"], entry["column"]) == (1, column)
    assert entry["origin"] == "playground" and entry["types"] == ["apps/v1, Kind=Deployment"]
    assert result["status"] == {"typeChecking": {}}, "matchConditions are not in the server's status"


@pytest.mark.parametrize(
    "spec, field_ref, message",
    [
        (
            {"validations": [{"expression": "'yes'"}]},
            "spec.validations[0].expression",
            "must evaluate to bool but got string",
        ),
        (
            {"validations": [{"expression": "true", "messageExpression": "request.dryRun"}]},
            "spec.validations[0].messageExpression",
            "must evaluate to string but got bool",
        ),
        (
            {"matchConditions": [{"name": "m", "expression": "request.name"}]},
            "spec.matchConditions[0].expression",
            "must evaluate to bool but got string",
        ),
        (
            {"auditAnnotations": [{"key": "k", "valueExpression": "request.dryRun"}]},
            "spec.auditAnnotations[0].valueExpression",
            "must evaluate to one of [string null_type] but got bool",
        ),
        # The plugin compiles with `object` as dyn, and dyn is not exactly bool (compile.go IsExactType).
        (
            {"validations": [{"expression": "object.spec.paused"}]},
            "spec.validations[0].expression",
            "must evaluate to bool but got dyn",
        ),
        (
            {"validations": [{"expression": "variables.v"}], "variables": [{"name": "v", "expression": "object.spec"}]},
            "spec.validations[0].expression",
            "must evaluate to bool but got dyn",
        ),
    ],
)
def test_result_types(spec, field_ref, message):
    p = policy("true")
    p["spec"].update(spec)
    entry = _one(typecheck(p), field_ref)
    assert entry["code"] == "result-type" and entry["message"] == message
    assert entry["origin"] == "playground"


@pytest.mark.parametrize(
    "expression", ["object.spec.paused == true", "has(object.spec.paused)", "variables.flag", "request.dryRun"]
)
def test_bool_results_are_accepted(expression):
    result = typecheck(policy(expression, variables=[{"name": "flag", "expression": "true"}]))
    assert diagnostics(result) == []


def test_audit_annotation_may_be_null_or_string():
    p = policy(
        "true",
        auditAnnotations=[
            {"key": "a", "valueExpression": "null"},
            {"key": "b", "valueExpression": "request.name"},
            {"key": "c", "valueExpression": "string(object.spec.replicas)"},
        ],
    )
    assert diagnostics(typecheck(p)) == []


def test_variable_errors_are_reported_as_ours():
    result = typecheck(policy("true", variables=[{"name": "v", "expression": "object.spec.nope"}]))
    entry = _one(result, "spec.variables[0].expression")
    assert entry["message"] == "undefined field 'nope'" and entry["origin"] == "playground"


def test_server_warnings_are_also_diagnostics_labelled_server():
    result = typecheck(policy("object.replicas > 1"))
    entry = _one(result, "spec.validations[0].expression")
    assert entry["origin"] == "server" and (entry["line"], entry["column"]) == (1, 7)


def test_authorizer_request_resource_is_a_server_warning_but_fine_at_runtime():
    result = typecheck(policy("authorizer.requestResource.check('get').allowed()"))
    entry = _one(result, "spec.validations[0].expression")
    assert entry["origin"] == "server" and entry["message"] == "undefined field 'requestResource'"


def test_message_expressions_have_no_authorizer_at_runtime():
    p = policy({"expression": "true", "messageExpression": "authorizer.group('').resource('x').check('get').reason()"})
    result = typecheck(p)
    assert result["status"] == {"typeChecking": {}}
    entry = _one(result, "spec.validations[0].messageExpression")
    assert entry["code"] == "undeclared-reference" and entry["origin"] == "playground"


def test_the_same_issue_on_several_kinds_is_one_entry():
    rules = [{"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments", "replicasets"]}]
    entry = _one(typecheck(policy("object.replicas > 1", rules=rules)), "spec.validations[0].expression")
    assert entry["types"] == ["apps/v1, Kind=Deployment", "apps/v1, Kind=ReplicaSet"]


def test_untyped_policies_are_still_checked_with_dyn_objects():
    wildcard = [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]
    result = typecheck(policy("object.anything == 1 && authorizer.allowed()", rules=wildcard))
    assert result["status"] == {"typeChecking": {}}
    entry = _one(result, "spec.validations[0].expression")
    assert entry["message"].startswith("found no matching overload for 'allowed'") and entry["types"] == []
    assert [d["code"] for d in diagnostics(result, severity="info")] == ["types-not-checked"]


def test_notes_for_unresolved_schemas_and_params():
    rules = [{"apiGroups": ["example.com"], "apiVersions": ["v1"], "resources": ["widgets"]}]
    result = typecheck(policy("true", rules=rules, paramKind={"apiVersion": "a/b/c", "kind": "X"}))
    codes = [d["code"] for d in diagnostics(result, severity="info")]
    assert "types-not-checked" in codes and "params-undeclared" in codes
    result = typecheck(policy("true", paramKind={"apiVersion": "example.com/v1", "kind": "Widget"}))
    assert [d["code"] for d in diagnostics(result, severity="info")] == ["params-untyped"]


def test_no_notes_when_everything_resolves():
    assert diagnostics(typecheck(policy("true")), severity="info") == []


def test_a_matched_crd_without_a_schema_is_noted_and_skipped():
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    rules = [{"apiGroups": ["example.com"], "apiVersions": ["v1"], "resources": ["widgets"]}]
    result = typecheck(policy("object.nope == 1", rules=rules), [crd])
    assert result["typesMatched"] == [{"group": "example.com", "version": "v1", "kind": "Widget"}]
    assert result["typesChecked"] == [] and result["status"] == {"typeChecking": {}}
    assert "schema-not-found" in [d["code"] for d in diagnostics(result, severity="info")]


def _replica_limit_crd(schema: dict) -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "replicalimits.rules.example.com"},
        "spec": {
            "group": "rules.example.com",
            "scope": "Namespaced",
            "names": {"plural": "replicalimits", "singular": "replicalimit", "kind": "ReplicaLimit"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def test_params_of_a_custom_kind_are_typed_only_by_the_declared_schema():
    """typechecking.go: an unresolvable paramKind leaves `params` dyn (no warning); a resolvable one is typed
    by SchemaDeclType, which ignores x-kubernetes-preserve-unknown-fields (only declared properties exist)."""
    expression = "object.spec.replicas <= params.maxReplicas"
    vap = policy(expression, paramKind={"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"})
    assert warnings(typecheck(vap, [vap])) == []
    preserving = _replica_limit_crd({"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    result = typecheck(vap, [vap, preserving])
    (warning,) = warnings(result)
    assert [d["code"] for d in diagnostics(result, severity="info")] == ["params-preserved-fields"]
    assert warning["warning"] == (
        "apps/v1, Kind=Deployment: ERROR: <input>:1:31: undefined field 'maxReplicas'\n"
        f" | {expression}\n | ..............................^\n"
    )
    declared = _replica_limit_crd(
        {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"maxReplicas": {"type": "integer"}},
        }
    )
    assert warnings(typecheck(vap, [vap, declared])) == []
