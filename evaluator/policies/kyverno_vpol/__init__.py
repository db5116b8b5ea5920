"""Kyverno's CEL policy type, ValidatingPolicy / NamespacedValidatingPolicy (policies.kyverno.io v1alpha1,
v1beta1, v1), offline.

`evaluate(documents, request)` runs every ValidatingPolicy among `documents` on an admission request dict and
returns one result per policy, shaped like the Kyverno ClusterPolicy results (`kind`, `policy`, `rules`
with `result` pass/fail/skip/error and `message`); `evaluate_json(documents, payload)` runs JSON-mode
policies on a payload; `VpolStage` is the admission webhook inside `simulate`; `policy_report` builds a
PolicyReport; `evaluator.policies.kyverno_vpol.cli_test` the `kyverno test` rows. Modules: `spec` (kinds, defaults),
`autogen` (pod-controller variants), `compiler`, `engine` (one evaluation), `libs` + `context` +
`image_ref` (Kyverno's CEL libraries answered from documents and mocks), `inputs`, `policies`, `admission`,
`webhook_conditions` (the matchConditions the API server evaluates first), `vap_generation` (the VAP Kyverno
generates with autogen.validatingAdmissionPolicy), `type_checks` (VAP-style type warnings), `report`, `stage`,
`kind`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .inputs import json_inputs, kubernetes_inputs
from .policies import compile_all, evaluate_payload, evaluate_request
from .report import policy_report
from .spec import is_cel_exception, is_validating_policy
from .stage import VpolStage, offline_context
from . import kind  # noqa: E402,F401  (registers the kind with the admission core)

__all__ = [
    "evaluate",
    "evaluate_json",
    "VpolStage",
    "policy_report",
    "is_validating_policy",
    "is_cel_exception",
    "compile_all",
]


def evaluate(documents: Iterable[Any], request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every ValidatingPolicy of `documents` on one admission request (as `kyverno apply` would, no
    admission filters); the other documents answer resource lookups and mocks."""
    docs = [d for d in documents if isinstance(d, Mapping)]
    stage = VpolStage(docs)
    namespace = str(
        request.get("namespace")
        or ((request.get("object") or request.get("oldObject") or {}).get("metadata") or {}).get("namespace")
        or ""
    )
    ns_obj = stage.namespaces(namespace)
    inputs = kubernetes_inputs(request, context=stage.context, namespaces=stage.namespaces, namespace_object=ns_obj)
    return evaluate_request(stage.entries, inputs)


def evaluate_json(documents: Iterable[Any], payload: Any, payload_type: str = "json") -> list[dict[str, Any]]:
    """The ValidatingPolicies of `documents` that run on a payload: JSON mode for "json", Envoy / HTTP mode
    (kyverno-authz CheckRequests) for "envoy" / "http"."""
    docs = [d for d in documents if isinstance(d, Mapping)]
    entries = compile_all(docs)
    return evaluate_payload(entries, json_inputs(payload, context=offline_context(docs)), payload_type)
