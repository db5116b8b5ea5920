"""Kyverno mutate rules: strategic merge with anchors, JSON patches, foreach, preconditions and context,
autogen, rule and policy order, and bad input as a rule's error. Expectations come from Kyverno's docs
(kyverno.io/docs/writing-policies/mutate) and its engine tests (pkg/engine/mutation_test.go,
pkg/engine/mutate/patch/strategicMergePatch_test.go, strategicPreprocessing_test.go at 111e07bb), cited per
test."""

from __future__ import annotations

import copy
import json

from evaluator.policies.kyverno.mutate import mutate
from evaluator.policies.kyverno.mutate.patchers import strategic_merge

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "containers": [
            {"name": "a", "image": "gcr.io/google-containers/busybox:latest"},
            {"name": "b", "image": "nginx:1.25"},
        ]
    },
}


def policy(*rules: dict, name: str = "p", **spec: object) -> dict:
    return {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": name},
        "spec": {"rules": list(rules), **spec},
    }


def rule(name: str, mutation: dict, kinds: tuple[str, ...] = ("Pod",), **extra: object) -> dict:
    return {"name": name, "match": {"any": [{"resources": {"kinds": list(kinds)}}]}, "mutate": mutation, **extra}


def run(policies: list[dict], obj: dict = POD, **kw: object) -> dict:
    return mutate(policies, {"operation": "CREATE", "object": copy.deepcopy(obj)}, **kw)  # type: ignore[arg-type]


def outcomes(result: dict) -> list[tuple[str, str, str]]:
    return [(m["rule"], m["result"], m["message"]) for m in result["mutations"]]


# --- patchStrategicMerge and its anchors ---


def test_add_if_not_present_adds_only_a_missing_key():
    # docs, "Add if not present anchor": the safe-to-evict annotation is added unless already there
    p = policy(rule("evict", {"patchStrategicMerge": {"metadata": {"annotations": {"+(safe-to-evict)": "true"}}}}))
    result = run([p])
    assert result["patchedObject"]["metadata"]["annotations"] == {"safe-to-evict": "true"}
    assert outcomes(result) == [("evict", "pass", "mutated Pod/web in namespace default")]
    assert result["mutations"][0]["patches"] == [
        {"op": "add", "path": "/metadata/annotations", "value": {"safe-to-evict": "true"}}
    ]
    kept = copy.deepcopy(POD)
    kept["metadata"]["annotations"] = {"safe-to-evict": "false"}
    again = run([p], kept)
    assert again["patchedObject"]["metadata"]["annotations"] == {"safe-to-evict": "false"}
    assert outcomes(again) == [("evict", "skip", "no patches applied")]
    assert again["patch"] == [] and again["diff"] == ""


def test_conditional_anchor_in_a_list_patches_the_elements_it_matches():
    # strategicMergePatch_test.go, "condition matches the first element of the array": the imagePullSecrets
    # are added because some container's image matches; here the matching containers also get a field
    overlay = {
        "spec": {
            "containers": [{"(image)": "gcr.io/google-containers/busybox:*", "imagePullPolicy": "Always"}],
            "imagePullSecrets": [{"name": "regcred"}],
        }
    }
    out = strategic_merge(POD, overlay)
    assert out["spec"]["imagePullSecrets"] == [{"name": "regcred"}]
    by_name = {c["name"]: c for c in out["spec"]["containers"]}
    assert by_name["a"]["imagePullPolicy"] == "Always"
    assert "imagePullPolicy" not in by_name["b"]


def test_a_failed_conditional_anchor_on_a_map_leaves_the_object_unchanged():
    # docs, "Conditional anchor": the patch applies only when the condition holds
    p = policy(rule("c", {"patchStrategicMerge": {"metadata": {"(name)": "other", "labels": {"x": "y"}}}}))
    assert outcomes(run([p])) == [("c", "skip", "no patches applied")]


