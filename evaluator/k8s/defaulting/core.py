"""core/v1 defaulting (pkg/apis/core/v1/defaults.go and its generated defaulters), in the API server's order.

`pod_template_spec` is what every workload (apps, batch, ReplicationController, PodTemplate) calls on its
`spec.template`: SetDefaults_PodSpec and the per-volume / per-container defaulters, but not SetDefaults_Pod
(enableServiceLinks, requests copied from limits and host-network ports materialise on Pods only).
Feature-gated defaults follow the gates' default state in current releases; ResourceList rounding to milli
units is not applied (quantities stay as written).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from evaluator import shortcuts
from evaluator.k8s.defaulting.fields import (
    INT,
    POINTER,
    STRING,
    Defaults,
    Field,
    Recorder,
    child,
    default_pointer,
    default_string,
    ensure,
    is_empty,
    is_zero_int,
    items,
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
_CONTAINER = Defaults(
    Field("imagePullPolicy", None, STRING, make=default_pull_policy, source="image"),
    Field("terminationMessagePath", "/dev/termination-log", STRING),
    Field("terminationMessagePolicy", "File", STRING),
)
_HTTP_GET = Defaults(Field("path", "/", STRING), Field("scheme", "HTTP", STRING))
_PROBE = Defaults(
    Field("timeoutSeconds", 1, INT),
    Field("periodSeconds", 10, INT),
    Field("successThreshold", 1, INT),
    Field("failureThreshold", 3, INT),
)
_GRPC = Defaults(Field("service", "", POINTER))
_FIELD_SELECTOR = Defaults(Field("apiVersion", "v1", STRING))
_PORT = Defaults(Field("protocol", "TCP", STRING))
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


def _probe(probe: dict, prefix: str, rec: Recorder) -> None:
    _PROBE.apply(probe, prefix, rec)
    http_get = child(probe, "httpGet")
    if http_get is not None:
        _HTTP_GET.apply(http_get, f"{prefix}httpGet.", rec)
    grpc = child(probe, "grpc")
    if grpc is not None:
        _GRPC.apply(grpc, f"{prefix}grpc.", rec)


def _env_field_refs(c: dict, prefix: str, rec: Recorder) -> None:
    for i, env in items(c, "env"):
        value_from = child(env, "valueFrom")
        field_ref = child(value_from, "fieldRef") if value_from is not None else None
        if field_ref is not None:
            _FIELD_SELECTOR.apply(field_ref, f"{prefix}env[{i}].valueFrom.fieldRef.", rec)


def _lifecycle(c: dict, prefix: str, rec: Recorder) -> None:
    lifecycle = child(c, "lifecycle")
    if lifecycle is None:
        return
    for hook_name in ("postStart", "preStop"):
        hook = child(lifecycle, hook_name)
        http_get = child(hook, "httpGet") if hook is not None else None
        if http_get is not None:
            _HTTP_GET.apply(http_get, f"{prefix}lifecycle.{hook_name}.httpGet.", rec)


def _ports(c: dict, prefix: str, rec: Recorder) -> None:
    for i, port in items(c, "ports"):
        _PORT.apply(port, f"{prefix}ports[{i}].", rec)


def _probes(c: dict, prefix: str, rec: Recorder) -> None:
    for probe_name in _PROBES:
        probe = c.get(probe_name)
        if type(probe) is dict:
            _probe(probe, f"{prefix}{probe_name}.", rec)


# What a container holds below its own fields, each part's walk in the API server's order; the keys the
# usual-container shortcut looks for are read off the same table.
_CONTAINER_PART_WALKS = (
    (("ports",), _ports),
    (("env",), _env_field_refs),
    (_PROBES, _probes),
    (("lifecycle",), _lifecycle),
)
_CONTAINER_PARTS = frozenset(key for keys, _ in _CONTAINER_PART_WALKS for key in keys)


def container(c: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_Container, then the ports, env field references, probes and lifecycle hooks."""
    _CONTAINER.apply(c, prefix, rec)
    if shortcuts.ON and c.keys().isdisjoint(_CONTAINER_PARTS):  # the usual container: nothing below to walk
        return
    for _, walk in _CONTAINER_PART_WALKS:
        walk(c, prefix, rec)


