"""MutatingPolicy in `evaluator.simulate`: Kyverno's mpol webhook mutates the object before validation, each
policy's result lists its mutations (patch, object after it), errors are located and worded as Kyverno's."""

from __future__ import annotations

from pathlib import Path

import yaml

from evaluator import simulate

DATA = Path(__file__).resolve().parents[2] / "data" / "kyverno-mpol"
SAFE_TO_EVICT = list(yaml.safe_load_all((DATA / "add-safe-to-evict" / "add-safe-to-evict.yaml").read_text()))
ANNOTATION = "cluster-autoscaler.kubernetes.io/safe-to-evict"

REQUIRE_ANNOTATION = """
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: require-safe-to-evict}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "has(object.metadata.annotations) && 'cluster-autoscaler.kubernetes.io/safe-to-evict' in object.metadata.annotations"
    message: the safe-to-evict annotation is required
"""


def _pod(volumes: list | None = None, **meta) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "nginx"}]}
    if volumes is not None:
        spec["volumes"] = volumes
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", **meta}, "spec": spec}


def _mpol(result: dict, name: str) -> dict:
    return next(r for r in result["kyverno"] if r["kind"] == "MutatingPolicy" and r["policy"] == name)


def test_the_mutation_applies_before_validation_and_is_described():
    docs = SAFE_TO_EVICT + list(yaml.safe_load_all(REQUIRE_ANNOTATION))
    result = simulate(docs, {"operation": "CREATE", "object": _pod([{"name": "v", "emptyDir": {}}])})
    assert result["allowed"] is True
    mpol = _mpol(result, "add-safe-to-evict")
    assert mpol["rules"] == [{"rule": "", "result": "pass", "message": "success", "autogen": ""}]
    (mutation,) = mpol["mutations"]
    assert mutation["patchType"] == "ApplyConfiguration" and mutation["error"] is None
    assert mutation["patch"] == [{"op": "add", "path": "/metadata/annotations", "value": {ANNOTATION: "true"}}]
    assert mutation["object"]["metadata"]["annotations"] == {ANNOTATION: "true"}
    assert mpol["patch"] == mutation["patch"]
    assert [(p["phase"], p["policy"]) for p in result["mutationPhases"]] == [("MutatingPolicy", "add-safe-to-evict")]
    assert result["response"]["response"]["patchType"] == "JSONPatch"  # the AdmissionReview carries the patch
    vpol = next(r for r in result["kyverno"] if r["kind"] == "ValidatingPolicy")
    assert [r["result"] for r in vpol["rules"]] == ["pass"]  # it saw the mutated object


def test_unmet_match_conditions_skip_and_validation_then_denies():
    docs = SAFE_TO_EVICT + list(yaml.safe_load_all(REQUIRE_ANNOTATION))
    result = simulate(docs, {"operation": "CREATE", "object": _pod()})
    assert _mpol(result, "add-safe-to-evict")["rules"] == [
        {"rule": "", "result": "skip", "message": "skip", "autogen": ""}
    ]
    assert result["mutationPhases"] == []
    assert result["allowed"] is False
    assert "the safe-to-evict annotation is required" in result["status"]["message"]


AUTOGEN = """
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: add-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions:
  - name: no-priority-class
    expression: "!has(object.spec.priorityClassName)"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{spec: Object.spec{priorityClassName: 'high'}}"
"""


def test_pod_policies_also_mutate_pod_controllers_through_autogen():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    result = simulate(AUTOGEN, {"operation": "CREATE", "object": deployment})
    mpol = _mpol(result, "add-team")
    assert [(r["result"], r["autogen"]) for r in mpol["rules"]] == [("pass", "defaults")]
    assert mpol["notApplicable"] == ["add-team", "autogen-cronjobs"]
    assert mpol["patch"] == [{"op": "add", "path": "/spec/template/spec/priorityClassName", "value": "high"}]
    assert result["patchedObject"]["spec"]["template"]["spec"]["priorityClassName"] == "high"
    assert {a["config"] for a in mpol["autogen"]} == {"defaults", "cronjobs"}


BROKEN = """
apiVersion: policies.kyverno.io/v2
kind: MutatingPolicy
metadata: {name: bad-version}
spec: {}
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: bad-cel}
spec:
  failurePolicy: Ignore
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: object.nope +}]"
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: does-not-apply}
spec:
  failurePolicy: Ignore
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'remove', path: '/metadata/labels/missing'}]"
"""


