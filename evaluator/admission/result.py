"""simulate()'s result, assembled from the policy kinds' outcomes (every key is in evaluator/SCHEMA.md).

The first denial in chain order answers the request; its Status, the AdmissionReview response, the audit
Event, kubectl's text and ferricel's view are built here once, whatever kind denied. Warnings pass through
the API server's warning recorder (`client_warnings`), audit annotations of every kind are merged.
"""

from __future__ import annotations

import datetime as dt
import traceback
from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.admission.audit import audit_event
from evaluator.admission.policy_kind import KindOutcome
from evaluator.admission.response import admission_review, client_warnings, kubectl_create_text, kubectl_text

OUTCOMES = ("admitted", "denied", "warned", "audited", "skipped", "error")


def summary(policies: list[dict]) -> dict[str, int]:
    """How many tuples ended in each outcome (other words, e.g. a mutation's, are counted too)."""
    counts = _NO_OUTCOMES.copy()
    for record in policies:
        outcome = record["outcome"]
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


_NO_OUTCOMES = dict.fromkeys(OUTCOMES, 0)  # copied, never handed out


def admission_result(
    request: Mapping[str, Any],
    outcomes: list[KindOutcome],
    document_errors: list[dict],
    request_errors: list[dict],
    exempt: str | None,
    now: dt.datetime | None,
    full: bool = True,
    patch: str | None = None,
    decoding_warnings: Iterable[str] = (),
) -> dict[str, Any]:
    """The result for a request every kind in `outcomes` (chain order) has seen; kind-owned keys are added
    by the caller; `patch` is the base64 JSONPatch of an allowed mutation (`phases.response_patch`);
    `decoding_warnings` the Warnings decoding the object gave, before admission (the AdmissionReview
    response holds admission's own)."""
    denial = _first_denial(outcomes)
    allowed = denial is None
    status = status_object = None
    if denial is not None:
        status_object = denial.status
        status = {"code": status_object["code"], "reason": status_object["reason"], "message": status_object["message"]}
    annotations: dict[str, str] = {}
    for outcome in outcomes:
        annotations.update(outcome.audit_annotations)
    raised = [w for o in outcomes for w in o.warnings]
    admission_warnings = client_warnings(raised)
    warnings = client_warnings([*decoding_warnings, *raised]) if decoding_warnings else admission_warnings
    policies = [r for o in outcomes for r in o.records]
    response = admission_review(request, allowed, status, admission_warnings, annotations) if full else None
    if response is not None and allowed and patch:
        response["response"]["patchType"] = "JSONPatch"
        response["response"]["patch"] = patch
    if denial is None:
        ferricel = {"accepted": True}
    else:
        ferricel = denial.ferricel or {"accepted": False, "message": status["message"], "code": status["code"]}
    return {
        "allowed": allowed,
        "status": status,
        "statusObject": status_object,
        "warnings": warnings,
        "auditAnnotations": annotations,
        "auditEvent": audit_event(request, status, annotations, now) if full else None,
        "response": response,
        "ferricel": ferricel,
        "denials": list(denial.denials) if denial is not None else [],
        "kubectl": {
            "text": kubectl_text(request, status_object or status, warnings),
            "create": kubectl_create_text(request, status),
        }
        if full
        else None,
        "policies": policies,
        "summary": summary(policies),
        **error_keys(document_errors, request_errors),
        "request": dict(request) if full else None,
        "exempt": exempt,
        "mutationPhases": [],
    }


def _first_denial(outcomes: list[KindOutcome]) -> Any:
    """The denial of the first kind (chain order) that denied, or None (a loop: no generator per request)."""
    for outcome in outcomes:
        if outcome.denial is not None:
            return outcome.denial
    return None


def error_keys(document_errors: list[dict], request_errors: list[dict]) -> dict[str, list[dict]]:
    """`errors` (both, documents' first), `documentErrors` (each with the index of its document, or None for
    the set as a whole) and `requestErrors` (the request's own, `document` None)."""
    return {
        "errors": [*document_errors, *request_errors],
        "documentErrors": list(document_errors),
        "requestErrors": list(request_errors),
    }


def bad_request(
    request: Mapping[str, Any],
    document_errors: list[dict],
    request_errors: list[dict],
    kind_keys: Mapping[str, Any],
    message: str | None = None,
) -> dict[str, Any]:
    """The API server's 400 for a request it cannot decode (its own `message`, for an object of the wrong
    types, which kubectl prints as any refusal) or that lacks what admission needs."""
    refused_by_server = message is not None
    if message is None:
        details = "; ".join(
            e.get("message", "") for e in request_errors if e.get("severity") == "error" and "traceback" not in e
        )
        message = f"invalid admission request: {details}"
    status = {"code": 400, "reason": "BadRequest", "message": message}
    kubectl = None
    if refused_by_server:
        kubectl = {"text": kubectl_text(request, status, []), "create": kubectl_create_text(request, status)}
    return {
        "allowed": False,
        "status": status,
        "warnings": [],
        "auditAnnotations": {},
        "auditEvent": None,
        "response": {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "response": {"uid": "", "allowed": False, "status": status},
        },
        "ferricel": {"accepted": False, "message": status["message"], "code": 400},
        "policies": [],
        **error_keys(document_errors, request_errors),
        "request": request or None,
        "exempt": None,
        "kubectl": kubectl,
        "summary": summary([]),
        **dict(kind_keys),
        "typeChecking": None,
        "defaulted": {"object": [], "oldObject": []},
        "mutationPhases": [],
    }


def internal_error(exc: BaseException) -> dict[str, Any]:
    """A bug of ours as an error entry (call it where the exception is handled: it keeps the traceback)."""
    return {
        "severity": "error",
        "message": f"internal error: {type(exc).__name__}: {exc}",
        "traceback": traceback.format_exc(limit=8),
        "document": None,
    }


def crash(error: dict[str, Any], kind_keys: Mapping[str, Any], document_errors: list[dict] = ()) -> dict[str, Any]:
    """A bug of ours as a result: a 500 naming the internal error (under requestErrors), never a raised error."""
    result = bad_request({}, list(document_errors), [error], kind_keys)
    result["status"] = {"code": 500, "reason": "InternalError", "message": error["message"]}
    result["ferricel"] = {"accepted": False, "message": error["message"], "code": 500}
    return result


def kind_defaults(kinds: Iterable[Any]) -> dict[str, Any]:
    """Every kind-owned result key with its value when the kind does not run, in chain order (fresh copies,
    so no two results share a list)."""
    keys: dict[str, Any] = {}
    for kind in kinds:
        for key, value in kind.result_keys.items():
            keys[key] = type(value)() if isinstance(value, (list, dict)) else value
    return keys
