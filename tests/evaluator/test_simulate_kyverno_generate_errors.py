"""A Kyverno generate rule's error carries its place in the policy (line/column of the rule's field), located
as a mutate rule's error is: a missing clone source at `generate.clone`, an invalid name at `generate.name`,
a precondition that cannot be evaluated at `preconditions`."""

from __future__ import annotations

import pytest

import evaluator

POLICY = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: gen
spec:
  rules:
  - name: clone-secret
    match:
      any:
      - resources:
          kinds: [Namespace]
    generate:
      apiVersion: v1
      kind: Secret
      name: regcred
      namespace: "{{request.object.metadata.name}}"
      clone:
        namespace: default
        name: missing
  - name: bad-name
    match:
      any:
      - resources:
          kinds: [Namespace]
    generate:
      apiVersion: v1
      kind: ConfigMap
      name: "Not_A_Name"
      namespace: "{{request.object.metadata.name}}"
      data:
        data: {a: b}
  - name: data-ok
    match:
      any:
      - resources:
          kinds: [Namespace]
    generate:
      apiVersion: v1
      kind: ConfigMap
      name: fine
      namespace: "{{request.object.metadata.name}}"
      data:
        data: {a: b}
"""


def rules() -> dict:
    result = evaluator.simulate(POLICY, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod"}})
    return {r["rule"]: r for entry in result["kyverno"] for r in entry.get("generate") or ()}


def line_of(text: str) -> int:
    return next(i for i, line in enumerate(POLICY.splitlines(), 1) if line.strip().startswith(text))


@pytest.mark.parametrize(
    "rule, path, line",
    [
        ("clone-secret", "spec.rules[0].generate.clone", "clone:"),
        ("bad-name", "spec.rules[1].generate.name", 'name: "Not_A_Name"'),
    ],
)
def test_generate_errors_are_located_at_the_field(rule, path, line):
    found = rules()[rule]
    assert found["result"] == "error"
    location = found["location"]
    assert location["path"] == path
    assert location["line"] == line_of(line)
    assert location["message"] == found["message"]


def test_rules_that_generate_have_no_location_and_still_run():
    found = rules()["data-ok"]
    assert found["result"] == "pass" and "location" not in found
    assert [o["object"]["metadata"]["name"] for o in found["objects"]] == ["fine"]
