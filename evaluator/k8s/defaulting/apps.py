"""apps/v1 defaulting (pkg/apis/apps/v1/defaults.go): the workload's own fields first, then its pod template,
then (StatefulSet) its volume claim templates, as the generated defaulters call them."""

from __future__ import annotations

from evaluator.k8s.defaulting.core import pod_template_spec, pvc_spec
from evaluator.k8s.defaulting.fields import (
    POINTER,
    STRING,
    Defaults,
    Field,
    Recorder,
    WhenAbsent,
    child,
    default_pointer,
    default_string,
    ensure,
    items,
    spec_defaulter,
)

_HISTORY = Defaults(Field("revisionHistoryLimit", 10, POINTER))
_ROLLING_UPDATE_TYPE = Defaults(Field("type", "RollingUpdate", STRING))
_DEPLOYMENT = Defaults(*_HISTORY.fields, Field("progressDeadlineSeconds", 600, POINTER))
_DEPLOYMENT_ROLLING_UPDATE = Defaults(Field("maxUnavailable", "25%", POINTER), Field("maxSurge", "25%", POINTER))
_DAEMON_SET_ROLLING_UPDATE = Defaults(Field("maxUnavailable", 1, POINTER), Field("maxSurge", 0, POINTER))
_RETENTION = Defaults(Field("whenDeleted", "Retain", STRING), Field("whenScaled", "Retain", STRING))
_CLAIM_STATUS = Defaults(Field("phase", "Pending", STRING))


def _strategy(parent: dict, key: str, prefix: str, rec: Recorder, rolling_update: Defaults) -> None:
    """A Deployment's or DaemonSet's strategy: RollingUpdate unless told, and then its rollingUpdate's limits."""
    strategy = ensure(parent, key, prefix, rec)
    if strategy is None:
        return
    strategy_prefix = f"{prefix}{key}."
    _ROLLING_UPDATE_TYPE.apply(strategy, strategy_prefix, rec)
    if strategy.get("type") == "RollingUpdate":
        rolling = ensure(strategy, "rollingUpdate", strategy_prefix, rec)
        if rolling is not None:
            rolling_update.apply(rolling, f"{strategy_prefix}rollingUpdate.", rec)


def _deployment_strategy(spec: dict, prefix: str, rec: Recorder) -> None:
    _strategy(spec, "strategy", prefix, rec, _DEPLOYMENT_ROLLING_UPDATE)


_DEPLOYMENT_STRATEGY = WhenAbsent("strategy", _deployment_strategy)


@spec_defaulter
def deployment(obj: dict, spec: dict, rec: Recorder) -> None:
    default_pointer(spec, "replicas", 1, "spec.", rec)
    _DEPLOYMENT_STRATEGY.apply(spec, "spec.", rec)
    _DEPLOYMENT.apply(spec, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


@spec_defaulter
def daemon_set(obj: dict, spec: dict, rec: Recorder) -> None:
    _strategy(spec, "updateStrategy", "spec.", rec, _DAEMON_SET_ROLLING_UPDATE)
    _HISTORY.apply(spec, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


def _stateful_set_strategy(spec: dict, rec: Recorder) -> None:
    strategy = ensure(spec, "updateStrategy", "spec.", rec)
    if strategy is None:
        return
    if not strategy.get("type"):
        rec.set(strategy, "type", "RollingUpdate", "spec.updateStrategy.")
        default_pointer(strategy, "rollingUpdate", {}, "spec.updateStrategy.", rec)
    rolling = child(strategy, "rollingUpdate")
    if strategy.get("type") == "RollingUpdate" and rolling is not None:
        default_pointer(rolling, "partition", 0, "spec.updateStrategy.rollingUpdate.", rec)


def _volume_claim_templates(spec: dict, rec: Recorder) -> None:
    for i, claim in items(spec, "volumeClaimTemplates"):
        prefix = f"spec.volumeClaimTemplates[{i}]."
        status = ensure(claim, "status", prefix, rec)
        if status is not None:
            _CLAIM_STATUS.apply(status, f"{prefix}status.", rec)
        claim_spec = child(claim, "spec")
        if claim_spec is not None:
            pvc_spec(claim_spec, f"{prefix}spec.", rec)


@spec_defaulter
def stateful_set(obj: dict, spec: dict, rec: Recorder) -> None:
    default_string(spec, "podManagementPolicy", "OrderedReady", "spec.", rec)
    _stateful_set_strategy(spec, rec)
    retention = ensure(spec, "persistentVolumeClaimRetentionPolicy", "spec.", rec)
    if retention is not None:
        _RETENTION.apply(retention, "spec.persistentVolumeClaimRetentionPolicy.", rec)
    default_pointer(spec, "replicas", 1, "spec.", rec)
    _HISTORY.apply(spec, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)
    _volume_claim_templates(spec, rec)


@spec_defaulter
def replica_set(obj: dict, spec: dict, rec: Recorder) -> None:
    default_pointer(spec, "replicas", 1, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


DEFAULTERS = {"Deployment": deployment, "DaemonSet": daemon_set, "StatefulSet": stateful_set, "ReplicaSet": replica_set}
