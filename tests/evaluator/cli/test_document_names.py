"""Every message and every `source` names a document by its file, never by the engine's internal `<text N>`:
a binding pointing at its policy's error, the policy's compile error, the CRD type-check report."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.cli import main

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "object.spec.replicas <= ", message: too many}
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec: {policyName: replicas, validationActions: [Deny]}
"""
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
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
            - rule: "self.size <= 10"
            properties:
              size: {type: integer}
"""
REQUEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: default}
spec: {replicas: 2}
"""


def _sources(node: object) -> list[str]:
    if isinstance(node, dict):
        return [str(v) for k, v in node.items() if k == "source"] + [s for v in node.values() for s in _sources(v)]
    if isinstance(node, list):
        return [s for v in node for s in _sources(v)]
    return []


def test_simulate_names_documents_by_their_files(tmp_path: Path, capsys):
    files = {"crd.yaml": CRD, "policy.yaml": POLICY, "binding.yaml": BINDING, "request.yaml": REQUEST}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    status = main(["simulate", *(a for name in files for a in ("-f", str(tmp_path / name))), "-o", "json"])
    out, err = capsys.readouterr()
    assert status == 2  # the policy does not compile
    assert "<text" not in out and "<text" not in err
    result = json.loads(out)
    policy = str(tmp_path / "policy.yaml")
    warning = next(e for e in result["errors"] if "so the binding has no effect" in e["message"])
    assert f"see its error in {policy} at line 9, column 42 (spec.validations[0].expression)" in warning["message"]
    assert warning["source"] == str(tmp_path / "binding.yaml")
    error = next(e for e in result["errors"] if e["severity"] == "error")
    assert (error["source"], error["line"], error["column"]) == (policy, 9, 42)
    crd_sources = set(_sources(result["typeChecking"]))
    assert str(tmp_path / "crd.yaml") in crd_sources and crd_sources <= {str(tmp_path / n) for n in files}


def test_batch_names_documents_by_their_files(tmp_path: Path, capsys):
    (tmp_path / "policies.yaml").write_text(POLICY + "---\n" + BINDING)
    (tmp_path / "dump.yaml").write_text(REQUEST)
    assert main(["batch", "-f", str(tmp_path / "policies.yaml"), "--objects", str(tmp_path / "dump.yaml")]) == 2
    err = capsys.readouterr().err
    assert "<text" not in err
    assert f"see its error in {tmp_path / 'policies.yaml'} at line 9, column 42" in err
