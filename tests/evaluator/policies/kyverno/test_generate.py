"""Kyverno generate rules on one admission request: what each rule creates, updates or deletes.

Expectations follow Kyverno's generate docs (https://kyverno.io/docs/writing-policies/generate/, "Data Source",
"Clone Source", "cloneList", "foreach", "Synchronization", "Generate for Existing resources") and the background
controller they describe (kyverno/kyverno pkg/background/generate: generator.go, data.go, clone.go, cleanup.go;
labels from pkg/background/common/labels.go; trigger handling from pkg/webhooks/resource/generation/handler.go).
"""

import json

import yaml

from evaluator import simulate
from evaluator.policies.kyverno import evaluate

# The docs' "Data Source" example (default-deny NetworkPolicy for each new Namespace), synchronized.
NETPOL_POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-networkpolicy}
spec:
  rules:
  - name: default-deny
    match:
      any:
      - resources: {kinds: [Namespace]}
    generate:
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      name: default-deny
      namespace: "{{request.object.metadata.name}}"
      synchronize: true
      data:
        spec:
          podSelector: {}
          policyTypes: [Ingress, Egress]
""")

# The docs' "Clone Source" example (copy the regcred Secret of `default` into each new Namespace).
CLONE_POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: sync-secrets}
spec:
  rules:
  - name: sync-image-pull-secret
    match:
      any:
      - resources: {kinds: [Namespace]}
    generate:
      apiVersion: v1
      kind: Secret
      name: regcred
      namespace: "{{request.object.metadata.name}}"
      synchronize: true
      clone:
        namespace: default
        name: regcred
""")

REGCRED = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "regcred", "namespace": "default", "uid": "u-1", "resourceVersion": "7"},
    "type": "Opaque",
    "data": {"password": "MWYyZDFlMmU2N2Rm"},
}


def namespace(name, labels=None, uid=""):
    meta = {"name": name, **({"labels": labels} if labels else {}), **({"uid": uid} if uid else {})}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def create(obj):
    return {"operation": "CREATE", "object": obj}


def generated(results, policy=None):
    """The generate results of the (only, or named) policy."""
    [res] = [r for r in results if policy is None or r["policy"] == policy]
    return res["generate"]


def test_data_generates_the_object_with_kyvernos_labels():
    [rule] = generated(evaluate([NETPOL_POLICY], create(namespace("team-a", uid="ns-uid"))))
    assert (rule["rule"], rule["result"], rule["message"]) == ("default-deny", "pass", "")
    [obj] = rule["objects"]
    assert (obj["action"], obj["role"], obj["rule"], obj["policy"]) == (
        "create",
        "downstream",
        "default-deny",
        "add-networkpolicy",
    )
    assert obj["object"] == {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {
            "name": "default-deny",
            "namespace": "team-a",
            # common.ManageLabels: managed-by, policy, rule and trigger (group/version/kind/namespace/uid)
            "labels": {
                "app.kubernetes.io/managed-by": "kyverno",
                "generate.kyverno.io/policy-name": "add-networkpolicy",
                "generate.kyverno.io/policy-namespace": "",
                "generate.kyverno.io/rule-name": "default-deny",
                "generate.kyverno.io/trigger-version": "v1",
                "generate.kyverno.io/trigger-group": "",
                "generate.kyverno.io/trigger-kind": "Namespace",
                "generate.kyverno.io/trigger-namespace": "",
                "generate.kyverno.io/trigger-uid": "ns-uid",
            },
        },
        "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
    }


