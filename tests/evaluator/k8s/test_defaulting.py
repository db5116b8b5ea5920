"""Defaulting of built-in objects, per kind, with the values Kubernetes' defaulting tests state
(pkg/apis/*/v1/defaults_test.go), and its effect on admission (object as the API server decodes it)."""

from __future__ import annotations

import copy

import pytest

from evaluator.k8s.defaulting import default_object
from evaluator.k8s.defaulting.images import default_pull_policy
from evaluator.simulation import simulate


def defaulted(obj: dict) -> dict:
    return default_object(obj).object


def defaulted_pod(spec: dict) -> dict:
    return defaulted({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec})


def pod_template(spec: dict | None = None) -> dict:
    return {"spec": spec or {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


# -- core/v1 ----------------------------------------------------------------------------------------------
def test_pod_spec_defaults_TestSetDefaultPodSpec():
    pod = defaulted_pod({"containers": [{"name": "c", "image": "nginx"}]})
    spec = pod["spec"]
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["restartPolicy"] == "Always"
    assert spec["securityContext"] == {}
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["enableServiceLinks"] is True
    container = spec["containers"][0]
    assert container["imagePullPolicy"] == "Always"
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert container["terminationMessagePolicy"] == "File"


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("docker.io/library/nginx:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("localhost:5000/app", "Always"),
        ("localhost:5000/app:v1", "IfNotPresent"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("Not/Valid", "IfNotPresent"),
        ("", "IfNotPresent"),
    ],
)
def test_image_pull_policy_from_the_tag_TestSetDefaultImagePullPolicy(image, policy):
    assert default_pull_policy(image) == policy


def test_values_set_by_the_user_are_kept():
    pod = defaulted_pod(
        {
            "restartPolicy": "Never",
            "dnsPolicy": "Default",
            "terminationGracePeriodSeconds": 0,
            "containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Never"}],
        }
    )
    assert pod["spec"]["restartPolicy"] == "Never"
    assert pod["spec"]["terminationGracePeriodSeconds"] == 0  # a pointer: 0 is a value, not unset
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "Never"


def test_pod_requests_default_to_limits_TestSetDefaultRequestsPod():
    pod = defaulted_pod(
        {
            "containers": [
                {
                    "name": "c",
                    "image": "i:1",
                    "resources": {"limits": {"cpu": "100m"}, "requests": {"memory": "1Gi"}},
                }
            ]
        }
    )
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"memory": "1Gi", "cpu": "100m"}


def test_requests_from_limits_only_on_pods_not_templates():
    deployment = defaulted(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {
                "template": pod_template(
                    {"containers": [{"name": "c", "image": "i:1", "resources": {"limits": {"cpu": "1"}}}]}
                )
            },
        }
    )
    spec = deployment["spec"]["template"]["spec"]
    assert "requests" not in spec["containers"][0]["resources"]
    assert "enableServiceLinks" not in spec  # SetDefaults_Pod only


def test_host_network_ports_TestSetDefaultPodSpecHostNetwork():
    pod = defaulted_pod(
        {
            "hostNetwork": True,
            "containers": [{"name": "c", "image": "i:1", "ports": [{"containerPort": 12345}]}],
        }
    )
    port = pod["spec"]["containers"][0]["ports"][0]
    assert port == {"containerPort": 12345, "hostPort": 12345, "protocol": "TCP"}


def test_probe_and_http_get_defaults_TestSetDefaultProbe():
    pod = defaulted_pod(
        {
            "containers": [
                {
                    "name": "c",
                    "image": "i:1",
                    "readinessProbe": {"httpGet": {"port": 8080}},
                    "lifecycle": {"preStop": {"httpGet": {"port": 80}}},
                }
            ]
        }
    )
    container = pod["spec"]["containers"][0]
    probe = container["readinessProbe"]
    assert (probe["timeoutSeconds"], probe["periodSeconds"], probe["successThreshold"], probe["failureThreshold"]) == (
        1,
        10,
        1,
        3,
    )
    assert probe["httpGet"] == {"port": 8080, "path": "/", "scheme": "HTTP"}
    assert container["lifecycle"]["preStop"]["httpGet"]["scheme"] == "HTTP"


