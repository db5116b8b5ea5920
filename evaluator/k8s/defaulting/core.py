"""core/v1 defaulting (pkg/apis/core/v1/defaults.go and its generated defaulters), in the API server's order.

`pod_template_spec` is what every workload (apps, batch, ReplicationController, PodTemplate) calls on its
`spec.template`: SetDefaults_PodSpec and the per-volume / per-container defaulters, but not SetDefaults_Pod
(enableServiceLinks, requests copied from limits and host-network ports materialise on Pods only).
Feature-gated defaults follow the gates' default state in current releases; ResourceList rounding to milli
units is not applied (quantities stay as written).
"""

from __future__ import annotations

import functools
from typing import Any

from evaluator.k8s.defaulting.fields import (
    Recorder,
    child,
    default_int,
    default_pointer,
    default_string,
    ensure,
    is_empty,
    is_zero_int,
    is_zero_string,
    items,
    set_all_absent,
)
from evaluator.k8s.defaulting.images import default_pull_policy

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
VOLUME_DEFAULT_MODE = 0o644  # Secret, ConfigMap, DownwardAPI and Projected volume sources
SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS = 3600
CLIENT_IP_AFFINITY_SECONDS = 10800
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"

_VOLUME_SOURCES = (
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
)


# -- containers -------------------------------------------------------------------------------------
def _http_get(action: dict, prefix: str, rec: Recorder) -> None:
    default_string(action, "path", "/", prefix, rec)
    default_string(action, "scheme", "HTTP", prefix, rec)


def _probe(probe: dict, prefix: str, rec: Recorder) -> None:
    default_int(probe, "timeoutSeconds", 1, prefix, rec)
    default_int(probe, "periodSeconds", 10, prefix, rec)
    default_int(probe, "successThreshold", 1, prefix, rec)
    default_int(probe, "failureThreshold", 3, prefix, rec)
    http_get = child(probe, "httpGet")
    if http_get is not None:
        _http_get(http_get, f"{prefix}httpGet.", rec)
    grpc = child(probe, "grpc")
    if grpc is not None:
        default_pointer(grpc, "service", "", f"{prefix}grpc.", rec)


def _field_selector(selector: dict, prefix: str, rec: Recorder) -> None:
    default_string(selector, "apiVersion", "v1", prefix, rec)