def test_clone_copies_the_source_without_its_server_fields_and_labels_the_source():
    [rule] = generated(evaluate([CLONE_POLICY], create(namespace("team-a")), documents=[REGCRED]))
    assert rule["result"] == "pass"
    source, target = rule["objects"]
    # clone.go updateSourceLabel: the source is tagged as a clone source
    assert (source["action"], source["role"]) == ("update", "source")
    assert source["object"]["metadata"]["labels"] == {"generate.kyverno.io/clone-source": ""}
    assert (target["action"], target["role"]) == ("create", "downstream")
    meta = target["object"]["metadata"]
    assert (meta["name"], meta["namespace"]) == ("regcred", "team-a")
    assert "uid" not in meta and "resourceVersion" not in meta
    assert meta["labels"]["generate.kyverno.io/source-namespace"] == "default"
    assert meta["labels"]["generate.kyverno.io/source-uid"] == "u-1"
    assert target["object"]["data"] == REGCRED["data"]


def test_a_clone_source_not_among_the_documents_is_the_rules_error_and_other_rules_still_run():
    both = {**CLONE_POLICY, "spec": {"rules": CLONE_POLICY["spec"]["rules"] + NETPOL_POLICY["spec"]["rules"]}}
    missing, netpol = generated(evaluate([both], create(namespace("team-a"))))
    assert missing["result"] == "error"
    # clone.go: "source resource <target> not found: <the API's NotFound>"
    assert missing["message"] == 'source resource v1/Secret/team-a/regcred not found: secrets "regcred" not found'
    assert missing["objects"] == []
    assert netpol["result"] == "pass" and [o["action"] for o in netpol["objects"]] == ["create"]


CLONE_LIST_POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: clone-list-secrets}
spec:
  rules:
  - name: clone-list-labelled-secrets
    match:
      any:
      - resources: {kinds: [Namespace]}
    generate:
      namespace: "{{request.object.metadata.name}}"
      synchronize: true
      cloneList:
        namespace: default
        kinds: [v1/Secret, v1/ConfigMap]
        selector:
          matchLabels: {allowedToBeCloned: "true"}
""")


def test_clone_list_copies_every_selected_object_of_the_kinds():
    # kyverno/kyverno test/cli/test-generate/clone-list: only the labelled objects of `default` are cloned
    labelled = {"allowedToBeCloned": "true"}
    docs = [
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a", "namespace": "default", "labels": labelled}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b", "namespace": "default"}},
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "default", "labels": labelled},
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d", "namespace": "other", "labels": labelled}},
    ]
    [rule] = generated(evaluate([CLONE_LIST_POLICY], create(namespace("team-a")), documents=docs))
    made = [
        (o["object"]["kind"], o["object"]["metadata"]["name"]) for o in rule["objects"] if o["role"] == "downstream"
    ]
    assert made == [("Secret", "a"), ("ConfigMap", "c")]
    assert all(o["object"]["metadata"]["namespace"] == "team-a" for o in rule["objects"] if o["role"] == "downstream")


# The docs' foreach example: one NetworkPolicy per namespace listed in the trigger ConfigMap, when it passes the
# foreach preconditions; names from `element` and `elementIndex`.
FOREACH_POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: foreach-generate}
spec:
  rules:
  - name: netpol-per-namespace
    match:
      any:
      - resources: {kinds: [ConfigMap]}
    generate:
      synchronize: true
      foreach:
      - list: request.object.data.namespaces | split(@, ',')
        context:
        - name: ns
          variable: {jmesPath: element}
        preconditions:
          any:
          - {key: "{{ ns }}", operator: AnyIn, value: [foo, bar]}
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        name: my-networkpolicy-{{ element }}-{{ elementIndex }}
        namespace: "{{ element }}"
        data:
          spec: {podSelector: {}, policyTypes: [Ingress]}
""")


def test_foreach_generates_one_object_per_element_that_passes_its_preconditions():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}}
    cm["data"] = {"namespaces": "foo,skipped,bar"}
    [rule] = generated(evaluate([FOREACH_POLICY], create(cm)))
    assert rule["result"] == "pass"
    made = [(o["object"]["metadata"]["namespace"], o["object"]["metadata"]["name"]) for o in rule["objects"]]
    assert made == [("foo", "my-networkpolicy-foo-0"), ("bar", "my-networkpolicy-bar-2")]