def test_global_anchor_decides_the_whole_patch():
    # docs, "Global anchor": imagePullSecrets are added only if some container image is from the registry
    overlay = {"spec": {"containers": [{"<(image)": "corp.example.com/*"}], "imagePullSecrets": [{"name": "regcred"}]}}
    p = policy(rule("g", {"patchStrategicMerge": overlay}))
    assert outcomes(run([p])) == [("g", "skip", "no patches applied")]
    obj = copy.deepcopy(POD)
    obj["spec"]["containers"][1]["image"] = "corp.example.com/nginx:1"
    assert run([p], obj)["patchedObject"]["spec"]["imagePullSecrets"] == [{"name": "regcred"}]


def test_lists_merge_by_their_kubernetes_merge_key_and_new_elements_come_first():
    # kyverno/policies other/inject-sidecar-deployment expects the injected container before the existing one
    overlay = {"spec": {"containers": [{"name": "side", "image": "envoy"}, {"name": "b", "image": "nginx:1.26"}]}}
    out = strategic_merge(POD, overlay)
    assert [(c["name"], c["image"]) for c in out["spec"]["containers"]] == [
        ("side", "envoy"),
        ("a", "gcr.io/google-containers/busybox:latest"),
        ("b", "nginx:1.26"),
    ]


def test_patch_directives_and_null_remove_and_replace():
    obj = copy.deepcopy(POD)
    obj["metadata"]["labels"] = {"keep": "1", "drop": "2"}
    obj["spec"]["tolerations"] = [{"key": "k", "operator": "Exists"}]
    overlay = {
        "metadata": {"labels": {"drop": None}},
        "spec": {
            "containers": [{"name": "a", "$patch": "delete"}],
            "tolerations": [{"key": "new", "operator": "Exists"}],  # no merge key: the list is replaced
            "securityContext": {"$patch": "replace", "runAsNonRoot": True},
        },
    }
    out = strategic_merge(obj, overlay)
    assert out["metadata"]["labels"] == {"keep": "1"}
    assert [c["name"] for c in out["spec"]["containers"]] == ["b"]
    assert out["spec"]["tolerations"] == [{"key": "new", "operator": "Exists"}]
    assert out["spec"]["securityContext"] == {"runAsNonRoot": True}


# --- patchesJson6902 ---


