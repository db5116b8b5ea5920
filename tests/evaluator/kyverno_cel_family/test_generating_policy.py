"""Kyverno GeneratingPolicy / NamespacedGeneratingPolicy inside `simulate`: the objects a policy generates for a
request (generator.Apply and templates), listed in result["kyverno"] as ClusterPolicy generate rules' objects
are, with the labels Kyverno's context provider adds; bad input gives located errors and leaves the other
policies running. Semantics from kyverno/kyverno pkg/cel/policies/gpol and pkg/cel/libs/context.go."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import evaluator
from tests.shared_data import DATA

PDB = (DATA / "kyverno-gpol" / "policies-create-default-pdb" / "create-default-pdb.yaml").read_text()
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "uid": "u-1"},
    "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}}},
}

TEMPLATE = """\
apiVersion: policies.kyverno.io/v1
kind: NamespacedGeneratingPolicy
metadata:
  name: team-config
  namespace: shop
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  variables:
  - name: labels
    expression: '{"app": object.metadata.name}'
  generate:
  - template:
      interpolate: cel
      value: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: (( object.metadata.name ))-config
          labels: (( variables.labels ))
        data:
          replicas: "(( string(object.spec.?replicas.orValue(1)) )) of (( object.metadata.name ))"
"""


def generated(text: str, request: dict) -> dict[str, dict]:
    result = evaluator.simulate(text, request)
    return {
        entry["policy"]: entry
        for entry in result["kyverno"]
        if entry.get("kind") in ("GeneratingPolicy", "NamespacedGeneratingPolicy")
    }


def only_rule(entry: dict) -> dict:
    [rule] = entry["generate"]
    return rule


def test_the_policies_pdb_is_generated_with_kyvernos_labels():
    rule = only_rule(generated(PDB, DEPLOYMENT)["create-default-pdb"])
    assert (rule["result"], rule["message"]) == ("pass", "policy evaluated successfully")
    [entry] = rule["objects"]
    assert (entry["action"], entry["role"], entry["policy"]) == ("create", "downstream", "create-default-pdb")
    pdb = entry["object"]
    assert pdb["metadata"]["name"] == "web-default-pdb" and pdb["metadata"]["namespace"] == "shop"
    assert pdb["spec"] == {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}
    assert pdb["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "kyverno",
        "generate.kyverno.io/policy-name": "create-default-pdb",
        "generate.kyverno.io/trigger-name": "web",
        "generate.kyverno.io/trigger-namespace": "shop",
        "generate.kyverno.io/trigger-uid": "u-1",
        "generate.kyverno.io/trigger-kind": "Deployment",
        "generate.kyverno.io/trigger-group": "apps",
        "generate.kyverno.io/trigger-version": "v1",
    }


def test_an_object_already_in_the_project_is_updated_not_created():
    existing = "\n---\n".join(
        [
            PDB,
            yaml.safe_dump(
                {
                    "apiVersion": "policy/v1",
                    "kind": "PodDisruptionBudget",
                    "metadata": {"name": "web-default-pdb", "namespace": "shop"},
                }
            ),
        ]
    )
    [entry] = only_rule(generated(existing, DEPLOYMENT)["create-default-pdb"])["objects"]
    assert entry["action"] == "update"


def test_a_request_outside_the_match_constraints_generates_nothing():
    entry = generated(PDB, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop"}})
    assert entry["create-default-pdb"]["generate"] == []
    assert entry["create-default-pdb"]["notApplicable"] == ["create-default-pdb"]


def test_a_template_renders_whole_value_and_interpolated_placeholders_into_the_policy_namespace():
    rule = only_rule(generated(TEMPLATE, {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "replicas": 3}})["team-config"])
    [entry] = rule["objects"]
    config = entry["object"]
    assert config["metadata"]["name"] == "web-config" and config["metadata"]["namespace"] == "shop"
    assert config["metadata"]["labels"]["app"] == "web"
    assert config["data"] == {"replicas": "3 of web"}


def test_a_namespaced_policy_only_runs_on_requests_of_its_namespace():
    other = {**DEPLOYMENT, "metadata": {**DEPLOYMENT["metadata"], "namespace": "elsewhere"}}
    assert "team-config" not in generated(TEMPLATE, other)


def test_a_namespaced_policy_cannot_generate_into_another_namespace():
    text = TEMPLATE.replace("name: (( object.metadata.name ))-config", "name: x\n          namespace: kube-system")
    rule = only_rule(generated(text, DEPLOYMENT)["team-config"])
    assert rule["result"] == "error" and rule["objects"] == []
    assert rule["message"] == (
        'failed to evaluate policy: cross-namespace generation denied: a policy in namespace "shop" cannot '
        'generate resources into namespace "kube-system"'
    )
    assert rule["location"]["path"] == "spec.generate[0]"


def _bad_policies() -> str:
    broken_cel = PDB.replace("\"object.metadata.name + '-default-pdb'\"", '"object.metadata.name +"').replace(
        "name: create-default-pdb", "name: broken-cel", 1
    )
    unknown_version = PDB.replace("policies.kyverno.io/v1alpha1", "policies.kyverno.io/v2").replace(
        "name: create-default-pdb", "name: unknown-version", 1
    )
    runtime_error = PDB.replace("variables.targetNs, [", "variables.missing, [").replace(
        "name: create-default-pdb", "name: runtime-error", 1
    )
    return "\n---\n".join([broken_cel, unknown_version, runtime_error, PDB])


def test_bad_policies_give_located_errors_and_the_good_one_still_generates():
    text = _bad_policies()
    result = evaluator.simulate(text, DEPLOYMENT)
    errors = {(e["name"], e["path"]): e for e in result["documentErrors"] if e["severity"] == "error"}
    cel = errors[("broken-cel", "spec.variables[1].expression")]
    assert "Syntax error" in cel["message"] and cel["document"] == 0 and cel["line"] > 0
    version = errors[("unknown-version", "apiVersion")]
    assert version["message"] == 'no matches for kind "GeneratingPolicy" in version "policies.kyverno.io/v2"'
    by_policy = {e["policy"]: e for e in result["kyverno"] if e.get("kind") == "GeneratingPolicy"}
    runtime = only_rule(by_policy["runtime-error"])
    assert runtime["result"] == "error"
    assert runtime["message"].startswith("failed to evaluate policy: ")
    assert "missing" in runtime["message"]
    assert runtime["location"]["path"] == "spec.generate[0]"
    assert only_rule(by_policy["create-default-pdb"])["objects"][0]["object"]["metadata"]["name"] == "web-default-pdb"


def test_generator_apply_sends_cluster_scoped_objects_to_no_namespace(tmp_path: Path):
    text = (DATA / "kyverno-gpol" / "data-generate-clusterrolebinding" / "policy.yaml").read_text()
    sa = yaml.safe_load((DATA / "kyverno-gpol" / "data-generate-clusterrolebinding" / "resource.yaml").read_text())
    [entry] = only_rule(generated(text, sa)["generate-clusterrolebinding"])["objects"]
    assert entry["object"]["kind"] == "ClusterRoleBinding"
    assert "namespace" not in entry["object"]["metadata"]


@pytest.mark.parametrize("bad", ["generator.Apply(1, [])", "generator.Apply('x')"])
def test_generator_calls_with_wrong_arguments_do_not_compile(bad):
    text = PDB.replace("generator.Apply(variables.targetNs, [", f"{bad} && generator.Apply(variables.targetNs, [")
    result = evaluator.simulate(text, DEPLOYMENT)
    assert any(e["path"] == "spec.generate[0].expression" for e in result["documentErrors"])


SYNCED = """\
apiVersion: policies.kyverno.io/v1
kind: GeneratingPolicy
metadata:
  name: ns-defaults
