"""A batch row's errors name the object they are about (`Kind namespace/name`, or `object N` when it has no
kind or name), never `request`: in a dump of thousands, `request` names none of them."""

from __future__ import annotations

from evaluator.batch.engine import explain, object_name, run_chunk
from evaluator.batch.rows import label

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints: {resourceRules: [{apiGroups: ['*'], apiVersions: ['*'], operations: [CREATE], resources: ['*']}]}
  validations: [{expression: 'has(object.spec)'}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""
OBJECTS = [
    {"apiVersion": "v1/x/y", "kind": "Pod", "metadata": {"name": "bad-api", "namespace": "team"}},
    {"apiVersion": "v1/x/y", "kind": "Namespace", "metadata": {"name": "cluster-wide"}},
    {"apiVersion": "v1/x/y", "kind": "Pod", "metadata": {}},
]


def test_a_rows_request_error_names_the_object():
    rows = run_chunk([POLICY], OBJECTS)
    assert [r["message"] for r in rows] == [
        f'{name}: request.object.apiVersion: Invalid value: "v1/x/y": must be "<group>/<version>" or "v1"'
        for name in ("Pod team/bad-api", "Namespace cluster-wide", "object 3")
    ]
    assert [label(r) for r in rows] == ["Pod team/bad-api", "Namespace cluster-wide", "object 3"]


def test_a_drill_down_names_the_object_as_the_source_of_its_errors():
    result = explain([POLICY], OBJECTS[0], index=0)
    assert {e["source"] for e in result["requestErrors"]} == {"Pod team/bad-api"}
    assert object_name(6, "not an object") == "object 7"