def test_json_patch_creates_missing_parents_and_takes_variables():
    # kyverno/policies other/add-node-affinity: an add under a path that does not exist yet creates it
    # (evanphx/json-patch v5 EnsurePathExistsOnAdd, as Kyverno applies patches)
    text = (
        "- op: add\n  path: /spec/affinity/nodeAffinity/terms/-1/matchExpressions/-1\n"
        "  value: {key: zone, operator: In, values: ['{{ request.object.metadata.namespace }}']}\n"
        "- op: remove\n  path: /metadata/annotations/missing\n"
    )
    result = run([policy(rule("j", {"patchesJson6902": text}))])
    assert result["patchedObject"]["spec"]["affinity"] == {
        "nodeAffinity": {"terms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["default"]}]}]}
    }
    assert outcomes(result)[0][1] == "pass"


def test_a_patch_that_does_not_apply_is_the_rules_error_and_the_next_rule_runs():
    # mutation.go: "failed to patch resource: <error>"; the engine goes on with the next rule
    bad = rule("bad", {"patchesJson6902": "- op: replace\n  path: /spec/nope/x\n  value: 1"})
    bad_yaml = rule("yaml", {"patchesJson6902": "- op: [\n"})
    good = rule("good", {"patchStrategicMerge": {"metadata": {"labels": {"ok": "yes"}}}})
    result = run([policy(bad, bad_yaml, good)])
    got = outcomes(result)
    assert got[0] == (
        "bad",
        "error",
        "failed to patch resource: replace operation does not apply: doc is missing path: /spec/nope/x: missing value",
    )
    assert got[1][:2] == ("yaml", "error")
    assert got[1][2].startswith("failed to patch resource: failed to convert patchesJSON6902 to JSON: ")
    assert got[2] == ("good", "pass", "mutated Pod/web in namespace default")
    assert result["patchedObject"]["metadata"]["labels"] == {"ok": "yes"}
    assert result["errors"] == [
        {"policy": "p", "rule": "bad", "message": got[0][2]},
        {"policy": "p", "rule": "yaml", "message": got[1][2]},
    ]


def test_an_unresolved_variable_is_a_substitution_error():
    # mutation_test.go Test_variableSubstitutionPathNotExist: the message says which key is unknown
    p = policy(rule("v", {"patchStrategicMerge": {"spec": {"name": "{{request.object.metadata.name1}}"}}}))
    (name, status, message) = outcomes(run([p]))[0]
    assert status == "error" and message.startswith("variable substitution failed: ")
    assert 'Unknown key "name1" in path' in message


# --- foreach ---


def test_foreach_patches_each_element_with_its_element_variables():
    # mutation_test.go Test_foreach: each container's image is rewritten from `element`
    fe = {
        "list": "request.object.spec.containers",
        "patchStrategicMerge": {
            "spec": {"containers": [{"name": "{{ element.name }}", "image": "registry.io/{{ element.image }}"}]}
        },
    }
    result = run([policy(rule("fe", {"foreach": [fe]}))])
    assert [c["image"] for c in result["patchedObject"]["spec"]["containers"]] == [
        "registry.io/gcr.io/google-containers/busybox:latest",
        "registry.io/nginx:1.25",
    ]
    assert outcomes(result) == [("fe", "pass", "mutated Pod/web in namespace default")]


def test_foreach_json_patch_order_and_element_preconditions():
    # common.go: a JSON patch foreach walks the list in order unless `order: Descending`; removing by
    # elementIndex needs Descending so the indices stay valid (docs, "foreach" ordering)
    obj = copy.deepcopy(POD)
    obj["spec"]["volumes"] = [
        {"name": "h1", "hostPath": {"path": "/a"}},
        {"name": "e", "emptyDir": {}},
        {"name": "h2", "hostPath": {"path": "/b"}},
    ]
    fe = {
        "list": "request.object.spec.volumes",
        "order": "Descending",
        "preconditions": {"all": [{"key": "{{ element.hostPath || '' }}", "operator": "NotEquals", "value": ""}]},
        "patchesJson6902": "- op: remove\n  path: /spec/volumes/{{elementIndex}}",
    }
    result = run([policy(rule("rm", {"foreach": [fe]}))], obj)
    assert result["patchedObject"]["spec"]["volumes"] == [{"name": "e", "emptyDir": {}}]


def test_nested_foreach_sees_both_elements():
    # mutation_test.go Test_mutate_nested_foreach: element0/elementIndex0 are the outer element
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "containers": [
                {"name": "a", "image": "x", "env": [{"name": "E1", "value": "1"}, {"name": "E2", "value": "2"}]}
            ]
        },
    }
    inner = {
        "list": "element.env",
        "patchesJson6902": "- op: replace\n  path: /spec/containers/{{elementIndex0}}/env/{{elementIndex1}}/value\n  value: '{{element0.name}}-{{element1.name}}'",
    }
    outer = {"list": "request.object.spec.containers", "foreach": [inner]}
    result = run([policy(rule("n", {"foreach": [outer]}))], obj)
    assert [e["value"] for e in result["patchedObject"]["spec"]["containers"][0]["env"]] == ["a-E1", "a-E2"]


def test_foreach_over_a_missing_list_is_an_error_with_kyvernos_message():
    fe = {"list": "request.object.spec.volumes", "patchesJson6902": "- op: remove\n  path: /spec/volumes/0"}
    ((_, status, message),) = outcomes(run([policy(rule("fe", {"foreach": [fe]}))]))
    assert status == "error"
    assert message.startswith(
        'failed to evaluate list request.object.spec.volumes: JMESPath query failed: Unknown key "volumes"'
    )


# --- preconditions, context, order, autogen ---