spec:
  evaluation:
    synchronize:
      enabled: SYNC
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["namespaces"]
  generate:
  - expression: >-
      generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"),
      "metadata": dyn({"name": "defaults"}), "data": dyn({"a": "b"})}])
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: defaults
  namespace: team-a
  labels:
    app.kubernetes.io/managed-by: kyverno
    generate.kyverno.io/policy-name: ns-defaults
    generate.kyverno.io/trigger-name: team-a
    generate.kyverno.io/trigger-namespace: ""
    generate.kyverno.io/trigger-kind: Namespace
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: defaults
  namespace: team-b
  labels:
    generate.kyverno.io/policy-name: ns-defaults
    generate.kyverno.io/trigger-name: team-b
    generate.kyverno.io/trigger-kind: Namespace
"""
DELETE_TEAM_A = {
    "operation": "DELETE",
    "oldObject": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
}


def test_deleting_a_trigger_deletes_its_downstream_when_the_policy_synchronizes():
    rule = only_rule(generated(SYNCED.replace("SYNC", "true"), DELETE_TEAM_A)["ns-defaults"])
    assert rule["result"] == "pass"
    assert [(o["action"], o["object"]["metadata"]["namespace"]) for o in rule["objects"]] == [("delete", "team-a")]


def test_deleting_a_trigger_leaves_the_downstream_without_synchronize():
    assert generated(SYNCED.replace("SYNC", "false"), DELETE_TEAM_A)["ns-defaults"]["generate"] == []


def test_an_existing_downstream_is_updated_and_a_dry_run_generates_nothing():
    text = SYNCED.replace("SYNC", "true")
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    [entry] = only_rule(generated(text, namespace)["ns-defaults"])["objects"]
    assert entry["action"] == "update"
    dry = generated(text, {"operation": "CREATE", "object": namespace, "dryRun": True})["ns-defaults"]
    assert dry["generate"] == []


def _policy_doc(sync: str, orphan: bool = False, existing: bool = False) -> dict:
    policy = yaml.safe_load(SYNCED.replace("SYNC", sync).split("---")[0])
    policy["spec"]["evaluation"]["orphanDownstreamOnPolicyDelete"] = {"enabled": orphan}
    policy["spec"]["evaluation"]["generateExisting"] = {"enabled": existing}
    return policy


def _event(text: str, request: dict) -> dict:
    result = evaluator.simulate(text, request)
    [entry] = [e for e in result["kyverno"] if e.get("event")]
    return entry


def test_deleting_a_synchronized_policy_deletes_its_downstream_unless_it_orphans_it():
    objects = SYNCED.split("---", 1)[1]
    entry = _event(objects, {"operation": "DELETE", "oldObject": _policy_doc("true")})
    assert entry["event"] == "policyDeleted"
    rule = only_rule(entry)
    assert [(o["action"], o["object"]["metadata"]["namespace"]) for o in rule["objects"]] == [("delete", "team-a")]
    kept = only_rule(_event(objects, {"operation": "DELETE", "oldObject": _policy_doc("true", orphan=True)}))
    assert (kept["result"], kept["message"], kept["objects"]) == (
        "skip",
        "orphanDownstreamOnPolicyDelete: downstream is kept",
        [],
    )
    off = only_rule(_event(objects, {"operation": "DELETE", "oldObject": _policy_doc("false")}))
    assert off["message"] == "synchronize is off: downstream is kept"


def test_creating_a_policy_with_generate_existing_generates_for_the_existing_triggers():
    namespaces = "apiVersion: v1\nkind: Namespace\nmetadata: {name: one}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: two}\n"
    rule = only_rule(_event(namespaces, {"operation": "CREATE", "object": _policy_doc("true", existing=True)}))
    assert rule["result"] == "pass" and rule["triggers"] == 2
    assert [(o["action"], o["object"]["metadata"]["namespace"]) for o in rule["objects"]] == [
        ("create", "one"),
        ("create", "two"),
    ]
    result = evaluator.simulate(namespaces, {"operation": "CREATE", "object": _policy_doc("true")})
    assert [e for e in result["kyverno"] if e.get("event")] == []


def test_a_policy_event_is_answered_for_a_request_given_as_text_with_no_such_policy_among_the_documents():
    """Only the kinds the documents concern are loaded; a request about a GeneratingPolicy, given as YAML text
    (as the editor and the CLI give it), still gets that kind's answer."""
    namespaces = "apiVersion: v1\nkind: Namespace\nmetadata: {name: one}\n"
    request = yaml.safe_dump(_policy_doc("true", existing=True))
    simulation = evaluator.load(namespaces)
    rule = only_rule(next(e for e in simulation.run(request)["kyverno"] if e.get("event")))
    assert rule["triggers"] == 1
    again = simulation.run(request)  # the widened document set is built once and kept
    assert [e["event"] for e in again["kyverno"] if e.get("event")] == ["policyApplied"]
    assert len(simulation._widenings) == 1
