"""Per policy, an object is counted once (at its worst rule's or binding's outcome), with per-rule counts
beside: a two-rule Kyverno policy used to count one object as both admitted and audited."""

from __future__ import annotations

import yaml

from evaluator.batch import Summary, run_chunk
from evaluator.batch.summary import EXAMPLES_PER_POLICY

TWO_RULES = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: pod-hygiene}
spec:
  validationFailureAction: Audit
  rules:
  - name: team-label
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: a team label is required
      pattern: {metadata: {labels: {team: "?*"}}}
  - name: no-latest
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: no latest tag
      pattern: {spec: {containers: [{image: "!*:latest"}]}}
"""


def pod(i: int) -> dict:
    labels = {"team": "a"} if i % 2 else {}
    image = "nginx:latest" if i % 3 == 0 else "nginx:1.27"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"p{i}", "namespace": "default", "labels": labels},
        "spec": {"containers": [{"name": "c", "image": image}]},
    }


def test_a_multi_rule_kyverno_policy_counts_each_object_once_with_rule_counts_beside():
    pods = [pod(i) for i in range(30)]
    rows = run_chunk(TWO_RULES, pods)
    summary = Summary.from_rows(rows).as_dict()
    entry = summary["policies"]["ClusterPolicy/pod-hygiene"]
    counts = {name: entry[name] for name in ("admitted", "denied", "warned", "audited", "error")}
    unlabelled = {i for i in range(30) if i % 2 == 0}
    latest = {i for i in range(30) if i % 3 == 0}
    assert counts == {
        "admitted": 30 - len(unlabelled | latest),
        "denied": 0,
        "warned": 0,
        "audited": len(unlabelled | latest),
        "error": 0,
    }
    assert sum(counts.values()) == len(pods)  # once per object in scope
    assert entry["rules"] == {
        "no-latest": {"admitted": 30 - len(latest), "denied": 0, "warned": 0, "audited": len(latest), "error": 0},
        "team-label": {"admitted": 15, "denied": 0, "warned": 0, "audited": 15, "error": 0},
    }
    assert len(entry["examples"]["audited"]) == EXAMPLES_PER_POLICY
    text = Summary.from_rows(rows).text()
    assert "ClusterPolicy/pod-hygiene: denied 0, warned 0, audited 20, errors 0, admitted 10" in text
    assert "    rule no-latest: audited 10, admitted 20" in text


def test_chunked_summaries_merge_to_the_whole_with_rule_counts():
    pods = [pod(i) for i in range(30)]
    whole = Summary.from_rows(run_chunk(TWO_RULES, pods))
    merged = Summary.from_rows(run_chunk(TWO_RULES, pods[:11]))
    merged.merge(Summary.from_rows(run_chunk(TWO_RULES, pods[11:], start=11)))
    assert merged == whole
    assert Summary.from_dict(yaml.safe_load(yaml.safe_dump(whole.as_dict()))) == whole


def test_the_worst_outcome_wins_and_mutations_count_beside():
    row = {
        "index": 0,
        "kind": "Pod",
        "namespace": "default",
        "name": "p",
        "allowed": False,
        "warnings": [],
        "policies": [
            {"kind": "ClusterPolicy", "policy": "p", "binding": "a", "outcome": "warned", "message": "w"},
            {"kind": "ClusterPolicy", "policy": "p", "binding": "b", "outcome": "denied", "message": "d"},
            {"kind": "ClusterPolicy", "policy": "p", "binding": "c", "outcome": "admitted", "message": None},
            {"kind": "ClusterPolicy", "policy": "p", "binding": "m", "outcome": "mutated", "message": None},
        ],
    }
    entry = Summary.from_rows([row]).as_dict()["policies"]["ClusterPolicy/p"]
    assert (entry["denied"], entry["warned"], entry["admitted"], entry["mutated"]) == (1, 0, 0, 1)
    assert entry["examples"] == {
        "denied": [{"index": 0, "object": "Pod default/p", "message": "d"}],
        "mutated": [{"index": 0, "object": "Pod default/p", "message": None}],
    }
    assert entry["rules"]["a"]["warned"] == 1 and entry["rules"]["m"]["mutated"] == 1
