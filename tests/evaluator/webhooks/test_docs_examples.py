"""Golden tests from the Kubernetes documentation's webhook examples
(reference/access-authn-authz/extensible-admission-controllers: matching requests by rules, scope,
namespaceSelector, objectSelector, matchPolicy and matchConditions)."""

from __future__ import annotations

from evaluator import simulate

DOCS_MATCH_CONDITIONS = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: my-webhook.example.com}
webhooks:
  - name: my-webhook.example.com
    matchPolicy: Equivalent
    rules:
      - operations: ['CREATE','UPDATE']
        apiGroups: ['*']
        apiVersions: ['*']
        resources: ['*']
    failurePolicy: 'Ignore' # Fail-open (optional)
    sideEffects: None
    admissionReviewVersions: [v1]
    clientConfig:
      service: {namespace: my-namespace, name: my-webhook}
    matchConditions:
      - name: 'exclude-leases'
        expression: '!(request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases")'
      - name: 'exclude-kubelet-requests'
        expression: '!("system:nodes" in request.userInfo.groups)'
      - name: 'rbac'
        expression: 'request.resource.group != "rbac.authorization.k8s.io"'
  - name: rbac.my-webhook.example.com
    matchPolicy: Equivalent
    rules:
      - operations: ['CREATE','UPDATE']
        apiGroups: ['rbac.authorization.k8s.io']
        apiVersions: ['*']
        resources: ['*']
    failurePolicy: 'Fail' # Fail-closed (the default)
    sideEffects: None
    admissionReviewVersions: [v1]
    clientConfig:
      service: {namespace: my-namespace, name: my-webhook}
    matchConditions:
      - name: 'breakglass'
        expression: '!authorizer.group("admissionregistration.k8s.io").resource("validatingwebhookconfigurations").name("my-webhook.example.com").check("breakglass").allowed()'
"""

BREAKGLASS_RBAC = """
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: breakglass}
rules:
- apiGroups: [admissionregistration.k8s.io]
  resources: [validatingwebhookconfigurations]
  resourceNames: [my-webhook.example.com]
  verbs: [breakglass]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: breakglass}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: breakglass}
subjects:
- {kind: User, name: oncall, apiGroup: rbac.authorization.k8s.io}
"""


def _request(obj, user="alice", groups=("dev",), operation="CREATE", **extra):
    return {"operation": operation, "object": obj, "userInfo": {"username": user, "groups": list(groups)}, **extra}


def _decisions(result, kind="validating"):
    return {d["webhook"]: d for d in result[kind + "Webhooks"]}


CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}
LEASE = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l", "namespace": "default"}}
ROLE = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r", "namespace": "default"}}


def test_an_ordinary_request_calls_the_first_webhook_only():
    d = _decisions(simulate(DOCS_MATCH_CONDITIONS, _request(CONFIGMAP)))
    assert d["my-webhook.example.com"]["called"] is True
    assert [c["value"] for c in d["my-webhook.example.com"]["matchConditions"]] == [True, True, True]
    assert d["rbac.my-webhook.example.com"]["called"] is False
    assert d["rbac.my-webhook.example.com"]["reason"].startswith("no resourceRules matched")


def test_leases_are_excluded_by_the_first_condition_and_evaluation_stops_there():
    hook = _decisions(simulate(DOCS_MATCH_CONDITIONS, _request(LEASE)))["my-webhook.example.com"]
    assert hook["called"] is False
    assert hook["reason"] == "matchCondition 'exclude-leases' is false: the webhook is not called"
    assert [c["name"] for c in hook["matchConditions"]] == ["exclude-leases"]


def test_kubelet_requests_are_excluded():
    hook = _decisions(simulate(DOCS_MATCH_CONDITIONS, _request(CONFIGMAP, "system:node:n1", ["system:nodes"])))
    assert hook["my-webhook.example.com"]["reason"] == (
        "matchCondition 'exclude-kubelet-requests' is false: the webhook is not called"
    )


def test_rbac_requests_go_to_the_second_webhook_unless_the_user_may_breakglass():
    d = _decisions(simulate(DOCS_MATCH_CONDITIONS + BREAKGLASS_RBAC, _request(ROLE)))
    assert d["my-webhook.example.com"]["called"] is False
    assert d["rbac.my-webhook.example.com"]["called"] is True
    oncall = _decisions(simulate(DOCS_MATCH_CONDITIONS + BREAKGLASS_RBAC, _request(ROLE, "oncall", [])))
    assert oncall["rbac.my-webhook.example.com"]["called"] is False
    assert oncall["rbac.my-webhook.example.com"]["matchConditions"][0]["value"] is False


def test_a_condition_error_fails_closed_under_fail_and_open_under_ignore():
    docs = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: labels}
webhooks:
- name: strict.example.com
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://hooks.example.com/strict"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  matchConditions:
  - name: team
    expression: object.metadata.labels.team == 'a'
"""
    result = simulate(docs, _request(CONFIGMAP))
    assert result["allowed"] is False
    assert result["status"] == {
        "code": 403,
        "reason": "Forbidden",
        "message": (
            "configmaps \"c\" is forbidden: expression 'object.metadata.labels.team == 'a'' resulted in error: "
            "no such key: labels"
        ),
    }
    lenient = simulate(docs.replace("failurePolicy: Fail", "failurePolicy: Ignore"), _request(CONFIGMAP))
    assert lenient["allowed"] is True
    assert lenient["validatingWebhooks"][0]["result"] == "skipped"


