"""Kyverno DeletingPolicy / NamespacedDeletingPolicy inside `simulate`: result["deletions"] is the dry run of each
policy's next scheduled run over the project's documents (which objects its matchConstraints and conditions
select, with the reason), at the simulation's `now`. Semantics from kyverno/kyverno pkg/cel/policies/dpol."""

from __future__ import annotations

import datetime as dt

import evaluator

NOW = dt.datetime(2026, 12, 5, 0, 30, tzinfo=dt.timezone.utc)
POLICY = """\
apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata:
  name: cleanup-test-pods
spec:
  schedule: "0 1 * * *"
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      resources: ["pods"]
  variables:
  - name: env
    expression: object.metadata.?labels.env.orValue("")
  conditions:
  - name: is-test
    expression: variables.env == "test"
  - name: in-a-test-namespace
    expression: namespaceObject.metadata.?labels.purpose.orValue("") == "testing"
"""
OBJECTS = """\
apiVersion: v1
kind: Namespace
metadata: {name: qa, labels: {purpose: testing}}
---
apiVersion: v1
kind: Pod
metadata: {name: old-test, namespace: qa, labels: {env: test}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: keeper, namespace: qa}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: test-in-prod, namespace: prod, labels: {env: test}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-pod, namespace: qa, labels: {env: test}}
"""
REQUEST = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "trigger", "namespace": "qa"}}


def deletions(text: str, now: dt.datetime = NOW) -> dict[str, dict]:
    result = evaluator.simulate(text, REQUEST, now=now)
    return {d["policy"]: d for d in result["deletions"]}


def test_the_next_run_deletes_what_every_condition_selects_and_says_why_it_keeps_the_rest():
    entry = deletions(POLICY + "---\n" + OBJECTS)["cleanup-test-pods"]
    assert (entry["schedule"], entry["now"], entry["nextRun"]) == (
        "0 1 * * *",
        "2026-12-05T00:30:00Z",
        "2026-12-05T01:00:00Z",
    )
    got = {(o["namespace"], o["name"]): (o["result"], o["reason"]) for o in entry["objects"]}
    assert got == {
        ("qa", "old-test"): ("delete", "every condition is true: is-test, in-a-test-namespace"),
        ("qa", "keeper"): ("keep", "condition 'is-test' is false"),
        ("prod", "test-in-prod"): ("keep", "condition 'in-a-test-namespace' is false"),
    }
    assert (entry["deletes"], entry["errors"]) == (1, 0)


def test_now_moves_the_next_run():
    later = dt.datetime(2026, 12, 5, 1, 0, tzinfo=dt.timezone.utc)
    assert deletions(POLICY + "---\n" + OBJECTS, later)["cleanup-test-pods"]["nextRun"] == "2026-12-06T01:00:00Z"


def test_a_namespaced_policy_only_sees_its_namespace():
    text = POLICY.replace("kind: DeletingPolicy", "kind: NamespacedDeletingPolicy").replace(
        "name: cleanup-test-pods", "name: cleanup-test-pods\n  namespace: prod"
    )
    entry = deletions(text + "---\n" + OBJECTS)["cleanup-test-pods"]
    assert entry["namespace"] == "prod"
    assert [(o["name"], o["result"]) for o in entry["objects"]] == [("test-in-prod", "keep")]


def test_a_cel_policy_exception_spares_an_object():
    exception = """\
---
apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: keep-old-test, namespace: qa}
spec:
  policyRefs: [{name: cleanup-test-pods, kind: DeletingPolicy}]
  matchConditions:
  - name: this-one
    expression: object.metadata.name == "old-test"
"""
    entry = deletions(POLICY + "---\n" + OBJECTS + exception)["cleanup-test-pods"]
    [old] = [o for o in entry["objects"] if o["name"] == "old-test"]
    assert (old["result"], old["reason"], old["exceptions"]) == (
        "keep",
        "spared by policy exception: qa/keep-old-test",
        ["qa/keep-old-test"],
    )


def test_an_evaluation_error_is_reported_per_object_unless_another_condition_is_false():
    text = POLICY.replace('variables.env == "test"', "object.spec.missing == 1")
    entry = deletions(text + "---\n" + OBJECTS)["cleanup-test-pods"]
    got = {o["name"]: (o["result"], o["reason"]) for o in entry["objects"]}
    assert got["old-test"][0] == got["keeper"][0] == "error"
    assert "missing" in got["old-test"][1]
    # Kyverno collects condition errors but answers false as soon as one condition is false
    assert got["test-in-prod"] == ("keep", "condition 'in-a-test-namespace' is false")
    assert entry["errors"] == 2


def test_bad_policies_give_located_errors_and_the_good_one_still_runs():
    bad_cron = POLICY.replace('"0 1 * * *"', '"every night"').replace("name: cleanup-test-pods", "name: bad-cron")
    bad_cel = POLICY.replace('variables.env == "test"', "variables.env ==").replace(
        "name: cleanup-test-pods", "name: bad-cel"
    )
    bad_version = POLICY.replace("policies.kyverno.io/v1", "policies.kyverno.io/v9").replace(
        "name: cleanup-test-pods", "name: bad-version"
    )
    text = "---\n".join([bad_cron, bad_cel, bad_version, POLICY, OBJECTS])
    result = evaluator.simulate(text, REQUEST, now=NOW)
    errors = {(e["name"], e["path"]): e for e in result["documentErrors"] if e["severity"] == "error"}
    cron = errors[("bad-cron", "spec.schedule")]
    assert cron["message"].startswith(
        'spec.schedule: Invalid value: "every night": schedule spec in the deletingPolicy is not in proper cron format: '
    )
    assert cron["line"] == 6 and cron["document"] == 0
    assert "Syntax error" in errors[("bad-cel", "spec.conditions[0].expression")]["message"]
    assert errors[("bad-version", "apiVersion")]["message"] == (
        'no matches for kind "DeletingPolicy" in version "policies.kyverno.io/v9"'
    )
    by_policy = {d["policy"]: d for d in result["deletions"]}
    assert by_policy["bad-cron"]["nextRun"] is None and "not a cron expression" in by_policy["bad-cron"]["error"]
    assert by_policy["bad-cel"]["objects"] == [] and "failed to compile policy" in by_policy["bad-cel"]["error"]
    assert by_policy["cleanup-test-pods"]["deletes"] == 1


def test_cel_bind_works_in_kyverno_policies_only():
    text = POLICY.replace('variables.env == "test"', 'cel.bind(e, variables.env, e == "test")')
    assert deletions(text + "---\n" + OBJECTS)["cleanup-test-pods"]["deletes"] == 1
    vap = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: cel.bind(x, 1, x == 1)
"""
    result = evaluator.simulate(vap, REQUEST)
    assert any("cel" in e["message"] for e in result["documentErrors"] if e["severity"] == "error")


def test_no_deleting_policy_leaves_the_key_empty():
    assert evaluator.simulate(OBJECTS, REQUEST, now=NOW)["deletions"] == []