def test_a_generated_name_that_is_not_an_object_name_is_the_rules_error():
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["generate"]["name"] = "Deny_{{request.object.metadata.name}}"
    [rule] = generated(evaluate([policy], create(namespace("team-a"))))
    assert rule["result"] == "error"
    assert rule["message"].startswith(
        'NetworkPolicy "Deny_team-a" is invalid: metadata.name: Invalid value: "Deny_team-a": '
        "a lowercase RFC 1123 subdomain must consist of"
    )


def test_a_variable_that_does_not_resolve_is_the_rules_error():
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["generate"]["namespace"] = "{{request.object.metadata.nothere}}"
    [rule] = generated(evaluate([policy], create(namespace("team-a"))))
    assert rule["result"] == "error"
    assert "nothere" in rule["message"]


def test_preconditions_not_met_skip_the_rule_and_generate_nothing():
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["preconditions"] = {
        "all": [{"key": "{{request.object.metadata.name}}", "operator": "Equals", "value": "prod"}]
    }
    [rule] = generated(evaluate([policy], create(namespace("team-a"))))
    assert (rule["result"], rule["objects"]) == ("skip", [])


def _downstream(ns, uid="", policy_spec=None, extra=None):
    """The NetworkPolicy Kyverno generated for namespace `ns` earlier, as it sits in the cluster."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {
            "name": "default-deny",
            "namespace": ns,
            "uid": "np-uid",
            "resourceVersion": "3",
            "labels": {
                "app.kubernetes.io/managed-by": "kyverno",
                "generate.kyverno.io/policy-name": "add-networkpolicy",
                "generate.kyverno.io/policy-namespace": "",
                "generate.kyverno.io/rule-name": "default-deny",
                "generate.kyverno.io/trigger-version": "v1",
                "generate.kyverno.io/trigger-group": "",
                "generate.kyverno.io/trigger-kind": "Namespace",
                "generate.kyverno.io/trigger-namespace": "",
                "generate.kyverno.io/trigger-uid": uid,
                **(extra or {}),
            },
        },
        "spec": policy_spec or {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
    }


def test_synchronize_updates_a_downstream_that_drifted_and_leaves_one_in_sync():
    # docs "Synchronization": with synchronize the downstream is kept as the rule says; data.go/generator.go
    drifted = _downstream("team-a", policy_spec={"podSelector": {}, "policyTypes": ["Ingress"]})
    [rule] = generated(evaluate([NETPOL_POLICY], create(namespace("team-a")), documents=[drifted]))
    [obj] = rule["objects"]
    assert obj["action"] == "update"
    assert obj["object"]["spec"]["policyTypes"] == ["Ingress", "Egress"]
    [rule] = generated(evaluate([NETPOL_POLICY], create(namespace("team-a")), documents=[_downstream("team-a")]))
    assert rule["objects"] == []


def test_without_synchronize_an_existing_downstream_is_left_alone():
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["generate"]["synchronize"] = False
    drifted = _downstream("team-a", policy_spec={"podSelector": {}})
    [rule] = generated(evaluate([policy], create(namespace("team-a")), documents=[drifted]))
    assert (rule["result"], rule["objects"]) == ("pass", [])


LABELLED_POLICY = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
LABELLED_POLICY["spec"]["rules"][0]["match"] = {
    "any": [{"resources": {"kinds": ["Namespace"], "selector": {"matchLabels": {"isolate": "yes"}}}}]
}


def test_an_update_that_takes_the_trigger_out_of_a_synchronized_rule_deletes_its_downstream():
    # handler.go syncTriggerAction: the rule fails for the new object but matched the old one
    old = namespace("team-a", {"isolate": "yes"}, uid="ns-uid")
    new = namespace("team-a", uid="ns-uid")
    request = {"operation": "UPDATE", "object": new, "oldObject": old}
    docs = [_downstream("team-a", uid="ns-uid"), _downstream("team-b", uid="other")]
    [rule] = generated(evaluate([LABELLED_POLICY], request, documents=docs))
    assert rule["result"] == "fail"
    assert [(o["action"], o["object"]["metadata"]["namespace"]) for o in rule["objects"]] == [("delete", "team-a")]


def test_deleting_the_trigger_deletes_the_synchronized_downstream_even_when_not_among_the_documents():
    request = {"operation": "DELETE", "oldObject": namespace("team-a", uid="ns-uid")}
    [rule] = generated(evaluate([NETPOL_POLICY], request))
    assert rule["result"] == "fail"
    [obj] = rule["objects"]
    assert (obj["action"], obj["object"]["kind"], obj["object"]["metadata"]["namespace"]) == (
        "delete",
        "NetworkPolicy",
        "team-a",
    )


def test_without_synchronize_a_deleted_trigger_keeps_its_downstream():
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["generate"]["synchronize"] = False
    request = {"operation": "DELETE", "oldObject": namespace("team-a")}
    [rule] = generated(evaluate([policy], request, documents=[_downstream("team-a")]))
    assert (rule["result"], rule["objects"]) == ("fail", [])


def test_a_rule_matching_delete_generates_for_the_deleted_trigger():
    # docs "Generate on delete": a rule whose match names DELETE generates when its trigger is deleted
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    rule_spec = policy["spec"]["rules"][0]
    rule_spec["match"] = {"any": [{"resources": {"kinds": ["Namespace"], "operations": ["DELETE"]}}]}
    rule_spec["generate"].update(kind="ConfigMap", apiVersion="v1", namespace="default", synchronize=False)
    rule_spec["generate"]["name"] = "gone-{{request.object.metadata.name}}"
    rule_spec["generate"]["data"] = {"data": {"ns": "{{request.object.metadata.name}}"}}
    [rule] = generated(evaluate([policy], {"operation": "DELETE", "oldObject": namespace("team-a")}))
    [obj] = rule["objects"]
    assert obj["action"] == "create"
    assert obj["object"]["metadata"]["name"] == "gone-team-a"
    assert obj["object"]["data"] == {"ns": "team-a"}


def test_creating_a_policy_with_generate_existing_generates_for_the_existing_triggers():
    # docs "Generate for Existing resources" (generateExisting on the rule)
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["generate"]["generateExisting"] = True
    docs = [namespace("team-a"), namespace("team-b"), REGCRED]
    [event] = evaluate([], create(policy), documents=docs)
    assert event["event"] == "policyApplied"
    [rule] = event["generate"]
    assert (rule["result"], rule["triggers"]) == ("pass", 2)
    assert sorted(o["object"]["metadata"]["namespace"] for o in rule["objects"]) == ["team-a", "team-b"]


def test_deleting_a_policy_deletes_its_synchronized_downstream_unless_orphaned():
    request = {"operation": "DELETE", "oldObject": NETPOL_POLICY}
    docs = [_downstream("team-a"), _downstream("team-b"), REGCRED]
    [event] = evaluate([], request, documents=docs)
    assert event["event"] == "policyDeleted"
    [rule] = event["generate"]
    assert sorted(o["object"]["metadata"]["namespace"] for o in rule["objects"]) == ["team-a", "team-b"]
    assert {o["action"] for o in rule["objects"]} == {"delete"}
    orphan = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    orphan["spec"]["rules"][0]["generate"]["orphanDownstreamOnPolicyDelete"] = True
    [event] = evaluate([], {"operation": "DELETE", "oldObject": orphan}, documents=docs)
    assert event["generate"][0]["objects"] == []


def test_a_malformed_generate_rule_is_an_error_never_a_crash():
    policy = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    policy["spec"]["rules"][0]["generate"]["data"] = ["not", "a", "map"]
    [rule] = generated(evaluate([policy], create(namespace("team-a"))))
    assert rule["result"] == "error"
    policy["spec"]["rules"][0]["generate"]["name"] = {"a": "map"}
    [rule] = generated(evaluate([policy], create(namespace("team-a"))))
    assert rule["result"] == "error"


def test_simulate_reports_the_generate_results_as_json():
    out = simulate([CLONE_POLICY, REGCRED], create(namespace("team-a")))
    [policy] = out["kyverno"]
    [rule] = policy["generate"]
    assert [(o["action"], o["role"]) for o in rule["objects"]] == [("update", "source"), ("create", "downstream")]
    json.dumps(out)


def events(*args, **kwargs):
    """The entries of the results that come from a non-trigger event."""
    return [r for r in evaluate(*args, **kwargs) if "event" in r]


def test_an_edited_synchronized_downstream_is_put_back_and_a_deleted_one_regenerated():
    # handler.go handleNonTrigger; kyverno chainsaw generate/.../cpol-data-sync-modify-downstream and -delete-downstream
    trigger = namespace("team-a")
    kept = _downstream("team-a")
    edited = _downstream("team-a", policy_spec={"podSelector": {}, "policyTypes": ["Ingress"]})
    request = {"operation": "UPDATE", "object": edited, "oldObject": kept}
    [event] = events([NETPOL_POLICY], request, documents=[trigger, edited])
    assert event["event"] == "downstreamChanged"
    [obj] = event["generate"][0]["objects"]
    assert (obj["action"], obj["object"]["spec"]["policyTypes"]) == ("update", ["Ingress", "Egress"])
    [event] = events([NETPOL_POLICY], {"operation": "DELETE", "oldObject": kept}, documents=[trigger])
    assert [o["action"] for o in event["generate"][0]["objects"]] == ["create"]


def test_an_edited_clone_source_updates_its_downstream_and_a_deleted_one_takes_it_along():
    # docs "Clone Source": with synchronize, changes to the source are propagated; its deletion removes the clone
    edited = {**REGCRED, "data": {"password": "bmV3"}}
    clone = {
        **REGCRED,
        "metadata": {"name": "regcred", "namespace": "team-a", "labels": {"app.kubernetes.io/managed-by": "kyverno"}},
    }
    docs = [namespace("team-a"), edited, clone]
    request = {"operation": "UPDATE", "object": edited, "oldObject": REGCRED}
    [event] = events([CLONE_POLICY], request, documents=docs)
    assert event["event"] == "sourceChanged"
    [obj] = event["generate"][0]["objects"]
    assert (obj["action"], obj["object"]["metadata"]["namespace"], obj["object"]["data"]) == (
        "update",
        "team-a",
        {"password": "bmV3"},
    )
    [event] = events(
        [CLONE_POLICY], {"operation": "DELETE", "oldObject": REGCRED}, documents=[namespace("team-a"), REGCRED, clone]
    )
    [obj] = event["generate"][0]["objects"]
    assert (obj["action"], obj["object"]["metadata"]["namespace"]) == ("delete", "team-a")


def test_updating_a_policy_syncs_changed_rules_and_removes_the_downstream_of_removed_ones():
    # docs "Synchronization": changes to a synchronized rule reach its downstream; a removed rule's downstream goes
    changed = yaml.safe_load(yaml.safe_dump(NETPOL_POLICY))
    changed["spec"]["rules"][0]["generate"]["data"]["spec"]["policyTypes"] = ["Ingress"]
    docs = [namespace("team-a"), _downstream("team-a")]
    [event] = events([], {"operation": "UPDATE", "object": changed, "oldObject": NETPOL_POLICY}, documents=docs)
    [rule] = event["generate"]
    [obj] = rule["objects"]
    assert (obj["action"], obj["object"]["spec"]["policyTypes"]) == ("update", ["Ingress"])
    emptied = {**NETPOL_POLICY, "spec": {"rules": [CLONE_POLICY["spec"]["rules"][0]]}}
    [event] = events([], {"operation": "UPDATE", "object": emptied, "oldObject": NETPOL_POLICY}, documents=docs)
    removed = [r for r in event["generate"] if r["rule"] == "default-deny"]
    assert [(o["action"], o["object"]["kind"]) for r in removed for o in r["objects"]] == [("delete", "NetworkPolicy")]
