"""`evaluator.simulate` with Kyverno mutate rules: Kyverno's mutating webhook runs in the mutating stage, the
validating stage sees what it patched, and a rule's error denies as Kyverno's mutation handler does under
failurePolicy Fail (pkg/webhooks/resource/mutation/mutation.go) or drops that policy's patches under Ignore."""

from __future__ import annotations

import copy
import json

import evaluator

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


def request(obj: dict = POD) -> dict:
    return {"operation": "CREATE", "object": copy.deepcopy(obj), "namespace": "default"}


def policy(name: str, *rules: dict, **spec: object) -> dict:
    return {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": name},
        "spec": {"rules": list(rules), **spec},
    }


def mutate_rule(name: str, mutation: dict) -> dict:
    return {"name": name, "match": {"any": [{"resources": {"kinds": ["Pod"]}}]}, "mutate": mutation}


BROKEN = mutate_rule("broken", {"patchesJson6902": "- op: replace\n  path: /spec/nope/x\n  value: 1"})
LABEL = mutate_rule("label", {"patchStrategicMerge": {"metadata": {"labels": {"a": "b"}}}})


def test_simulate_applies_kyverno_mutations_before_validation():
    mutate_and_check = {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "team"},
        "spec": {
            "rules": [
                {
                    "name": "default-team",
                    "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                    "mutate": {"patchStrategicMerge": {"metadata": {"labels": {"+(team)": "core"}}}},
                },
                {
                    "name": "require-team",
                    "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                    "validate": {
                        "failureAction": "Enforce",
                        "message": "a team label is required",
                        "pattern": {"metadata": {"labels": {"team": "?*"}}},
                    },
                },
            ]
        },
    }
    result = evaluator.simulate([mutate_and_check], request())
    assert result["allowed"] is True
    mutation = result["kyvernoMutation"]
    assert mutation["patchedObject"]["metadata"]["labels"] == {"team": "core"}
    assert [(m["policy"], m["rule"], m["result"]) for m in mutation["mutations"]] == [("team", "default-team", "pass")]
    assert {"op": "add", "path": "/metadata/labels", "value": {"team": "core"}} in mutation["patch"]
    assert "+    team: core" in mutation["diff"] or "+  labels:" in mutation["diff"]
    validate = result["kyverno"][0]["rules"]
    assert [(r["rule"], r["result"]) for r in validate] == [("require-team", "pass")]
    assert json.loads(json.dumps(result)) == result
    without = evaluator.simulate([], request())
    assert without["kyvernoMutation"] is None


def test_a_rule_error_denies_under_failure_policy_fail():
    result = evaluator.simulate([policy("p", BROKEN, LABEL)], request())
    assert result["allowed"] is False
    assert result["status"]["message"] == (
        'admission webhook "mutate.kyverno.svc-fail" denied the request: mutation policy p error: failed to apply '
        "policy p rules [broken: failed to patch resource: replace operation does not apply: doc is missing path: "
        "/spec/nope/x: missing value]"
    )
    # every rule still ran and is reported
    assert [(m["rule"], m["result"]) for m in result["kyvernoMutation"]["mutations"]] == [
        ("broken", "error"),
        ("label", "pass"),
    ]


def test_under_ignore_the_failed_policys_patches_are_left_out_and_the_others_apply():
    ignored = policy("p", BROKEN, LABEL, failurePolicy="Ignore")
    other = policy("q", mutate_rule("ann", {"patchStrategicMerge": {"metadata": {"annotations": {"x": "y"}}}}))
    other["spec"]["failurePolicy"] = "Ignore"
    result = evaluator.simulate([ignored, other], request())
    assert result["allowed"] is True
    mutation = result["kyvernoMutation"]
    assert mutation["ignoredPolicies"] == ["p"]
    assert "labels" not in mutation["patchedObject"]["metadata"]
    assert mutation["patchedObject"]["metadata"]["annotations"] == {"x": "y"}
    assert mutation["patch"] == [{"op": "add", "path": "/metadata/annotations", "value": {"x": "y"}}]


def test_a_rule_error_says_where_in_the_policy_it_is():
    text = """apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: p
spec:
  failurePolicy: Ignore
  rules:
  - name: broken
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchesJson6902: |-
        - op: replace
          path: /spec/nope/x
          value: 1
"""
    result = evaluator.simulate(text, request())
    assert result["allowed"] is True
    (mutation,) = result["kyvernoMutation"]["mutations"]
    location = mutation["location"]
    assert (location["path"], location["line"], location["column"]) == ("spec.rules[0].mutate.patchesJson6902", 15, 9)
    assert location["message"] == mutation["message"]


BAD_SPECS = [
    "x",
    {"rules": "x"},
    {"rules": ["x"]},
    {"rules": [{"name": "r", "match": {"any": [{"resources": {"kinds": ["Pod"]}}]}, "mutate": "x"}]},
    {"rules": [mutate_rule("r", {"patchStrategicMerge": "not a map"})]},
    {"rules": [mutate_rule("r", {"foreach": "x"})]},
    {"rules": [mutate_rule("r", {"foreach": [{"list": 5}]})]},
    {"rules": [mutate_rule("r", {"patchesJson6902": 5})]},
    {"rules": [mutate_rule("r", {"patchesJson6902": "{a: 1}"})]},
    {"rules": [mutate_rule("r", {"targets": ["x"], "patchStrategicMerge": {}})]},
]


def test_malformed_mutate_rules_are_reported_never_raised():
    for spec in BAD_SPECS:
        bad = {"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy", "metadata": {"name": "bad"}, "spec": spec}
        result = evaluator.simulate([bad], request())
        assert json.loads(json.dumps(result)) == result
        assert not any("internal error" in str(e.get("message")) for e in result["errors"]), (spec, result["errors"])
        mutation = result["kyvernoMutation"]
        if mutation is not None:
            assert all(m["result"] in ("pass", "skip", "error") for m in mutation["mutations"])


def test_a_batch_run_leaves_out_the_yaml_diff_but_keeps_the_patches():
    from evaluator.simulation import Simulation

    full = Simulation([policy("p", LABEL)]).run(request())["kyvernoMutation"]
    batch = Simulation([policy("p", LABEL)]).run(request(), trace=False, full=False)["kyvernoMutation"]
    assert "+    a: b" in full["diff"]
    assert batch["diff"] is None
    assert batch["patch"] == full["patch"] == [{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]
    assert batch["patchedObject"] == full["patchedObject"]
    assert {**batch, "diff": full["diff"]} == full
