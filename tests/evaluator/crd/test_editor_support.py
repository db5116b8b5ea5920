"""What the editor shows for CRD rules: compile errors at the character cel-go names (Kubernetes writes the
schema's map keys in brackets, `properties[spec]`), and each rule's estimated cost at the rule."""

from __future__ import annotations

from evaluator import simulate
from evaluator.simulation import load

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
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
            - rule: "self.replicas <= self.maxReplicas + self.nope"
            - rule: |
                self.items.all(i,
                  i.size() < 10)
              message: items are short
            properties:
              replicas: {type: integer}
              maxReplicas: {type: integer}
              items: {type: array, maxItems: 100, items: {type: string, maxLength: 20}}
"""
WIDGET = {
    "operation": "CREATE",
    "object": {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}},
}


def test_a_rule_compile_error_is_located_at_the_character():
    error = next(e for e in simulate(CRD, WIDGET)["errors"] if e.get("kind") == "CustomResourceDefinition")
    assert error["path"].endswith("properties[spec].x-kubernetes-validations[0].rule")
    line = CRD.split("\n")[error["line"] - 1]
    assert error["line"] == 20
    assert line[error["column"] - 1 : error["endColumn"] - 1] == "."  # cel-go points at the selection's dot
    assert line[error["column"] :].startswith("nope")


def test_each_rule_has_its_estimated_cost_at_the_rule_and_the_crd_its_total():
    fixed = CRD.replace(" + self.nope", "")
    report = load(fixed).type_checks()["widgets.example.com"]
    costs = [
        (d["fieldRef"].rsplit(".", 1)[-1], d["estimatedCost"], d["location"]["line"]) for d in report["diagnostics"]
    ]
    rule0, rule1, total = costs
    assert rule0[0] == rule1[0] == "rule"
    assert rule0[2] == 20 and rule1[2] == 22  # the block scalar's first line
    assert total[1] == rule0[1] + rule1[1] and total[2] == 14
    assert all(d["severity"] == "info" for d in report["diagnostics"])
    assert report["diagnostics"][1]["message"] == (
        f"estimated cost {rule1[1]:,}: within the per-rule limit of 10,000,000"
    )


def test_a_rule_over_budget_says_so_with_its_cardinality():
    groups = """\
              groups:
                type: array
                items:
                  type: object
                  x-kubernetes-validations:
                  - rule: self.names.all(n, n.size() < 5)
                  properties:
                    names: {type: array, items: {type: string}}
"""
    report = load(CRD.replace(" + self.nope", "") + groups).type_checks()["widgets.example.com"]
    # The API server refuses this CRD; its costs are still shown, at the rule (line 34).
    found = next(d for d in report["diagnostics"] if "groups" in d["fieldRef"])
    message = found["message"]
    assert found["location"]["line"] == 34
    assert " per evaluation × " in message and message.endswith("over the per-rule limit of 10,000,000"), message
