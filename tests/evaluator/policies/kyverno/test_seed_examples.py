"""Golden tests for the examples of seed 004 (Kyverno "Validate Rules").

The seed shows messages of older Kyverno releases (e.g. "Validation error: ...; Validation rule X failed at
path"); the authority is the current kyverno/kyverno source, whose wording these tests pin."""

import yaml

from evaluator.policies.kyverno import admission_decision, evaluate


def run(policy_yaml, obj, operation="CREATE", **request):
    policy = yaml.safe_load(policy_yaml)
    req = {"operation": operation, **request}
    if operation == "DELETE":
        req["oldObject"] = obj
    else:
        req["object"] = obj
    [res] = evaluate([policy], req)
    return res, req


def pod(spec, name="badpod01", annotations=None):
    meta = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


ANY_PATTERN = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-run-as-non-root}
spec:
  validationFailureAction: Enforce
  rules:
  - name: check-containers
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: >-
        Running as root is not allowed.
      anyPattern:
      - spec:
          securityContext: {runAsNonRoot: true}
          containers:
          - =(securityContext):
              =(runAsNonRoot): true
          =(initContainers):
          - =(securityContext):
              =(runAsNonRoot): true
      - spec:
          containers:
          - securityContext: {runAsNonRoot: true}
          =(initContainers):
          - securityContext: {runAsNonRoot: true}
"""


def test_any_pattern_pod_level_or_container_level():
    res, _ = run(ANY_PATTERN, pod({"securityContext": {"runAsNonRoot": True}, "containers": [{"name": "c"}]}))
    assert res["rules"][0]["result"] == "pass"
    assert res["rules"][0]["message"] == "validation rule 'check-containers' anyPattern[0] passed."
    res, _ = run(ANY_PATTERN, pod({"containers": [{"name": "c", "securityContext": {"runAsNonRoot": True}}]}))
    assert res["rules"][0]["message"] == "validation rule 'check-containers' anyPattern[1] passed."
    res, _ = run(ANY_PATTERN, pod({"containers": [{"name": "c"}]}))
    assert res["rules"][0] == {
        "rule": "check-containers",
        "result": "fail",
        "action": "Enforce",
        "message": "validation error: Running as root is not allowed. rule check-containers[0] failed at path "
        "/spec/securityContext/ rule check-containers[1] failed at path /spec/containers/0/securityContext/",
    }


FLUX = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-flux-v1}
spec:
  rules:
  - name: flux
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: Cannot use Flux v1 annotation.
      anyPattern:
      - metadata:
          =(annotations):
            X(fluxcd.io/*): "*?"
      - metadata:
          =(annotations):
            X(flux.weave.works/*): "*?"
"""


def test_negated_any_pattern_allows_one_of_the_annotations():
    res, _ = run(FLUX, pod({"containers": []}, annotations={"fluxcd.io/automated": "true"}))
    assert res["rules"][0]["result"] == "pass"
    res, _ = run(FLUX, pod({"containers": []}, annotations={"fluxcd.io/a": "1", "flux.weave.works/b": "2"}))
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == (
        "validation error: Cannot use Flux v1 annotation. rule flux[0] failed at path /metadata/annotations/fluxcd.io/a/ "
        "rule flux[1] failed at path /metadata/annotations/flux.weave.works/b/"
    )


DENY = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team}
spec:
  rules:
  - name: team-unit
    match: {any: [{resources: {kinds: [ConfigMap]}}]}
    validate:
      message: Main message is here.
      deny:
        conditions:
          any:
          - key: "{{ request.object.data.team }}"
            operator: Equals
            value: eng
            message: The expression team = eng failed.
          - key: "{{ request.object.data.unit }}"
            operator: Equals
            value: green
            message: The expression unit = green failed.
