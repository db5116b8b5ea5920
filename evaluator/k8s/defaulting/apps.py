"""apps/v1 defaulting (pkg/apis/apps/v1/defaults.go): the workload's own fields first, then its pod template,
then (StatefulSet) its volume claim templates, as the generated defaulters call them."""

from __future__ import annotations

from typing import Any

from evaluator.k8s.defaulting.core import pod_template_spec, pvc_spec
from evaluator.k8s.defaulting.fields import (
    Recorder,
    child,
    default_pointer,
    default_string,
    ensure,
    items,
    set_all_absent,
)


def _rolling_update(strategy: dict, prefix: str, rec: Recorder, max_unavailable: Any, max_surge: Any) -> None:
    rolling = ensure(strategy, "rollingUpdate", prefix, rec)
    if rolling is not None:
        default_pointer(rolling, "maxUnavailable", max_unavailable, f"{prefix}rollingUpdate.", rec)
        default_pointer(rolling, "maxSurge", max_surge, f"{prefix}rollingUpdate.", rec)


def deployment(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_pointer(spec, "replicas", 1, "spec.", rec)
    if "strategy" not in spec:  # the usual case: the default strategy whole, as the steps below build it
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
        rec.paths.extend(_DEFAULT_STRATEGY_PATHS)
    else:
        strategy = ensure(spec, "strategy", "spec.", rec)
        if strategy is not None:
            default_string(strategy, "type", "RollingUpdate", "spec.strategy.", rec)
            if strategy.get("type") == "RollingUpdate":
                _rolling_update(strategy, "spec.strategy.", rec, "25%", "25%")
    if not set_all_absent(spec, _DEPLOYMENT_DEFAULTS, _DEPLOYMENT_DEFAULT_KEYS, "spec.", rec):
        default_pointer(spec, "revisionHistoryLimit", 10, "spec.", rec)
        default_pointer(spec, "progressDeadlineSeconds", 600, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


_DEPLOYMENT_DEFAULTS = {"revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}
_DEPLOYMENT_DEFAULT_KEYS = tuple(_DEPLOYMENT_DEFAULTS)
_DEFAULT_STRATEGY_PATHS = (
    "spec.strategy",
    "spec.strategy.type",
    "spec.strategy.rollingUpdate",
    "spec.strategy.rollingUpdate.maxUnavailable",
    "spec.strategy.rollingUpdate.maxSurge",
)


def daemon_set(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    strategy = ensure(spec, "updateStrategy", "spec.", rec)
    if strategy is not None:
        default_string(strategy, "type", "RollingUpdate", "spec.updateStrategy.", rec)
        if strategy.get("type") == "RollingUpdate":
            _rolling_update(strategy, "spec.updateStrategy.", rec, 1, 0)
    default_pointer(spec, "revisionHistoryLimit", 10, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


def stateful_set(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_string(spec, "podManagementPolicy", "OrderedReady", "spec.", rec)
    strategy = ensure(spec, "updateStrategy", "spec.", rec)
    if strategy is not None:
        if not strategy.get("type"):
            rec.set(strategy, "type", "RollingUpdate", "spec.updateStrategy.")
            default_pointer(strategy, "rollingUpdate", {}, "spec.updateStrategy.", rec)
        rolling = child(strategy, "rollingUpdate")
        if strategy.get("type") == "RollingUpdate" and rolling is not None:
            default_pointer(rolling, "partition", 0, "spec.updateStrategy.rollingUpdate.", rec)
    retention = ensure(spec, "persistentVolumeClaimRetentionPolicy", "spec.", rec)
    if retention is not None:
        prefix = "spec.persistentVolumeClaimRetentionPolicy."
        default_string(retention, "whenDeleted", "Retain", prefix, rec)
        default_string(retention, "whenScaled", "Retain", prefix, rec)
    default_pointer(spec, "replicas", 1, "spec.", rec)
    default_pointer(spec, "revisionHistoryLimit", 10, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)
    for i, claim in items(spec, "volumeClaimTemplates"):
        prefix = f"spec.volumeClaimTemplates[{i}]."
        status = ensure(claim, "status", prefix, rec)
        if status is not None:
            default_string(status, "phase", "Pending", f"{prefix}status.", rec)
        claim_spec = child(claim, "spec")
        if claim_spec is not None:
            pvc_spec(claim_spec, f"{prefix}spec.", rec)


def replica_set(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_pointer(spec, "replicas", 1, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


DEFAULTERS = {"Deployment": deployment, "DaemonSet": daemon_set, "StatefulSet": stateful_set, "ReplicaSet": replica_set}
