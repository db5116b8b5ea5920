"""PolicyReport built from rule results."""

import yaml

from evaluator.policies.kyverno import evaluate
from evaluator.policies.kyverno.policy_report import policy_report

POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-labels
  annotations: {policies.kyverno.io/category: Best Practices, policies.kyverno.io/severity: medium}
spec:
  validationFailureAction: Audit
  rules:
  - name: check-team
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: "label team is required"
      pattern: {metadata: {labels: {team: "?*"}}}
""")


def test_report_counts_and_fields():
    request = {
        "operation": "CREATE",
        "object": {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web", "namespace": "dev", "uid": "u-1"},
            "spec": {"containers": []},
        },
    }
    report = policy_report([POLICY], evaluate([POLICY], request), request, now=100)
    assert report["kind"] == "PolicyReport" and report["metadata"]["namespace"] == "dev"
    assert report["summary"] == {"pass": 0, "fail": 1, "warn": 0, "error": 0, "skip": 0}
    [entry] = report["results"]
    assert entry["policy"] == "require-labels" and entry["rule"] == "check-team" and entry["result"] == "fail"
    assert entry["category"] == "Best Practices" and entry["severity"] == "medium" and entry["scored"] is True
    assert entry["resources"] == [{"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "dev", "uid": "u-1"}]
    assert entry["message"].startswith("validation error: label team is required.")