def test_bad_policies_are_located_errors_and_the_others_still_run():
    result = simulate(BROKEN + "---" + AUTOGEN, {"operation": "CREATE", "object": _pod()})
    errors = {(e["name"], e["path"]): e for e in result["documentErrors"]}
    version = errors[("bad-version", "apiVersion")]
    assert version["message"] == 'no matches for kind "MutatingPolicy" in version "policies.kyverno.io/v2"'
    assert (version["document"], version["line"]) == (0, 2)
    cel = errors[("bad-cel", "spec.mutations[0].jsonPatch.expression")]
    assert (cel["document"], cel["line"]) == (1, 17)
    assert "Syntax error: mismatched input '}'" in cel["message"]
    assert {r["policy"] for r in result["kyverno"]} == {"bad-cel", "does-not-apply", "add-team"}
    (failed,) = _mpol(result, "does-not-apply")["rules"]
    assert failed["result"] == "error" and failed["message"].startswith("failed to evaluate policy: ")
    # the mutation that did not apply points at its expression
    (mutation,) = _mpol(result, "does-not-apply")["mutations"]
    assert mutation["path"] == "spec.mutations[0].jsonPatch.expression"
    assert (mutation["location"]["document"], mutation["location"]["line"]) == (2, 29)
    line = (BROKEN + "---" + AUTOGEN).splitlines()[28]
    assert line.strip().startswith("expression:") and "remove" in line
    # failurePolicy Ignore: the errors do not deny, and the other policy's mutation applies
    assert result["allowed"] is True
    assert result["patchedObject"]["spec"]["priorityClassName"] == "high"


def test_an_error_under_failure_policy_fail_denies_as_kyvernos_webhook():
    docs = BROKEN.replace("failurePolicy: Ignore", "failurePolicy: Fail")
    result = simulate(docs, {"operation": "CREATE", "object": _pod()})
    assert result["allowed"] is False
    message = result["status"]["message"]
    assert message.startswith(
        'admission webhook "mpol.validate.kyverno.svc-fail" denied the request: Resource: default/p, Kind: Pod, '
        "Errors: [Policy bad-cel: failed to evaluate policy: failed to compile policy bad-cel ("
    )
    assert "Policy does-not-apply: failed to evaluate policy: " in message


REINVOKED = """
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: copy-team}
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'owner': object.metadata.?labels.team.orValue('none')}}}"
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            team: core
"""


def test_reinvocation_if_needed_runs_the_policy_again_after_a_later_mutation():
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
    result = simulate(REINVOKED, {"operation": "CREATE", "object": configmap})
    phases = [(p["phase"], p["round"], p["patch"]) for p in result["mutationPhases"]]
    assert phases == [
        ("MutatingPolicy", 0, [{"op": "add", "path": "/metadata/labels", "value": {"owner": "none"}}]),
        ("KyvernoMutate", 0, [{"op": "add", "path": "/metadata/labels/team", "value": "core"}]),
        ("MutatingPolicy", 1, [{"op": "replace", "path": "/metadata/labels/owner", "value": "core"}]),
    ]
    assert [(r["policy"], r["round"]) for r in result["kyverno"] if r["kind"] == "MutatingPolicy"] == [
        ("copy-team", 0),
        ("copy-team", 1),
    ]
    without = simulate(REINVOKED.replace("IfNeeded", "Never"), {"operation": "CREATE", "object": configmap})
    assert [p["round"] for p in without["mutationPhases"]] == [0, 0]


CACHED_VARIABLE = """
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: count-labels}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  variables:
  - name: labelCount
    expression: "object.metadata.?labels.orValue({}).size()"
  matchConditions:
  - name: uses-the-variable
    expression: "variables.labelCount >= 0"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'a': 'x'}}}"
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'count': string(variables.labelCount)}}}"
"""


def test_a_variable_is_evaluated_once_per_policy_evaluation_on_first_use():
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
    request = {"operation": "CREATE", "object": configmap}
    # first used by the matchCondition, before any mutation: the second mutation still sees 0 labels
    result = simulate(CACHED_VARIABLE, request)
    assert _mpol(result, "count-labels")["patchedObject"]["metadata"]["labels"] == {"a": "x", "count": "0"}
    # first used by the second mutation: it sees the label the first one added
    later = CACHED_VARIABLE.replace('expression: "variables.labelCount >= 0"', 'expression: "true"')
    result = simulate(later, request)
    assert _mpol(result, "count-labels")["patchedObject"]["metadata"]["labels"] == {"a": "x", "count": "1"}


def test_audit_annotations_are_evaluated_on_the_patched_object():
    with_annotation = CACHED_VARIABLE.replace(
        "  mutations:\n",
        '  auditAnnotations:\n  - key: labels\n    valueExpression: "string(object.metadata.labels.size())"\n'
        "  mutations:\n",
    )
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
    result = simulate(with_annotation, {"operation": "CREATE", "object": configmap})
    (rule,) = _mpol(result, "count-labels")["rules"]
    assert rule["properties"] == {"labels": "2"}
    broken = with_annotation.replace('"string(object.metadata.labels.size())"', '"object.metadata.labels.size()"')
    result = simulate(broken, {"operation": "CREATE", "object": configmap})
    (rule,) = _mpol(result, "count-labels")["rules"]
    assert rule["message"] == (
        'failed to evaluate policy: failed to convert auditAnnotation "labels" expression: '
        "type conversion error from 'int' to 'string'"
    )