NAMESPACE_SELECTOR = """
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: runlevel}
webhooks:
- name: my-webhook.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://hooks.example.com/mutate"}
  namespaceSelector:
    matchExpressions:
    - key: runlevel
      operator: NotIn
      values: ["0","1"]
  rules:
  - operations: ["CREATE"]
    apiGroups: ["*"]
    apiVersions: ["*"]
    resources: ["*"]
    scope: "Namespaced"
---
apiVersion: v1
kind: Namespace
metadata: {name: kube-system, labels: {runlevel: "0"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {runlevel: "3"}}
"""


def test_namespace_selector_skips_namespaces_with_runlevel_0_or_1():
    in_system = {**CONFIGMAP, "metadata": {"name": "c", "namespace": "kube-system"}}
    in_apps = {**CONFIGMAP, "metadata": {"name": "c", "namespace": "apps"}}
    skipped = simulate(NAMESPACE_SELECTOR, _request(in_system))["mutatingWebhooks"][0]
    assert skipped["called"] is False
    called = simulate(NAMESPACE_SELECTOR, _request(in_apps))["mutatingWebhooks"][0]
    assert called["called"] is True


def test_a_namespaced_rule_scope_does_not_match_cluster_scoped_resources():
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "new"}}
    hook = simulate(NAMESPACE_SELECTOR, _request(ns))["mutatingWebhooks"][0]
    assert hook["called"] is False


OBJECT_SELECTOR = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: foo-bar}
webhooks:
- name: my-webhook.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://hooks.example.com/validate"}
  objectSelector:
    matchLabels:
      foo: bar
  rules:
  - operations: ["CREATE"]
    apiGroups: ["*"]
    apiVersions: ["*"]
    resources: ["*"]
    scope: "*"
"""


def test_object_selector_matches_labels_of_the_object():
    labelled = {**CONFIGMAP, "metadata": {"name": "c", "namespace": "default", "labels": {"foo": "bar"}}}
    assert simulate(OBJECT_SELECTOR, _request(labelled))["validatingWebhooks"][0]["called"] is True
    assert simulate(OBJECT_SELECTOR, _request(CONFIGMAP))["validatingWebhooks"][0]["called"] is False


def test_mocked_answers_deny_patch_and_time_out_as_the_api_server_reports_them():
    mocks = """
---
apiVersion: playground.admission/v1alpha1
kind: WebhookMock
metadata: {name: my-webhook.example.com}
spec:
  response: patch
  patch:
  - {op: add, path: /metadata/labels, value: {injected: "true"}}
"""
    labelled = {**CONFIGMAP, "metadata": {"name": "c", "namespace": "apps"}}
    result = simulate(NAMESPACE_SELECTOR + mocks, _request(labelled))
    assert result["allowed"] is True
    assert result["mutatingWebhooks"][0]["result"] == "patched"
    assert result["auditAnnotations"]["mutation.webhook.admission.k8s.io/round_0_index_0"] == (
        '{"configuration":"runlevel","webhook":"my-webhook.example.com","mutated":true}'
    )
    timeout = NAMESPACE_SELECTOR + mocks.replace("response: patch", "response: timeout")
    result = simulate(timeout, _request(labelled))
    assert result["allowed"] is False
    assert result["status"]["message"] == (
        'Internal error occurred: failed calling webhook "my-webhook.example.com": failed to call webhook: '
        'Post "https://hooks.example.com/mutate?timeout=10s": context deadline exceeded'
    )
    deny = (
        OBJECT_SELECTOR
        + """
---
apiVersion: playground.admission/v1alpha1
kind: WebhookMock
metadata: {name: my-webhook.example.com}
spec: {response: deny, message: "foo=bar objects are frozen", code: 403, reason: Forbidden}
"""
    )
    frozen = {**CONFIGMAP, "metadata": {"name": "c", "namespace": "default", "labels": {"foo": "bar"}}}
    result = simulate(deny, _request(frozen))
    assert result["status"] == {
        "code": 403,
        "reason": "Forbidden",
        "message": 'admission webhook "my-webhook.example.com" denied the request: foo=bar objects are frozen',
    }
