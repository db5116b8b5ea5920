"""deploy/kubernetes rendered by kustomize and admitted by our own engine under Kyverno's Pod Security
"restricted" policies and best practices (tests/data/kyverno-policies, copied from kyverno/policies).

The upstream policies audit; here each one enforces, so a violation is a denial of the Deployment (Kyverno
generates the Deployment variant of each Pod rule, as a cluster's admission webhook would). A weakened copy of
a Deployment must be denied by the policy about the field taken away: otherwise these checks check nothing.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from evaluator import simulate

ROOT = Path(__file__).resolve().parents[2]
KUSTOMIZE = ROOT / "deploy" / "kubernetes"
POLICIES = ROOT / "tests" / "data" / "kyverno-policies"
OVERLAYS = sorted(path.name for path in (KUSTOMIZE / "overlays").iterdir() if path.is_dir())

needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl (kustomize built in)")


def enforcing_policies() -> list[dict]:
    policies = []
    for path in sorted(POLICIES.rglob("*.yaml")):
        policy = yaml.safe_load(path.read_text())
        policy["spec"]["validationFailureAction"] = "Enforce"
        policies.append(policy)
    return policies


POLICY_DOCUMENTS = enforcing_policies()
POLICY_NAMES = {policy["metadata"]["name"] for policy in POLICY_DOCUMENTS}


def render(overlay: str) -> list[dict]:
    completed = subprocess.run(
        ["kubectl", "kustomize", str(KUSTOMIZE / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [document for document in yaml.safe_load_all(completed.stdout) if document]


def deployments(documents: list[dict]) -> list[dict]:
    return [document for document in documents if document["kind"] == "Deployment"]


def admit(obj: dict) -> dict:
    return simulate(POLICY_DOCUMENTS, dict(obj, metadata=dict(obj["metadata"], namespace="default")))


def rule_results(result: dict) -> dict[str, list[str]]:
    return {entry["policy"]: [rule["result"] for rule in entry["rules"]] for entry in result["kyverno"]}


def test_there_are_overlays_and_policies():
    assert {"small", "production"} <= set(OVERLAYS)
    assert {"require-run-as-nonroot", "podsecurity-subrule-restricted", "disallow-latest-tag"} <= POLICY_NAMES


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_deployment_passes_every_policy(overlay):
    rendered = deployments(render(overlay))
    assert {d["metadata"]["name"] for d in rendered} == {"admission-playground-web", "admission-playground-worker"}
    for deployment in rendered:
        result = admit(deployment)
        assert result["errors"] == []
        assert result["allowed"] is True, result["status"]
        results = rule_results(result)
        # every policy ran on the Deployment itself (its autogen rules) and every rule passed
        assert set(results) == POLICY_NAMES
        assert all(outcomes and set(outcomes) == {"pass"} for outcomes in results.values()), results


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_pods_of_every_deployment_pass_every_policy(overlay):
    for deployment in deployments(render(overlay)):
        template = deployment["spec"]["template"]
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": dict(template["metadata"], name=deployment["metadata"]["name"]),
            "spec": template["spec"],
        }
        result = admit(pod)
        assert result["allowed"] is True, result["status"]
        assert set(rule_results(result)) == POLICY_NAMES


@needs_kubectl
def test_the_manifests_hold_what_the_policies_do_not_check():
    documents = render("production")
    kinds = {document["kind"] for document in documents}
    assert {"HorizontalPodAutoscaler", "PodDisruptionBudget", "Service", "Ingress", "ConfigMap"} <= kinds
    assert "Secret" not in kinds  # the operator creates it: no key or password in the repository
    for deployment in deployments(documents):
        spec = deployment["spec"]["template"]["spec"]
        assert "replicas" not in deployment["spec"]  # the autoscaler's
        assert spec["automountServiceAccountToken"] is False
        for container in spec["containers"]:
            assert container["resources"]["limits"]["memory"]
            mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
            assert "/tmp" in mounts
    web = next(d for d in deployments(documents) if d["metadata"]["name"].endswith("-web"))
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert web["spec"]["template"]["metadata"]["annotations"]["prometheus.io/path"] == "/metrics"


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_commands_are_whole(overlay):
    """The overlays patch the commands by position: each still reads as the command it was."""
    by_name = {d["metadata"]["name"]: d["spec"]["template"]["spec"] for d in deployments(render(overlay))}
    (worker,) = by_name["admission-playground-worker"]["containers"]
    command = worker["command"]
    assert command[:4] == ["celery", "--app", "playground.celery_app", "worker"]
    concurrency = command[command.index("--concurrency") + 1]
    assert concurrency.isdigit() and int(concurrency) >= 1
    (web,) = by_name["admission-playground-web"]["containers"]
    assert web["command"][0] == "daphne" and web["command"][-1] == "playground.asgi:application"
    assert web["ports"] == [{"name": "http", "containerPort": 8000}]


def _without_run_as_non_root(deployment):
    spec = deployment["spec"]["template"]["spec"]
    spec["securityContext"].pop("runAsNonRoot")
    for container in spec["containers"] + spec.get("initContainers", []):
        container["securityContext"].pop("runAsNonRoot", None)


def _latest_image(deployment):
    deployment["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/example/admission-playground:latest"


def _writable_root(deployment):
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] = False


def _no_probes(deployment):
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        container.pop(probe, None)


def _capabilities_kept(deployment):
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"].pop("capabilities")


def _no_limits(deployment):
    deployment["spec"]["template"]["spec"]["containers"][0]["resources"].pop("limits")


def _escalation_allowed(deployment):
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]["allowPrivilegeEscalation"] = True


def _no_seccomp(deployment):
    deployment["spec"]["template"]["spec"]["securityContext"].pop("seccompProfile")


def _host_path(deployment):
    deployment["spec"]["template"]["spec"]["volumes"][0] = {"name": "tmp", "hostPath": {"path": "/tmp"}}


WEAKENINGS = {
    "require-run-as-nonroot": _without_run_as_non_root,
    "disallow-latest-tag": _latest_image,
    "require-ro-rootfs": _writable_root,
    "require-pod-probes": _no_probes,
    "disallow-capabilities-strict": _capabilities_kept,
    "require-requests-limits": _no_limits,
    "disallow-privilege-escalation": _escalation_allowed,
    "restrict-seccomp-strict": _no_seccomp,
    "disallow-host-path": _host_path,
}


@needs_kubectl
@pytest.mark.parametrize("policy", sorted(WEAKENINGS))
def test_a_weakened_deployment_is_denied_by_the_policy_about_it(policy):
    for deployment in deployments(render("production")):
        weakened = copy.deepcopy(deployment)
        WEAKENINGS[policy](weakened)
        result = admit(weakened)
        assert result["allowed"] is False
        assert result["status"]["code"] == 400
        assert policy in result["status"]["message"]
        assert "fail" in rule_results(result)[policy]


@needs_kubectl
def test_the_connected_overlay_only_reads_the_allow_listed_kinds():
    """components/cluster-reader: get and list on exactly the default allow-list, no write verb, no Secrets,
    the token in the web pods only; the other overlays read no API at all."""
    from evaluator.cluster.kinds import DEFAULT_ALLOWED

    documents = render("connected")
    (role,) = [d for d in documents if d["kind"] == "ClusterRole"]
    granted = set()
    for rule in role["rules"]:
        assert set(rule["verbs"]) <= {"get", "list"}, rule  # no create/update/patch/delete/deletecollection/watch
        assert "*" not in rule["verbs"] + rule["apiGroups"] + rule["resources"]
        assert "resourceNames" not in rule and "nonResourceURLs" not in rule
        granted |= {f"{r}.{g}" if g else r for g in rule["apiGroups"] for r in rule["resources"]}
    assert granted == set(DEFAULT_ALLOWED) and "secrets" not in granted
    (binding,) = [d for d in documents if d["kind"] == "ClusterRoleBinding"]
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "admission-playground-reader", "namespace": "admission-playground"}
    ]
    by_name = {d["metadata"]["name"]: d["spec"]["template"]["spec"] for d in deployments(documents)}
    web, worker = by_name["admission-playground-web"], by_name["admission-playground-worker"]
    assert (web["serviceAccountName"], web["automountServiceAccountToken"]) == ("admission-playground-reader", True)
    assert (worker["serviceAccountName"], worker["automountServiceAccountToken"]) == ("admission-playground", False)
    (config,) = [d for d in documents if d["kind"] == "ConfigMap"]
    assert config["data"]["PLAYGROUND_CLUSTER"] == "in-cluster"
    for overlay in set(OVERLAYS) - {"connected"}:
        kinds = {d["kind"] for d in render(overlay)}
        assert not kinds & {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}, overlay
