"""Custom resources through `simulate`: validated against their CRD between mutating and validating admission."""

from __future__ import annotations

import copy

from evaluator import simulate

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: databases.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: databases, singular: database, kind: Database, listKind: DatabaseList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.minReplicas <= self.maxReplicas
              messageExpression: "'minReplicas of ' + self.name + ' exceeds its maxReplicas'"
              fieldPath: .minReplicas
            required: [name]
            properties:
              name: {type: string, maxLength: 63}
              engine:
                type: string
                enum: [postgres, mysql]
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: engine is immutable
              minReplicas: {type: integer}
              maxReplicas: {type: integer, maximum: 10}
              version:
                type: string
                x-kubernetes-validations:
                - rule: self.startsWith('v')
                  message: version must start with v
"""

VAP = """
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-mysql}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [example.com]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [databases]
  validations:
  - expression: object.spec.engine != 'mysql'
    message: mysql is not allowed
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-mysql}
spec:
  policyName: no-mysql
  validationActions: [Deny]
"""


def _db(**spec):
    base = {"name": "orders", "engine": "postgres", "minReplicas": 1, "maxReplicas": 3, "version": "v15"}
    base.update(spec)
    return {
        "apiVersion": "example.com/v1",
        "kind": "Database",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": base,
    }


def test_a_valid_custom_resource_is_admitted_with_every_rule_listed():
    result = simulate(CRD, {"operation": "CREATE", "object": _db()})
    assert result["allowed"] is True
    crd = result["crdValidation"]
    assert crd["crd"] == "databases.example.com" and crd["version"] == "v1"
    assert [(r["rule"], r["path"], r["value"]) for r in crd["rules"]] == [
        ("self.minReplicas <= self.maxReplicas", "spec", True),
        ("self.startsWith('v')", "spec.version", True),
    ]
    assert all(r["cost"] > 0 for r in crd["rules"])
    estimates = {e["rule"]: e for e in crd["estimatedCosts"]}
    assert estimates["self.minReplicas <= self.maxReplicas"]["estimatedCost"] == 5  # 4 selects/idents + `<=`
    assert estimates["self.startsWith('v')"]["cardinality"] == 1
    assert all(e["withinBudget"] for e in crd["estimatedCosts"])


def test_a_failing_rule_is_denied_as_422_invalid_with_message_expression_and_field_path():
    result = simulate(CRD, {"operation": "CREATE", "object": _db(minReplicas=5, version="15")})
    assert result["allowed"] is False
    assert result["status"]["code"] == 422 and result["status"]["reason"] == "Invalid"
    assert result["status"]["message"] == (
        'Database.example.com "db" is invalid: [spec.minReplicas: Invalid value: minReplicas of orders exceeds '
        'its maxReplicas, spec.version: Invalid value: "15": version must start with v]'
    )
    causes = result["statusObject"]["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.minReplicas", "spec.version"]
    assert result["kubectl"]["text"].startswith('The Database "db" is invalid: \n* spec.minReplicas: Invalid value')


def test_schema_errors_come_first_and_validating_policies_do_not_run_on_an_invalid_object():
    result = simulate(CRD + VAP, {"operation": "CREATE", "object": _db(engine="mysql", maxReplicas=20)})
    assert result["allowed"] is False
    assert result["status"]["message"] == (
        'Database.example.com "db" is invalid: spec.maxReplicas: Invalid value: 20: spec.maxReplicas in body '
        "should be less than or equal to 10"
    )
    assert result["policies"] == []  # object validation failed before validating admission


def test_a_valid_object_goes_on_to_the_validating_policies():
    result = simulate(CRD + VAP, {"operation": "CREATE", "object": _db(engine="mysql")})
    assert result["crdValidation"]["allowed"] is True
    assert result["allowed"] is False
    assert "mysql is not allowed" in result["status"]["message"]


def test_transition_rules_run_on_update_only():
    old = _db()
    new = _db(engine="mysql")
    created = simulate(CRD, {"operation": "CREATE", "object": new})
    assert created["allowed"] is True
    updated = simulate(CRD, {"operation": "UPDATE", "object": new, "oldObject": old})
    assert updated["allowed"] is False
    assert 'spec.engine: Invalid value: "mysql": engine is immutable' in updated["status"]["message"]


def test_an_unchanged_invalid_value_is_ratcheted_to_a_warning_on_update():
    old = _db(version="15")
    new = copy.deepcopy(old)
    new["spec"]["maxReplicas"] = 4
    result = simulate(CRD, {"operation": "UPDATE", "object": new, "oldObject": old})
    assert result["allowed"] is True
    assert 'spec.version: Invalid value: "15": version must start with v' in result["warnings"]


def test_a_crd_whose_rule_is_too_expensive_is_reported_with_the_api_servers_error():
    crd = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: lists.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: lists, singular: list, kind: List, listKind: ListList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              items:
                type: array
                items: {type: string}
                x-kubernetes-validations:
                - rule: self.all(x, self.exists(y, x == y))
"""
    result = simulate(
        crd,
        {
            "operation": "CREATE",
            "object": {"apiVersion": "example.com/v1", "kind": "List", "metadata": {"name": "l", "namespace": "d"}},
        },
    )
    errors = [e for e in result["errors"] if e.get("kind") == "CustomResourceDefinition"]
    paths = [e["field"] for e in errors]
    assert (
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[items].x-kubernetes-validations[0].rule"
    ) in paths
    forbidden = next(
        e
        for e in errors
        if e["field"].endswith("[0].rule")
        and e["reason"] == "FieldValueForbidden"
        and "estimated rule cost" in e["message"]
    )
    assert forbidden["message"] == (
        "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding "
        "maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )


def test_a_message_expression_of_unbounded_size_makes_the_api_server_refuse_the_crd():
    """cel-go gives `string(int)` no size bound, so concatenating it is estimated past the per-expression limit."""
    unbounded = CRD.replace(
        "'minReplicas of ' + self.name + ' exceeds its maxReplicas'",
        "'minReplicas ' + string(self.minReplicas) + ' exceeds maxReplicas'",
    )
    result = simulate(unbounded, {"operation": "CREATE", "object": _db()})
    refused = [
        e for e in result["errors"] if e.get("field", "").endswith("x-kubernetes-validations[0].messageExpression")
    ]
    assert refused and refused[0]["reason"] == "FieldValueForbidden"
    assert refused[0]["message"].startswith(
        "estimated messageExpression cost exceeds budget by factor of more than 100x"
    )
    # the CRD takes no part: its resources do not exist, so kubectl cannot map the kind
    assert result["crdValidation"]["refused"] is True
    assert result["status"]["code"] == 404 and result["status"]["reason"] == "NotFound"
    assert result["status"]["message"] == (
        'resource mapping not found for name: "db" namespace: "default" from "STDIN": no matches for kind '
        '"Database" in version "example.com/v1"\nensure CRDs are installed first'
    )