"""


def test_deny_any_conditions_and_messages():
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "default"},
        "data": {"team": "eng", "unit": "blue"},
    }
    res, _ = run(DENY, cm)
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == "Main message is here.; The expression team = eng failed."
    cm["data"] = {"team": "ops", "unit": "blue"}
    res, _ = run(DENY, cm)
    assert res["rules"][0] == {
        "rule": "team-unit",
        "result": "pass",
        "action": "Audit",
        "message": "validation rule 'team-unit' passed.",
    }


DENY_DELETES = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: deny-deletes}
spec:
  validationFailureAction: Enforce
  rules:
  - name: block-deletes-for-kyverno-resources
    match:
      any:
      - resources:
          selector:
            matchLabels:
              app.kubernetes.io/managed-by: kyverno
    exclude:
      any:
      - clusterRoles: [cluster-admin]
    validate:
      message: "Deleting {{request.oldObject.kind}}/{{request.oldObject.metadata.name}} is not allowed"
      deny:
        conditions:
          any:
          - key: "{{request.operation}}"
            operator: Equals
            value: DELETE
"""


def test_deny_deletes_unless_cluster_admin():
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "default", "labels": {"app.kubernetes.io/managed-by": "kyverno"}},
    }
    res, req = run(DENY_DELETES, cm, "DELETE", userInfo={"username": "alice"})
    assert res["rules"][0]["message"] == "Deleting ConfigMap/c is not allowed"
    decision = admission_decision([res], req)
    assert decision["allowed"] is False
    assert decision["message"].startswith("\n\nresource ConfigMap/default/c was blocked due to the following policies")
    policy = yaml.safe_load(DENY_DELETES)
    [res] = evaluate([policy], req, values={"clusterRoles": ["cluster-admin"]})
    assert res["rules"] == []
    res, _ = run(DENY_DELETES, cm, "UPDATE", userInfo={"username": "alice"})
    assert res["rules"][0]["result"] == "pass"


def test_unconditional_deny_for_name_pattern():
    policy = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: deny-netpol-changes}
spec:
  validationFailureAction: Enforce
  rules:
  - name: deny-netpol-changes
    match: {any: [{resources: {kinds: [NetworkPolicy], names: ["*-default"]}}]}
    validate:
      message: "Changing default network policies is not allowed."
      deny: {}
"""
    netpol = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "allow-default", "namespace": "default"},
    }
    res, _ = run(policy, netpol, "UPDATE")
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == "Changing default network policies is not allowed."
    netpol["metadata"]["name"] = "custom"
    res, _ = run(policy, netpol, "UPDATE")
    assert res["rules"] == []


CHECK_IMAGES = """
apiVersion : kyverno.io/v1
kind: ClusterPolicy
metadata: {name: check-images}
spec:
  validationFailureAction: Enforce
  rules:
  - name: check-registry
    match: {any: [{resources: {kinds: [Pod]}}]}
    preconditions:
      any:
      - key: "{{request.operation}}"
        operator: NotEquals
        value: DELETE
    validate:
      message: "unknown registry"
      foreach:
      - list: "request.object.spec.initContainers"
        pattern:
          image: "trusted-registry.io/*"
      - list: "request.object.spec.containers"
        pattern:
          image: "trusted-registry.io/*"
"""


def test_foreach_pattern_on_elements():
    res, _ = run(CHECK_IMAGES, pod({"containers": [{"name": "a", "image": "trusted-registry.io/x"}]}))
    assert res["rules"][0] == {
        "rule": "check-registry",
        "result": "pass",
        "message": "rule passed",
        "action": "Enforce",
    }
    res, _ = run(
        CHECK_IMAGES,
        pod({"containers": [{"name": "a", "image": "trusted-registry.io/x"}, {"name": "b", "image": "docker.io/y"}]}),
    )
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == (
        "validation failure: validation error: unknown registry. rule check-registry failed at path /image/"
    )


NESTED = """
apiVersion : kyverno.io/v2beta1
kind: ClusterPolicy
metadata: {name: check-ingress}
spec:
  validationFailureAction: Enforce
  rules:
  - name: check-tls-secret-host
    match: {any: [{resources: {kinds: [Ingress]}}]}
    validate:
      message: "All TLS hosts must use a domain of old.com."
      foreach:
      - list: request.object.spec.tls[]
        foreach:
        - list: "element.hosts"
          deny:
            conditions:
              all:
              - key: "{{element}}"
                operator: Equals
                value: "*.new.com"