def test_preconditions_and_context_and_each_rule_sees_the_previous_one():
    # mutation_test.go Test_chained_rules: the second rule reads what the first one wrote
    first = rule("label", {"patchStrategicMerge": {"metadata": {"labels": {"team": "blue"}}}})
    second = rule(
        "copy",
        {"patchStrategicMerge": {"metadata": {"annotations": {"owner": "{{ owner }}"}}}},
        context=[{"name": "owner", "variable": {"jmesPath": "request.object.metadata.labels.team"}}],
        preconditions={
            "all": [{"key": "{{ request.object.metadata.labels.team || '' }}", "operator": "Equals", "value": "blue"}]
        },
    )
    never = rule(
        "never",
        {"patchStrategicMerge": {"metadata": {"labels": {"x": "y"}}}},
        preconditions={"all": [{"key": "a", "operator": "Equals", "value": "b"}]},
    )
    result = run([policy(first, second, never)])
    assert result["patchedObject"]["metadata"]["annotations"] == {"owner": "blue"}
    assert [o[:2] for o in outcomes(result)] == [("label", "pass"), ("copy", "pass"), ("never", "skip")]
    assert outcomes(result)[2][2].startswith("preconditions not met")
    # each rule's object is the object after it
    assert "annotations" not in result["mutations"][0]["object"]["metadata"]


def test_apply_rules_one_stops_after_the_first_patch_and_policies_chain_in_order():
    one = policy(
        rule("r1", {"patchStrategicMerge": {"metadata": {"labels": {"n": "1"}}}}),
        rule("r2", {"patchStrategicMerge": {"metadata": {"labels": {"n": "2"}}}}),
        applyRules="One",
    )
    later = policy(
        rule(
            "r3",
            {
                "patchStrategicMerge": {
                    "metadata": {"labels": {"+(n)": "3", "m": "{{ request.object.metadata.labels.n }}"}}
                }
            },
        ),
        name="q",
    )
    result = run([one, later])
    assert [(m["policy"], m["rule"]) for m in result["mutations"]] == [("p", "r1"), ("q", "r3")]
    assert result["patchedObject"]["metadata"]["labels"] == {"n": "1", "m": "1"}


def test_autogen_moves_a_pod_patch_under_the_controllers_template():
    # autogen (pkg/autogen/v1/rule.go): patchStrategicMerge becomes {spec: {template: <patch>}}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d", "namespace": "default"},
        "spec": {"template": {"metadata": {}, "spec": {"containers": [{"name": "a", "image": "nginx"}]}}},
    }
    p = policy(rule("lbl", {"patchStrategicMerge": {"metadata": {"labels": {"+(tier)": "web"}}}}))
    result = run([p], deployment)
    assert outcomes(result) == [("autogen-lbl", "pass", "mutated Deployment/d in namespace default")]
    assert result["patchedObject"]["spec"]["template"]["metadata"]["labels"] == {"tier": "web"}


def test_the_result_is_json_and_carries_a_patch_and_a_diff():
    p = policy(rule("lbl", {"patchStrategicMerge": {"metadata": {"labels": {"a": "b"}}}}))
    result = run([p])
    assert json.loads(json.dumps(result)) == result
    assert result["patch"] == [{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]
    assert result["patchType"] == "JSONPatch" and result["patchBase64"]
    assert "+  labels:\n+    a: b\n" in result["diff"]


def test_foreach_strategic_merge_with_a_conditional_anchor_keeps_the_list_order():
    # mutation_test.go Test_patchStrategicMerge_descending / _ascending: each container, found by a
    # conditional anchor on its name, gets the new image; the containers keep their order
    obj = copy.deepcopy(POD)
    obj["spec"]["containers"].append({"name": "c", "image": "redis"})
    for order in ("Descending", "Ascending"):
        fe = {
            "list": "request.object.spec.containers",
            "order": order,
            "patchStrategicMerge": {"spec": {"containers": [{"(name)": "{{ element.name }}", "image": "replaced"}]}},
        }
        result = run([policy(rule("img", {"foreach": [fe]}))], obj)
        containers = result["patchedObject"]["spec"]["containers"]
        assert [(c["name"], c["image"]) for c in containers] == [
            ("a", "replaced"),
            ("b", "replaced"),
            ("c", "replaced"),
        ]


def test_a_decoded_json6902_text_is_a_new_list_each_time():
    from evaluator.policies.kyverno.mutate import json6902

    text = "- op: add\n  path: /metadata/labels/a\n  value: {b: c}\n"
    first = json6902.decode(text)
    first[0]["value"]["b"] = "changed"
    first.append({"op": "remove", "path": "/x"})
    assert json6902.decode(text) == [{"op": "add", "path": "/metadata/labels/a", "value": {"b": "c"}}]
