"""Mutating admission as the API server orders it: MutatingAdmissionPolicies first, then the validating
policies of the same documents on the mutated object.

`simulate_mutating` wraps `evaluator.simulation.Simulation` (loading, API defaulting and validation of the
documents, request inference, VAP dispatch) and adds what mutation produces (see `mutation_output`):
`patchedObject`, the JSON Patch from the request's object to it (`patch`, `patchBase64`, as an
AdmissionReview response carries it), every mutation with the object after it, and per (policy, binding,
param) records in `policies` next to the VAP ones. It never raises.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluator.admission.audit import audit_event
from evaluator.admission.response import (forbidden_text, kubectl_create_text, kubectl_text, qualified_resource,
                                          reason_to_code, request_name)
from evaluator.mutating.diff import encode_patch, json_patch_between
from evaluator.mutating.dispatcher import MutatingClusterIndex, MutatingDispatcher, MutationResult, PolicyError


def mutation_output(result: MutationResult) -> dict[str, Any]:
    """The JSON-ready description of what the mutating policies did (the `mutation` key of a result)."""
    patch = json_patch_between(result.original, result.object) if result.denial is None else []
    return {
        "patchedObject": result.object if result.denial is None else None,
        "patch": patch,
        "patchBase64": encode_patch(patch) if patch else None,
        "patchType": "JSONPatch" if patch else None,
        "mutations": result.mutations,
        "reinvoked": result.reinvoked,
        "errors": [{"policy": e.policy, "binding": e.binding, "message": e.text(), "failurePolicy": e.failure_policy,
                    "ignored": e.failure_policy == "Ignore"} for e in result.errors],
        "notes": list(result.notes),
    }


def denial_status(request: Mapping[str, Any], error: PolicyError, reason: str = "Invalid") -> dict[str, Any]:
    """The metav1.Status of a MutatingAdmissionPolicy denial (admission.NewForbidden with the error text)."""
    text = error.text()
    if error.internal:
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": text,
                "reason": "InternalError", "details": {"causes": [{"message": text.removeprefix(
                    "Internal error occurred: ")}]}, "code": 500}
    group, resource = qualified_resource(request)
    return {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": forbidden_text(request, text), "reason": reason,
        "details": {"name": request_name(request), "group": group, "kind": resource, "causes": [{"message": text}]},
        "code": reason_to_code(reason),
    }


class MutatingStage:
    """The mutating half of one Simulation: built once per document set (policies compiled once), run per
    request before the validating dispatch, then folded into the result dict the validating half made."""

    def __init__(self, documents: list[Mapping[str, Any]], mapper: Any,
                 defaulter: Callable[[dict], dict] | None = None):
        self.cluster = MutatingClusterIndex(documents, mapper)
        self.defaulter = defaulter
        self._dispatcher: MutatingDispatcher | None = None

    def compile_errors(self) -> list[dict[str, Any]]:
        """Located compile errors of every bound MutatingAdmissionPolicy (severity error)."""
        dispatcher = self.dispatcher(None)
        return [_compile_error(policy, error) for policy, _ in self.cluster.hooks()
                for error in dispatcher.compiled(policy).compile_errors]

    def dispatcher(self, authorizer_factory: Callable[[Mapping], tuple[Any, Any]] | None) -> MutatingDispatcher:
        if self._dispatcher is None:
            self._dispatcher = MutatingDispatcher(self.cluster, authorizer_factory, self.defaulter)
        self._dispatcher.authorizer_factory = authorizer_factory
        return self._dispatcher

    def run(self, request: Mapping[str, Any], authorizer_factory=None) -> MutationResult:
        """Every mutating policy on a normalized AdmissionRequest; never raises."""
        return self.dispatcher(authorizer_factory).dispatch(request)

    @staticmethod
    def request_for_validation(request: Mapping[str, Any], outcome: MutationResult) -> dict[str, Any]:
        """The request the validating policies see: its object is the mutated one."""
        return dict(request, object=outcome.object)

    @staticmethod
    def annotate(result: dict[str, Any], outcome: MutationResult, request: Mapping[str, Any], now: Any = None) -> None:
        """Add the mutation's output to a simulate() result, or turn it into the mutation's denial."""
        if outcome.denial is not None:
            _deny(result, request, outcome.denial, now)
        result["request"] = dict(request)
        result["mutation"] = mutation_output(outcome)
        result["patchedObject"] = result["mutation"]["patchedObject"]
        result["policies"] = outcome.policies + list(result.get("policies") or [])
        if result["mutation"]["patch"] and result.get("allowed"):
            response = result["response"]["response"]
            response["patchType"] = "JSONPatch"
            response["patch"] = result["mutation"]["patchBase64"]


def _compile_error(policy: Mapping[str, Any], error: dict) -> dict[str, Any]:
    name = str((policy.get("metadata") or {}).get("name") or "")
    return {"severity": "error", "kind": "MutatingAdmissionPolicy", "name": name, **error}


def _deny(result: dict[str, Any], request: Mapping[str, Any], error: PolicyError, now: Any) -> None:
    """Turn a result into the MAP denial: mutation errors stop admission before validation runs."""
    status_object = denial_status(request, error)
    status = {"code": status_object["code"], "reason": status_object["reason"], "message": status_object["message"]}
    result.update(allowed=False, status=status, statusObject=status_object, warnings=[], auditAnnotations={},
                  policies=[], denials=[{"policy": error.policy, "binding": error.binding, "message": error.text(),
                                         "reason": status["reason"]}])
    result["response"] = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                          "response": {"uid": str(request.get("uid") or ""), "allowed": False,
                                       "status": {**status, "status": "Failure"}}}
    result["ferricel"] = {"accepted": False, "message": error.text(), "code": status["code"]}
    result["kubectl"] = {"text": kubectl_text(request, status, []), "create": kubectl_create_text(request, status)}
    result["auditEvent"] = audit_event(request, status, {}, now)
