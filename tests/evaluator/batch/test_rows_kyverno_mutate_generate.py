"""Batch rows and counts for Kyverno mutate and generate rules: `mutated` and `generated` per policy (objects
changed or generated for), rule errors as `error`, and both in the CSV and PolicyReport exports."""

from __future__ import annotations

import csv
import io

from evaluator.batch import Summary, csv_text, policy_reports, run_chunk

from .policies import deployment

KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
  - name: default-team
    match: {any: [{resources: {kinds: [Deployment]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            +(team): core
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: broken}
spec:
  failurePolicy: Ignore
  rules:
  - name: bad-patch
    match: {any: [{resources: {kinds: [Deployment], names: [bad-*]}}]}
    mutate:
      patchesJson6902: |-
        - op: replace
          path: /spec/nope/x
          value: 1
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: quota}
spec:
  rules:
  - name: namespace-quota
    match: {any: [{resources: {kinds: [Namespace]}}]}
    generate:
      apiVersion: v1
      kind: ResourceQuota
      name: default-quota
      namespace: "{{request.object.metadata.name}}"
      data:
        spec: {hard: {pods: "10"}}
"""

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod"}}


def unlabelled(name: str) -> dict:
    obj = deployment(name, 1)
    obj["metadata"].pop("labels", None)
    return obj


def outcomes(row: dict) -> list[tuple]:
    return [(o["policy"], o["binding"], o["outcome"]) for o in row["policies"]]


def test_mutations_and_generations_are_counted_per_policy():
    objects = [unlabelled("web"), deployment("api", 1), unlabelled("bad-one"), NAMESPACE]
    rows = run_chunk(KYVERNO, objects)
    assert outcomes(rows[0]) == [("add-team", "default-team", "mutated")]
    assert outcomes(rows[1]) == []  # it has a team label: the +() anchor adds nothing
    assert outcomes(rows[2]) == [("add-team", "default-team", "mutated"), ("broken", "bad-patch", "error")]
    # add-team (failurePolicy Fail, the default) comes first, and Kyverno keeps Fail in force after it
    assert rows[2]["allowed"] is False
    assert rows[2]["message"].startswith('admission webhook "mutate.kyverno.svc-fail" denied the request: ')
    assert outcomes(rows[3]) == [("quota", "namespace-quota", "generated")]
    assert rows[3]["policies"][0]["message"] == "create ResourceQuota prod/default-quota"
    summary = Summary.from_rows(rows).as_dict()["policies"]
    assert summary["ClusterPolicy/add-team"]["mutated"] == 2
    assert summary["ClusterPolicy/quota"]["generated"] == 1
    assert summary["ClusterPolicy/broken"]["error"] == 1
    merged = Summary.from_rows(rows[:2]).merge(Summary.from_rows(rows[2:]))
    assert merged == Summary.from_rows(rows)
    assert "mutated 2" in Summary.from_rows(rows).text() and "generated 1" in Summary.from_rows(rows).text()


def test_exports_carry_mutated_and_generated_outcomes():
    rows = run_chunk(KYVERNO, [unlabelled("web"), NAMESPACE])
    lines = list(csv.DictReader(io.StringIO(csv_text(rows))))
    assert [(line["policy"], line["outcome"]) for line in lines] == [
        ("add-team", "mutated"),
        ("quota", "generated"),
    ]
    reports = policy_reports(rows, KYVERNO, now=0)
    results = [r for report in reports for r in report["results"]]
    assert sorted((r["policy"], r["rule"], r["result"]) for r in results) == [
        ("add-team", "default-team", "pass"),
        ("quota", "namespace-quota", "pass"),
    ]