# -- volumes ----------------------------------------------------------------------------------------
_MODE = Defaults(Field("defaultMode", VOLUME_DEFAULT_MODE, POINTER))
_PVC_SPEC = Defaults(Field("volumeMode", "Filesystem", POINTER))
_HOST_PATH = Defaults(Field("type", "", POINTER))
_TOKEN = Defaults(Field("expirationSeconds", SERVICE_ACCOUNT_TOKEN_EXPIRATION_SECONDS, POINTER))


def _downward_items(source: dict, prefix: str, rec: Recorder) -> None:
    for i, item in items(source, "items"):
        field_ref = child(item, "fieldRef")
        if field_ref is not None:
            _FIELD_SELECTOR.apply(field_ref, f"{prefix}items[{i}].fieldRef.", rec)


def _downward_api(source: dict, prefix: str, rec: Recorder) -> None:
    _MODE.apply(source, prefix, rec)
    _downward_items(source, prefix, rec)


def _projected_sources(projected: dict, prefix: str, rec: Recorder) -> None:
    for i, source in items(projected, "sources"):
        source_prefix = f"{prefix}sources[{i}]."
        downward = child(source, "downwardAPI")
        if downward is not None:
            _downward_items(downward, f"{source_prefix}downwardAPI.", rec)
        token = child(source, "serviceAccountToken")
        if token is not None:
            _TOKEN.apply(token, f"{source_prefix}serviceAccountToken.", rec)


def _ephemeral(ephemeral: dict, prefix: str, rec: Recorder) -> None:
    claim_template = child(ephemeral, "volumeClaimTemplate")
    spec = child(claim_template, "spec") if claim_template is not None else None
    if spec is not None:
        pvc_spec(spec, f"{prefix}volumeClaimTemplate.spec.", rec)


# Each volume source's defaulter, in the order the generated defaulter calls them (a projected volume's
# mode is defaulted with the other modes, its sources later).
_VOLUME_SOURCE_DEFAULTS: tuple[tuple[str, Callable[[dict, str, Recorder], None]], ...] = (
    ("image", Defaults(Field("pullPolicy", None, STRING, make=default_pull_policy, source="reference")).apply),
    ("hostPath", _HOST_PATH.apply),
    ("secret", _MODE.apply),
    ("configMap", _MODE.apply),
    ("downwardAPI", _downward_api),
    ("projected", _MODE.apply),
    ("iscsi", Defaults(Field("iscsiInterface", "default", STRING)).apply),
    (
        "rbd",
        Defaults(
            Field("pool", "rbd", STRING), Field("user", "admin", STRING), Field("keyring", "/etc/ceph/keyring", STRING)
        ).apply,
    ),
    ("scaleIO", Defaults(Field("storageMode", "ThinProvisioned", STRING), Field("fsType", "xfs", STRING)).apply),
    (
        "azureDisk",
        Defaults(
            Field("cachingMode", "ReadWrite", POINTER),
            Field("kind", "Shared", POINTER),
            Field("fsType", "ext4", POINTER),
            Field("readOnly", False, POINTER),
        ).apply,
    ),
    ("projected", _projected_sources),
    ("ephemeral", _ephemeral),
)


def volume(v: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_Volume (an emptyDir when no source is set) and each source's defaulter."""
    if all(v.get(source) is None for source in _VOLUME_SOURCES):
        rec.set(v, "emptyDir", {}, prefix)
    for name, default in _VOLUME_SOURCE_DEFAULTS:
        source = child(v, name)
        if source is not None:
            default(source, f"{prefix}{name}.", rec)


def pvc_spec(spec: dict, prefix: str, rec: Recorder) -> None:
    _PVC_SPEC.apply(spec, prefix, rec)


# -- pod specs --------------------------------------------------------------------------------------
_POD_SPEC = Defaults(
    Field("dnsPolicy", "ClusterFirst", STRING),
    Field("restartPolicy", "Always", STRING),
    Field("securityContext", {}, POINTER),
    Field("terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS, POINTER),
    Field("schedulerName", "default-scheduler", STRING),
)
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def pod_spec(spec: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_PodSpec and everything the generated defaulter walks inside a PodSpec."""
    _POD_SPEC.apply(spec, prefix, rec)
    if "volumes" in spec:
        for i, v in items(spec, "volumes"):
            volume(v, f"{prefix}volumes[{i}].", rec)
    for key in _CONTAINER_LISTS:
        containers = spec.get(key)
        if type(containers) is list:
            for i, c in enumerate(containers):
                if type(c) is dict:
                    container(c, f"{prefix}{key}[{i}].", rec)


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
