"""autoscaling/v2 defaulting (pkg/apis/autoscaling/v2/defaults.go): minReplicas 1, a CPU utilisation metric
of 80% when none is given, and a `behavior` that is present filled with the scale-up / scale-down rules'
defaults (a rule's own selectPolicy, stabilizationWindowSeconds and policies win)."""

from __future__ import annotations

import copy

from evaluator.k8s.defaulting.fields import Recorder, child, default_pointer, ensure, is_empty

DEFAULT_CPU_UTILIZATION = 80
_SCALE_UP = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
_SCALE_DOWN = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def _rules(behavior: dict, key: str, defaults: dict, rec: Recorder) -> None:
    rules = behavior.get(key)
    if rules is None:
        rec.set(behavior, key, copy.deepcopy(defaults), "spec.behavior.")
        return
    if type(rules) is not dict:
        return
    for field, value in defaults.items():
        default_pointer(rules, field, copy.deepcopy(value), f"spec.behavior.{key}.", rec)


def horizontal_pod_autoscaler(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_pointer(spec, "minReplicas", 1, "spec.", rec)
    if is_empty(spec.get("metrics")):
        rec.set(
            spec,
            "metrics",
            [
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION},
                    },
                }
            ],
            "spec.",
        )
    behavior = child(spec, "behavior")
    if behavior is not None:
        _rules(behavior, "scaleUp", _SCALE_UP, rec)
        _rules(behavior, "scaleDown", _SCALE_DOWN, rec)


DEFAULTERS = {"HorizontalPodAutoscaler": horizontal_pod_autoscaler}