def test_volume_defaults_TestSetDefaultSecretVolumeSource_and_empty_dir():
    pod = defaulted_pod(
        {
            "containers": [{"name": "c", "image": "i:1"}],
            "volumes": [
                {"name": "scratch"},
                {"name": "s", "secret": {"secretName": "x"}},
                {"name": "cm", "configMap": {"name": "x"}},
                {"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
            ],
        }
    )
    volumes = pod["spec"]["volumes"]
    assert volumes[0]["emptyDir"] == {}
    assert volumes[1]["secret"]["defaultMode"] == 0o644 == 420
    assert volumes[2]["configMap"]["defaultMode"] == 420
    assert volumes[3]["projected"]["defaultMode"] == 420
    assert volumes[3]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"] == 3600


def test_service_TestSetDefaultServiceTargetPort_and_type():
    service = defaulted(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "s"},
            "spec": {"ports": [{"port": 1234}, {"port": 1235, "targetPort": "http"}]},
        }
    )
    spec = service["spec"]
    assert spec["ports"][0] == {"port": 1234, "protocol": "TCP", "targetPort": 1234}
    assert spec["ports"][1]["targetPort"] == "http"
    assert spec["type"] == "ClusterIP"
    assert spec["sessionAffinity"] == "None"
    assert spec["internalTrafficPolicy"] == "Cluster"
    assert "externalTrafficPolicy" not in spec


def test_load_balancer_service_TestSetDefaultServiceLoadbalancerAllocateNodePorts():
    spec = defaulted(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "s"},
            "spec": {"type": "LoadBalancer", "sessionAffinity": "ClientIP", "ports": [{"port": 80}]},
        }
    )["spec"]
    assert spec["allocateLoadBalancerNodePorts"] is True
    assert spec["externalTrafficPolicy"] == "Cluster"
    assert spec["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}


def test_secret_type_TestSetDefaultSecret():
    assert defaulted({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})["type"] == "Opaque"


def test_pvc_TestSetDefaultPersistentVolumeClaim():
    pvc = defaulted({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": {}})
    assert pvc["spec"]["volumeMode"] == "Filesystem"
    assert pvc["status"]["phase"] == "Pending"


def test_namespace_label_TestSetDefaultNamespace():
    namespace = defaulted({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    assert namespace["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}
    assert namespace["status"]["phase"] == "Active"
    wrong = defaulted(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "a", "labels": {"kubernetes.io/metadata.name": "b"}},
        }
    )
    assert wrong["metadata"]["labels"]["kubernetes.io/metadata.name"] == "a"


def test_replication_controller_TestSetDefaultReplicationController():
    rc = defaulted(
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "r"},
            "spec": {"template": {"metadata": {"labels": {"foo": "bar"}}, "spec": {}}},
        }
    )
    assert rc["spec"]["selector"] == {"foo": "bar"}
    assert rc["metadata"]["labels"] == {"foo": "bar"}
    assert rc["spec"]["replicas"] == 1


# -- apps/v1 ----------------------------------------------------------------------------------------------
def test_deployment_TestSetDefaultDeployment():
    deployment = defaulted(
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": pod_template()}}
    )
    spec = deployment["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    recreate = defaulted(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"strategy": {"type": "Recreate"}, "template": pod_template()},
        }
    )
    assert recreate["spec"]["strategy"] == {"type": "Recreate"}


def test_daemon_set_TestSetDefaultDaemonSetSpec():
    spec = defaulted(
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"}, "spec": {"template": pod_template()}}
    )["spec"]
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert spec["revisionHistoryLimit"] == 10


def test_stateful_set_TestSetDefaultStatefulSet():
    spec = defaulted(
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "s"},
            "spec": {"template": pod_template(), "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {}}]},
        }
    )["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["replicas"] == 1
    assert spec["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"
    on_delete = defaulted(
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "s"},
            "spec": {"updateStrategy": {"type": "OnDelete"}, "template": pod_template()},
        }
    )["spec"]
    assert on_delete["updateStrategy"] == {"type": "OnDelete"}


def test_replica_set_TestSetDefaultReplicaSetReplicas():
    assert (
        defaulted(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": "r"},
                "spec": {"template": pod_template()},
            }
        )["spec"]["replicas"]
        == 1
    )