"""


def test_nested_foreach():
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "kuard", "namespace": "default"},
        "spec": {"tls": [{"hosts": ["kuard.old.com", "kuard-foo.new.com"]}, {"hosts": ["hr.old.com"]}]},
    }
    res, _ = run(NESTED, ingress)
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == (
        "validation failure: validation failure: All TLS hosts must use a domain of old.com."
    )
    ingress["spec"]["tls"][0]["hosts"].pop()
    res, _ = run(NESTED, ingress)
    assert res["rules"][0]["result"] == "pass"


PSA = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: psa}
spec:
  validationFailureAction: Enforce
  rules:
  - name: baseline
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      podSecurity: {level: baseline, version: latest}
"""


def test_pod_security_baseline_message_and_exclusion():
    bad = pod({"hostIPC": True, "containers": [{"name": "container01", "image": "dummyimagename"}]})
    res, _ = run(PSA, bad)
    assert res["rules"][0] == {
        "rule": "baseline",
        "result": "fail",
        "action": "Enforce",
        "message": "Validation rule 'baseline' failed. It violates PodSecurity \"baseline:latest\": (Forbidden "
        "reason: host namespaces, field error list: [spec.hostIPC is forbidden, forbidden values found: "
        "true])",
    }
    policy = yaml.safe_load(PSA)
    policy["spec"]["rules"][0]["validate"]["podSecurity"]["exclude"] = [{"controlName": "Host Namespaces"}]
    [res] = evaluate([policy], {"operation": "CREATE", "object": bad})
    assert res["rules"][0]["result"] == "pass"


def test_pod_security_restricted_with_image_exclusion():
    policy = yaml.safe_load(PSA.replace("baseline, version", "restricted, version"))
    policy["spec"]["rules"][0]["validate"]["podSecurity"]["exclude"] = [
        {"controlName": "Capabilities", "images": ["nginx*", "redis*"]}
    ]
    container = {
        "name": "container01",
        "image": "nginx:1.1.9",
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "runAsNonRoot": True,
            "seccompProfile": {"type": "RuntimeDefault"},
            "capabilities": {"add": ["SYS_ADMIN"], "drop": ["ALL"]},
        },
    }
    [res] = evaluate([policy], {"operation": "CREATE", "object": pod({"containers": [container]}, "goodpod01")})
    assert res["rules"][0]["result"] == "pass"
    container["image"] = "busybox:1.28"
    [res] = evaluate([policy], {"operation": "CREATE", "object": pod({"containers": [container]})})
    assert res["rules"][0]["result"] == "fail"
    assert "non-default capabilities" in res["rules"][0]["message"]
    assert "unrestricted capabilities" in res["rules"][0]["message"]


CEL = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: check-deployment-replicas}
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-deployment-replicas
      match: {any: [{resources: {kinds: [Deployment]}}]}
      validate:
        cel:
          expressions:
            - expression: "object.spec.replicas < 4"
              message:  "Deployment spec.replicas must be less than 4."
"""


def test_cel_expression_message_and_denial_text():
    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx", "namespace": "default"},
        "spec": {"replicas": 5},
    }
    res, req = run(CEL, deploy)
    assert res["rules"][0]["result"] == "fail"
    assert res["rules"][0]["message"] == "Deployment spec.replicas must be less than 4."
    decision = admission_decision([res], req)
    assert decision["message"] == (
        "\n\nresource Deployment/default/nginx was blocked due to the following policies "
        "\n\ncheck-deployment-replicas:\n  check-deployment-replicas: Deployment "
        "spec.replicas must be less than 4.\n"
    )
    deploy["spec"]["replicas"] = 2
    res, _ = run(CEL, deploy)
    assert res["rules"][0]["message"] == "Validation rule 'check-deployment-replicas' passed."


def test_cel_namespace_object():
    policy = """
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: check-statefulset-namespace}
spec:
  validationFailureAction: Enforce
  rules:
    - name: statefulset-namespace
      match: {any: [{resources: {kinds: [StatefulSet]}}]}
      validate:
        cel:
          expressions:
            - expression: "namespaceObject.metadata.name == 'production'"
              message: "The StatefulSet must be created in the 'production' namespace."
"""
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "bad-statefulset", "namespace": "default"},
    }
    res, _ = run(policy, sts)
    assert res["rules"][0]["message"] == "The StatefulSet must be created in the 'production' namespace."
    sts["metadata"]["namespace"] = "production"
    res, _ = run(policy, sts)
    assert res["rules"][0]["result"] == "pass"
