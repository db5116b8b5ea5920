"""End-to-end rule results, messages and the admission verdict (seed 004 examples, current Kyverno wording)."""

import yaml

from evaluator.policies.kyverno import admission_decision, evaluate

NS_POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-ns-purpose-label}
spec:
  validationFailureAction: Enforce
  rules:
  - name: require-ns-purpose-label
    match:
      any:
      - resources: {kinds: [Namespace]}
    validate:
      message: "You must have label `purpose` with value `production` set on all new namespaces."
      pattern:
        metadata:
          labels:
            purpose: production
""")


def ns_request(purpose):
    obj = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "prod-bus-app1", "labels": {"purpose": purpose}},
    }
    return {"operation": "CREATE", "object": obj, "kind": {"group": "", "version": "v1", "kind": "Namespace"}}


def test_seed_namespace_label_pass_and_fail_messages():
    [ok] = evaluate([NS_POLICY], ns_request("production"))
    assert ok["rules"] == [
        {
            "rule": "require-ns-purpose-label",
            "result": "pass",
            "action": "Enforce",
            "message": "validation rule 'require-ns-purpose-label' passed.",
        }
    ]
    [bad] = evaluate([NS_POLICY], ns_request("development"))
    rule = bad["rules"][0]
    assert rule["result"] == "fail"
    assert rule["message"] == (
        "validation error: You must have label `purpose` with value `production` set on all "
        "new namespaces. rule require-ns-purpose-label failed at path /metadata/labels/purpose/"
    )


def test_enforce_failure_blocks_with_kyverno_wording():
    request = ns_request("development")
    decision = admission_decision(evaluate([NS_POLICY], request), request)
    assert decision["allowed"] is False
    assert decision["message"] == (
        "\n\nresource Namespace//prod-bus-app1 was blocked due to the following policies \n\n"
        "require-ns-purpose-label:\n  require-ns-purpose-label: 'validation error: You must have label `purpose` with "
        "value `production` set on all new namespaces. rule require-ns-purpose-label failed at path "
        "/metadata/labels/purpose/'\n"
    )


def test_audit_failure_is_allowed_with_warning():
    policy = yaml.safe_load(yaml.safe_dump(NS_POLICY))
    policy["spec"]["validationFailureAction"] = "Audit"
    request = ns_request("development")
    decision = admission_decision(evaluate([policy], request), request)
    assert decision["allowed"] is True and decision["warnings"]


POD_POLICY = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: disallow-latest}
spec:
  validationFailureAction: Enforce
  rules:
  - name: no-latest
    match: {any: [{resources: {kinds: [Pod]}}]}
    preconditions:
      all:
      - {key: "{{ request.object.metadata.labels.team || '' }}", operator: NotEquals, value: skip-me}
    validate:
      message: "latest tag is not allowed for {{ request.object.metadata.name }}"
      foreach:
      - list: request.object.spec.containers
        deny:
          conditions:
            any:
            - {key: "{{ element.image }}", operator: Equals, value: "*:latest"}
""")


def pod(name, image, labels=None, kind="Pod"):
    spec = {"containers": [{"name": "c", "image": image}]}
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": spec,
    }
    if kind == "Deployment":
        obj = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"template": {"metadata": {"labels": labels or {}}, "spec": spec}},
        }
    return {"operation": "CREATE", "object": obj}


def test_foreach_deny_and_message_substitution():
    [res] = evaluate([POD_POLICY], pod("web", "nginx:latest"))
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == "validation failure: latest tag is not allowed for web"
    [res] = evaluate([POD_POLICY], pod("web", "nginx:1.2"))
    assert res["rules"][0]["result"] == "pass"


def test_preconditions_skip():
    [res] = evaluate([POD_POLICY], pod("web", "nginx:latest", {"team": "skip-me"}))
    assert res["rules"][0] == {
        "rule": "no-latest",
        "result": "skip",
        "message": "preconditions not met",
        "action": "Enforce",
    }


def test_autogen_rule_for_deployment():
    [res] = evaluate([POD_POLICY], pod("web", "nginx:latest", kind="Deployment"))
    assert [r["rule"] for r in res["rules"]] == ["autogen-no-latest"]
    assert res["rules"][0]["result"] == "fail"


def test_autogen_disabled_by_annotation():
    policy = yaml.safe_load(yaml.safe_dump(POD_POLICY))
    policy["metadata"]["annotations"] = {"pod-policies.kyverno.io/autogen-controllers": "none"}
    [res] = evaluate([policy], pod("web", "nginx:latest", kind="Deployment"))
    assert res["rules"] == [] and res["notApplicable"] == ["no-latest"]


def test_values_supply_context_entries_that_need_a_cluster():
    policy = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: api}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: allowed
      apiCall: {urlPath: "/api/v1/namespaces/{{request.namespace}}", jmesPath: "metadata.labels.ok"}
    validate:
      deny:
        conditions:
          all: [{key: "{{ allowed }}", operator: NotEquals, value: "yes"}]