# -- batch/v1 -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "completions", "parallelism"),
    [
        ({}, 1, 1),
        ({"completions": 2}, 2, 1),
        ({"parallelism": 2}, None, 2),
        ({"completions": 5, "parallelism": 3}, 5, 3),
    ],
)
def test_job_completions_and_parallelism_TestSetDefaultJob(given, completions, parallelism):
    spec = defaulted(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j"},
            "spec": {**given, "template": pod_template()},
        }
    )["spec"]
    assert spec.get("completions") == completions
    assert spec["parallelism"] == parallelism
    assert spec["backoffLimit"] == 6
    assert spec["completionMode"] == "NonIndexed"
    assert spec["suspend"] is False
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert spec["manualSelector"] is False


def test_job_backoff_limit_per_index_and_pod_failure_policy():
    spec = defaulted(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j"},
            "spec": {
                "backoffLimitPerIndex": 1,
                "completionMode": "Indexed",
                "podFailurePolicy": {
                    "rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]
                },
                "template": pod_template(),
            },
        }
    )["spec"]
    assert spec["backoffLimit"] == 2**31 - 1
    assert spec["podReplacementPolicy"] == "Failed"
    assert spec["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True"


def test_job_labels_from_template():
    job = defaulted(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j"},
            "spec": {"template": {"metadata": {"labels": {"app": "x"}}, "spec": {}}},
        }
    )
    assert job["metadata"]["labels"] == {"app": "x"}


def test_cron_job_TestSetDefaultCronJob():
    cron = defaulted(
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "c"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": pod_template()}}},
        }
    )
    spec = cron["spec"]
    assert (
        spec["concurrencyPolicy"],
        spec["suspend"],
        spec["successfulJobsHistoryLimit"],
        spec["failedJobsHistoryLimit"],
    ) == ("Allow", False, 3, 1)
    job_spec = spec["jobTemplate"]["spec"]
    assert job_spec["template"]["spec"]["dnsPolicy"] == "ClusterFirst"
    assert "backoffLimit" not in job_spec  # SetDefaults_Job is not called on a jobTemplate


# -- networking, rbac, autoscaling --------------------------------------------------------------------------
def test_network_policy_TestSetDefaultNetworkPolicy():
    spec = defaulted(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "n"},
            "spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53}]}]},
        }
    )["spec"]
    assert spec["policyTypes"] == ["Ingress", "Egress"]
    assert spec["egress"][0]["ports"][0]["protocol"] == "TCP"
    ingress_only = defaulted(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": "n"},
            "spec": {"podSelector": {}},
        }
    )["spec"]
    assert ingress_only["policyTypes"] == ["Ingress"]


def test_ingress_class_parameters_scope():
    spec = defaulted(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IngressClass",
            "metadata": {"name": "i"},
            "spec": {"parameters": {"kind": "X", "name": "y"}},
        }
    )["spec"]
    assert spec["parameters"]["scope"] == "Cluster"


def test_role_binding_TestSetDefaultRoleBinding():
    binding = defaulted(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "b"},
            "roleRef": {"kind": "Role", "name": "r"},
            "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "sa"}],
        }
    )
    assert binding["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert binding["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io"
    assert "apiGroup" not in binding["subjects"][1]


def test_horizontal_pod_autoscaler_TestSetDefaultHPA():
    spec = defaulted(
        {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "h"},
            "spec": {"maxReplicas": 5, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}},
        }
    )["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}
    ]
    assert spec["behavior"]["scaleUp"]["policies"] == [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ]
    assert spec["behavior"]["scaleDown"] == {
        "stabilizationWindowSeconds": 60,
        "selectPolicy": "Max",
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
    }


# -- what defaulting leaves alone ---------------------------------------------------------------------------
def test_input_is_never_changed_and_unknown_kinds_pass_through():
    given = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}}
    snapshot = copy.deepcopy(given)
    result = default_object(given)
    assert given == snapshot and result.paths
    for obj in (
        {"apiVersion": "example.com/v1", "kind": "Widget"},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "spec": {}},
        {"apiVersion": "apps/v1beta1", "kind": "Deployment"},
        None,
        "text",
        {"kind": "Pod"},
    ):
        assert default_object(obj).object is obj and default_object(obj).paths == ()


