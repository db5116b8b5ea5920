"""networking/v1 defaulting (pkg/apis/networking/v1/defaults.go): NetworkPolicy and IngressClass.

Ingress has no defaulting function (its pathType is required, not defaulted)."""

from __future__ import annotations

from evaluator.k8s.defaulting.fields import Recorder, child, default_pointer, ensure, is_empty, items


def network_policy(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    if is_empty(spec.get("policyTypes")):
        types = ["Ingress", "Egress"] if not is_empty(spec.get("egress")) else ["Ingress"]
        rec.set(spec, "policyTypes", types, "spec.")
    for direction in ("ingress", "egress"):
        for i, rule in items(spec, direction):
            for j, port in items(rule, "ports"):
                default_pointer(port, "protocol", "TCP", f"spec.{direction}[{i}].ports[{j}].", rec)


def ingress_class(obj: dict, rec: Recorder) -> None:
    spec = child(obj, "spec")
    parameters = child(spec, "parameters") if spec is not None else None
    if parameters is not None:
        default_pointer(parameters, "scope", "Cluster", "spec.parameters.", rec)


DEFAULTERS = {"NetworkPolicy": network_policy, "IngressClass": ingress_class}