""")
    request = pod("web", "nginx")
    [res] = evaluate([policy], request, values={"ruleValues": {"api": {"r": {"allowed": "yes"}}}})
    assert res["rules"][0]["result"] == "pass"
    [res] = evaluate([policy], request)
    assert res["rules"][0]["result"] == "error"
    assert "apiCall cannot be loaded offline" in res["rules"][0]["message"]


def test_cli_values_and_userinfo_documents_apply_like_kyverno_test():
    policy = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: who}
spec:
  rules:
  - name: admins-only
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: "{{ request.userInfo.username }} with {{ limit }}"
      deny:
        conditions:
          all:
          - {key: "{{ request.clusterRoles }}", operator: AllNotIn, value: [admin]}
""")
    documents = yaml.safe_load_all("""
apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
- name: who
  rules:
  - name: admins-only
    values: {limit: "3"}
---
apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
clusterRoles: [view]
userInfo: {username: bob}
""")
    [res] = evaluate([policy], pod("web", "nginx"), documents=list(documents))
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == "bob with 3"


def test_api_calls_answered_from_documents_when_asked():
    policy = yaml.safe_load("""
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: quota}
spec:
  rules:
  - name: max-pods
    match: {any: [{resources: {kinds: [Pod]}}]}
    context:
    - name: podCount
      apiCall: {urlPath: "/api/v1/namespaces/{{request.namespace}}/pods", jmesPath: "items | length(@)"}
    validate:
      message: "{{ podCount }} pods already"
      deny:
        conditions:
          all: [{key: "{{ podCount }}", operator: GreaterThanOrEquals, value: 2}]
""")
    existing = [dict(pod(f"p{i}", "nginx")["object"]) for i in range(2)]
    request = pod("web", "nginx")
    [res] = evaluate([policy], request, documents=existing, values={"apiCallsFromDocuments": True})
    assert res["rules"][0]["result"] == "fail" and res["rules"][0]["message"] == "2 pods already"
    [res] = evaluate([policy], request, documents=existing[:1], values={"apiCallsFromDocuments": True})
    assert res["rules"][0]["result"] == "pass"
    [res] = evaluate([policy], request, documents=existing)
    assert res["rules"][0]["result"] == "error"


def test_multiline_denial_reason_uses_a_literal_block_like_go_yaml():
    results = [
        {
            "policy": "psa",
            "rules": [{"rule": "baseline", "result": "fail", "action": "Enforce", "message": "line one\nline two"}],
        }
    ]
    request = {"object": {"kind": "Pod", "metadata": {"name": "x", "namespace": "default"}}}
    assert admission_decision(results, request)["message"] == (
        "\n\nresource Pod/default/x was blocked due to the following policies \n\n"
        "psa:\n  baseline: |-\n    line one\n    line two\n"
    )


def _override_policy(overrides, failure_action="Enforce"):
    policy = yaml.safe_load(yaml.safe_dump(POD_POLICY))
    validate = policy["spec"]["rules"][0]["validate"]
    validate["failureAction"] = failure_action
    validate["failureActionOverrides"] = overrides
    return policy


def _labelled_namespace(name, labels):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def _latest_in(namespace):
    obj = pod("web", "nginx:latest")["object"]
    obj["metadata"]["namespace"] = namespace
    return {"operation": "CREATE", "object": obj, "namespace": namespace}


def test_failure_action_override_with_a_namespace_selector_applies_to_labelled_namespaces():
    """engineresponse.go matchOverride: an override without namespaces applies where its selector matches."""
    policy = _override_policy([{"action": "Audit", "namespaceSelector": {"matchLabels": {"env": "dev"}}}])
    dev, prod = _labelled_namespace("dev", {"env": "dev"}), _labelled_namespace("prod", {"env": "prod"})
    [audited] = evaluate([policy], _latest_in("dev"), documents=[dev, prod])
    assert [(r["result"], r["action"]) for r in audited["rules"]] == [("fail", "Audit")]
    [enforced] = evaluate([policy], _latest_in("prod"), documents=[dev, prod])
    assert [(r["result"], r["action"]) for r in enforced["rules"]] == [("fail", "Enforce")]


def test_failure_action_override_needs_both_its_namespaces_and_its_selector():
    both = [{"action": "Audit", "namespaces": ["dev*"], "namespaceSelector": {"matchLabels": {"env": "dev"}}}]
    labelled = _labelled_namespace("dev-1", {"env": "dev"})
    unlabelled = _labelled_namespace("dev-2", {})
    assert (
        evaluate([_override_policy(both)], _latest_in("dev-1"), documents=[labelled])[0]["rules"][0]["action"]
        == "Audit"
    )
    assert (
        evaluate([_override_policy(both)], _latest_in("dev-2"), documents=[unlabelled])[0]["rules"][0]["action"]
        == "Enforce"
    )


def test_the_first_matching_override_wins():
    overrides = [{"action": "Enforce", "namespaces": ["team-*"]}, {"action": "Audit", "namespaces": ["team-a"]}]
    [result] = evaluate([_override_policy(overrides, "Audit")], _latest_in("team-a"))
    assert result["rules"][0]["action"] == "Enforce"