def container(c: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_Container, then the ports, env field references, probes and lifecycle hooks."""
    if set_all_absent(c, _CONTAINER_DEFAULTS, _CONTAINER_DEFAULT_KEYS, prefix, rec):
        c["imagePullPolicy"] = default_pull_policy(c.get("image"))  # the key set above: its place is kept
    else:
        if is_zero_string(c.get("imagePullPolicy")):
            rec.set(c, "imagePullPolicy", default_pull_policy(c.get("image")), prefix)
        default_string(c, "terminationMessagePath", "/dev/termination-log", prefix, rec)
        default_string(c, "terminationMessagePolicy", "File", prefix, rec)
    if c.keys().isdisjoint(_CONTAINER_PARTS):  # the usual container: nothing below to walk into
        return
    for i, port in items(c, "ports"):
        default_string(port, "protocol", "TCP", f"{prefix}ports[{i}].", rec)
    for i, env in items(c, "env"):
        value_from = child(env, "valueFrom")
        field_ref = child(value_from, "fieldRef") if value_from is not None else None
        if field_ref is not None:
            _field_selector(field_ref, f"{prefix}env[{i}].valueFrom.fieldRef.", rec)
    for probe_name in _PROBES:
        probe = c.get(probe_name)
        if type(probe) is dict:
            _probe(probe, f"{prefix}{probe_name}.", rec)
    lifecycle = child(c, "lifecycle")
    if lifecycle is not None:
        for hook_name in ("postStart", "preStop"):
            hook = child(lifecycle, hook_name)
            http_get = child(hook, "httpGet") if hook is not None else None
            if http_get is not None:
                _http_get(http_get, f"{prefix}lifecycle.{hook_name}.httpGet.", rec)


_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_CONTAINER_PARTS = frozenset({"ports", "env", *_PROBES, "lifecycle"})
_CONTAINER_DEFAULTS = {
    "imagePullPolicy": None,  # by the image, set after
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
}
_CONTAINER_DEFAULT_KEYS = tuple(_CONTAINER_DEFAULTS)


# -- volumes ----------------------------------------------------------------------------------------
def _downward_items(source: dict, prefix: str, rec: Recorder) -> None:
    for i, item in items(source, "items"):
        field_ref = child(item, "fieldRef")
        if field_ref is not None:
            _field_selector(field_ref, f"{prefix}items[{i}].fieldRef.", rec)


def volume(v: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_Volume (an emptyDir when no source is set) and each source's defaulter."""
    if all(v.get(source) is None for source in _VOLUME_SOURCES):
        rec.set(v, "emptyDir", {}, prefix)
    image = child(v, "image")
    if image is not None and is_zero_string(image.get("pullPolicy")):
        rec.set(image, "pullPolicy", default_pull_policy(image.get("reference")), f"{prefix}image.")
    host_path = child(v, "hostPath")
    if host_path is not None:
        default_pointer(host_path, "type", "", f"{prefix}hostPath.", rec)
    for name in ("secret", "configMap", "downwardAPI", "projected"):
        source = child(v, name)
        if source is not None:
            default_pointer(source, "defaultMode", VOLUME_DEFAULT_MODE, f"{prefix}{name}.", rec)
            if name == "downwardAPI":
                _downward_items(source, f"{prefix}{name}.", rec)
    for name, defaults in (
        ("iscsi", (("iscsiInterface", "default"),)),
        ("rbd", (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring"))),
        ("scaleIO", (("storageMode", "ThinProvisioned"), ("fsType", "xfs"))),
    ):
        source = child(v, name)
        if source is not None:
            for key, value in defaults:
                default_string(source, key, value, f"{prefix}{name}.", rec)
    azure = child(v, "azureDisk")
    if azure is not None:
        _azure_disk(azure, f"{prefix}azureDisk.", rec)
    projected = child(v, "projected")
    if projected is not None:
        for i, source in items(projected, "sources"):
            source_prefix = f"{prefix}projected.sources[{i}]."
            downward = child(source, "downwardAPI")
            if downward is not None:
                _downward_items(downward, f"{source_prefix}downwardAPI.", rec)
            token = child(source, "serviceAccountToken")
            if token is not None:
                default_pointer(
                    token,
                    "expirationSeconds",
                    SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS,
                    f"{source_prefix}serviceAccountToken.",
                    rec,
                )
    ephemeral = child(v, "ephemeral")
    claim_template = child(ephemeral, "volumeClaimTemplate") if ephemeral is not None else None
    if claim_template is not None:
        spec = child(claim_template, "spec")
        if spec is not None:
            pvc_spec(spec, f"{prefix}ephemeral.volumeClaimTemplate.spec.", rec)


def _azure_disk(source: dict, prefix: str, rec: Recorder) -> None:
    default_pointer(source, "cachingMode", "ReadWrite", prefix, rec)
    default_pointer(source, "kind", "Shared", prefix, rec)
    default_pointer(source, "fsType", "ext4", prefix, rec)
    default_pointer(source, "readOnly", False, prefix, rec)


def pvc_spec(spec: dict, prefix: str, rec: Recorder) -> None:
    default_pointer(spec, "volumeMode", "Filesystem", prefix, rec)


# -- pod specs --------------------------------------------------------------------------------------
def pod_spec(spec: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_PodSpec and everything the generated defaulter walks inside a PodSpec."""
    if set_all_absent(spec, _POD_SPEC_DEFAULTS, _POD_SPEC_DEFAULT_KEYS, prefix, rec):
        spec["securityContext"] = {}  # a fresh one for each object
    else:
        default_string(spec, "dnsPolicy", "ClusterFirst", prefix, rec)
        default_string(spec, "restartPolicy", "Always", prefix, rec)
        default_pointer(spec, "securityContext", {}, prefix, rec)
        default_pointer(spec, "terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS, prefix, rec)
        default_string(spec, "schedulerName", "default-scheduler", prefix, rec)
    if "volumes" in spec:
        for i, v in items(spec, "volumes"):
            volume(v, f"{prefix}volumes[{i}].", rec)
    for key in _CONTAINER_LISTS:
        containers = spec.get(key)
        if type(containers) is list:
            for i, c in enumerate(containers):
                if type(c) is dict:
                    container(c, f"{prefix}{key}[{i}].", rec)


_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_POD_SPEC_DEFAULTS = {
    "dnsPolicy": "ClusterFirst",
    "restartPolicy": "Always",
    "securityContext": None,  # a fresh {} for each object, set after
    "terminationGracePeriodSeconds": DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
    "schedulerName": "default-scheduler",
}
_POD_SPEC_DEFAULT_KEYS = tuple(_POD_SPEC_DEFAULTS)


def pod_template_spec(parent: dict, prefix: str, rec: Recorder) -> None:
    """`parent.template` of a workload: a struct in Go, so its PodSpec is defaulted even when absent."""
    template = ensure(parent, "template", prefix, rec)
    template_prefix, spec_prefix = _template_prefixes(prefix)
    spec = ensure(template, "spec", template_prefix, rec) if template is not None else None
    if spec is not None:
        pod_spec(spec, spec_prefix, rec)


@functools.lru_cache(maxsize=256)
def _template_prefixes(prefix: str) -> tuple[str, str]:
    """The template's and its spec's prefixes: one pair for each workload kind's `prefix`, made once."""
    return f"{prefix}template.", f"{prefix}template.spec."


def _requests_from_limits(c: dict, prefix: str, rec: Recorder) -> None:
    resources = child(c, "resources")
    limits = child(resources, "limits") if resources is not None else None
    if limits is None:
        return
    requests = ensure(resources, "requests", f"{prefix}resources.", rec)
    if requests is None:
        return
    for key, value in limits.items():
        if key not in requests:
            rec.set(requests, key, value, f"{prefix}resources.requests.")


def pod(obj: dict, rec: Recorder) -> None:
    """SetDefaults_Pod (requests from limits, enableServiceLinks, host-network ports), then the PodSpec."""
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    for key in ("containers", "initContainers"):
        for i, c in items(spec, key):
            _requests_from_limits(c, f"spec.{key}[{i}].", rec)
    default_pointer(spec, "enableServiceLinks", True, "spec.", rec)
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for i, c in items(spec, key):
                for j, port in items(c, "ports"):
                    if is_zero_int(port.get("hostPort")) and port.get("containerPort") is not None:
                        rec.set(port, "hostPort", port.get("containerPort"), f"spec.{key}[{i}].ports[{j}].")
    pod_spec(spec, "spec.", rec)


def pod_template(obj: dict, rec: Recorder) -> None:
    pod_template_spec(obj, "", rec)


def replication_controller(obj: dict, rec: Recorder) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    template = child(spec, "template")
    labels = child(child(template, "metadata") or {}, "labels") if template is not None else None
    if labels is not None:
        if is_empty(spec.get("selector")):
            rec.set(spec, "selector", dict(labels), "spec.")
        metadata = ensure(obj, "metadata", "", rec)
        if metadata is not None and is_empty(metadata.get("labels")):
            rec.set(metadata, "labels", dict(labels), "metadata.")
    default_pointer(spec, "replicas", 1, "spec.", rec)
    if template is not None:  # a pointer in ReplicationControllerSpec: defaulted only when given
        pod_template_spec(spec, "spec.", rec)


# -- services and the rest ----------------------------------------------------------------------------
def _externally_accessible(spec: dict) -> bool:
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and not is_empty(spec.get("externalIPs")))


def service(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_string(spec, "sessionAffinity", "None", "spec.", rec)
    if spec.get("sessionAffinity") == "None" and spec.get("sessionAffinityConfig") is not None:
        del spec["sessionAffinityConfig"]
        rec.paths.append("spec.sessionAffinityConfig")
    if spec.get("sessionAffinity") == "ClientIP":
        config = child(spec, "sessionAffinityConfig")
        client_ip = child(config, "clientIP") if config is not None else None
        if client_ip is None or client_ip.get("timeoutSeconds") is None:
            rec.set(
                spec, "sessionAffinityConfig", {"clientIP": {"timeoutSeconds": CLIENT_IP_AFFINITY_SECONDS}}, "spec."
            )
    default_string(spec, "type", "ClusterIP", "spec.", rec)
    for i, port in items(spec, "ports"):
        prefix = f"spec.ports[{i}]."
        default_string(port, "protocol", "TCP", prefix, rec)
        target = port.get("targetPort")
        if target is None or target == 0 or target == "":
            if port.get("port") is not None:
                rec.set(port, "targetPort", port.get("port"), prefix)
    if _externally_accessible(spec):
        default_string(spec, "externalTrafficPolicy", "Cluster", "spec.", rec)
    if spec.get("type") in ("NodePort", "LoadBalancer", "ClusterIP"):
        default_pointer(spec, "internalTrafficPolicy", "Cluster", "spec.", rec)
    if spec.get("type") == "LoadBalancer":
        default_pointer(spec, "allocateLoadBalancerNodePorts", True, "spec.", rec)


def secret(obj: dict, rec: Recorder) -> None:
    default_string(obj, "type", "Opaque", "", rec)


def config_map(obj: dict, rec: Recorder) -> None:
    """SetDefaults_ConfigMap makes `data` an empty map, which an empty map omits when it is written out:
    the stored object has no `data` key, so nothing is recorded."""


def persistent_volume_claim(obj: dict, rec: Recorder) -> None:
    status = ensure(obj, "status", "", rec)
    if status is not None:
        default_string(status, "phase", "Pending", "status.", rec)
    spec = child(obj, "spec")
    if spec is not None:
        pvc_spec(spec, "spec.", rec)


def persistent_volume(obj: dict, rec: Recorder) -> None:
    status = ensure(obj, "status", "", rec)
    if status is not None:
        default_string(status, "phase", "Pending", "status.", rec)
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_string(spec, "persistentVolumeReclaimPolicy", "Retain", "spec.", rec)
    default_pointer(spec, "volumeMode", "Filesystem", "spec.", rec)
    host_path = child(spec, "hostPath")
    if host_path is not None:
        default_pointer(host_path, "type", "", "spec.hostPath.", rec)


def namespace(obj: dict, rec: Recorder) -> None:
    """Every named Namespace carries `kubernetes.io/metadata.name: <name>` (set even over another value)."""
    metadata = child(obj, "metadata")
    name = metadata.get("name") if metadata is not None else None
    if isinstance(name, str) and name:
        labels = ensure(metadata, "labels", "metadata.", rec)
        if labels is not None and labels.get(METADATA_NAME_LABEL) != name:
            labels[METADATA_NAME_LABEL] = name
            rec.paths.append(f"metadata.labels['{METADATA_NAME_LABEL}']")
    status = ensure(obj, "status", "", rec)
    if status is not None:
        default_string(status, "phase", "Active", "status.", rec)


def endpoints(obj: dict, rec: Recorder) -> None:
    for i, subset in items(obj, "subsets"):
        for j, port in items(subset, "ports"):
            default_string(port, "protocol", "TCP", f"subsets[{i}].ports[{j}].", rec)


def limit_range(obj: dict, rec: Recorder) -> None:
    spec = child(obj, "spec")
    if spec is None:
        return
    for i, limit in items(spec, "limits"):
        if limit.get("type") != "Container":
            continue
        prefix = f"spec.limits[{i}]."
        default_map = ensure(limit, "default", prefix, rec)
        default_request = ensure(limit, "defaultRequest", prefix, rec)
        if default_map is None or default_request is None:
            continue
        for source, target, target_name in (
            (child(limit, "max"), default_map, "default"),
            (default_map, default_request, "defaultRequest"),
            (child(limit, "min"), default_request, "defaultRequest"),
        ):
            for key, value in (source or {}).items():
                if key not in target:
                    rec.set(target, key, value, f"{prefix}{target_name}.")


DEFAULTERS: dict[str, Any] = {
    "Pod": pod,
    "PodTemplate": pod_template,
    "ReplicationController": replication_controller,
    "Service": service,
    "Secret": secret,
    "ConfigMap": config_map,
    "PersistentVolumeClaim": persistent_volume_claim,
    "PersistentVolume": persistent_volume,
    "Namespace": namespace,
    "Endpoints": endpoints,
    "LimitRange": limit_range,
}