@pytest.mark.parametrize(
    "spec",
    [
        "oops",
        3,
        [1],
        {"template": "x"},
        {"template": {"spec": {"containers": "no"}}},
        {"template": {"spec": {"containers": [None, 1, {"ports": "x"}]}}},
    ],
)
def test_malformed_objects_never_crash(spec):
    default_object({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": spec})


# -- through admission ------------------------------------------------------------------------------------
REPLICA_LIMIT = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - expression: object.spec.replicas <= 5
  - expression: object.spec.template.spec.containers.all(c, c.imagePullPolicy == 'IfNotPresent')
    message: pinned images only
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit}
spec: {policyName: replica-limit, validationActions: [Deny]}
"""


def deployment_request(image: str) -> dict:
    return {
        "operation": "CREATE",
        "namespace": "default",
        "object": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "w", "image": image}]},
                },
            },
        },
    }


def test_deployment_without_replicas_is_admitted_with_one():
    result = simulate(REPLICA_LIMIT, deployment_request("nginx:1.27"))
    assert result["allowed"], result["status"]
    assert "spec.replicas" in result["defaulted"]["object"]
    assert result["request"]["object"]["spec"]["replicas"] == 1
    assert not [e for e in result["errors"] if "Namespace" in e.get("message", "")]  # `default` always exists


def test_image_pull_policy_defaulted_before_validation():
    result = simulate(REPLICA_LIMIT, deployment_request("nginx"))
    assert not result["allowed"]
    assert "pinned images only" in result["status"]["message"]
    assert "spec.template.spec.containers[0].imagePullPolicy" in result["defaulted"]["object"]


def test_without_defaulting_the_missing_field_is_an_error():
    result = simulate(REPLICA_LIMIT, deployment_request("nginx:1.27"), defaulting=False)
    assert not result["allowed"]
    assert "no such key: replicas" in result["status"]["message"]


def test_old_object_defaulted_as_stored():
    request = deployment_request("nginx:1.27")
    request.update(operation="UPDATE", oldObject=copy.deepcopy(request["object"]))
    result = simulate(
        REPLICA_LIMIT.replace("object.spec.replicas <= 5", "oldObject.spec.replicas == object.spec.replicas"), request
    )
    assert result["allowed"], result["status"]
    assert "spec.replicas" in result["defaulted"]["oldObject"]


NAMESPACE_SELECTOR = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny-in-team}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %s}}
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "false", message: denied here}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny-in-team}
spec: {policyName: deny-in-team, validationActions: [Deny]}
"""


@pytest.mark.parametrize("namespace", ["kube-system", "default", "kube-public", "kube-node-lease"])
def test_every_namespace_has_its_metadata_name_label(namespace):
    request = {
        "operation": "CREATE",
        "namespace": namespace,
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": namespace}},
    }
    result = simulate(NAMESPACE_SELECTOR % namespace, request)
    assert not result["allowed"] and "denied here" in result["status"]["message"]


def test_a_defined_namespace_is_defaulted_with_its_label():
    docs = (
        NAMESPACE_SELECTOR % "team-b"
        + "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team-b, labels: {x: y}}\n"
    )
    request = {
        "operation": "CREATE",
        "namespace": "team-b",
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "team-b"}},
    }
    assert not simulate(docs, request)["allowed"]


MUTATE_STRATEGY = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: set-strategy}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{spec: Object.spec{strategy: Object.spec.strategy{type: "Recreate"}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: set-strategy}
spec: {policyName: set-strategy}
"""


def test_mutation_result_is_defaulted_again():
    """The patched object keeps its defaults and the new strategy (re-defaulting does not undo the patch)."""
    result = simulate(MUTATE_STRATEGY, deployment_request("nginx:1.27"))
    assert result["allowed"], result["status"]
    patched = result["patchedObject"]
    assert patched["spec"]["strategy"]["type"] == "Recreate"
    assert patched["spec"]["replicas"] == 1


ADD_SIDECAR = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: add-sidecar}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: "add", path: "/spec/template/spec/containers/-",
                   value: Object.spec.template.spec.containers{name: "sidecar", image: "proxy"}}]
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-sidecar}
spec: {policyName: add-sidecar}
"""


def test_a_patched_in_container_is_defaulted_before_validation():
    result = simulate(ADD_SIDECAR + "---" + REPLICA_LIMIT, deployment_request("nginx:1.27"))
    sidecar = result["patchedObject"]["spec"]["template"]["spec"]["containers"][1]
    assert sidecar["imagePullPolicy"] == "Always" and sidecar["terminationMessagePolicy"] == "File"
    assert not result["allowed"] and "pinned images only" in result["status"]["message"]
