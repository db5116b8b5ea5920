"""`validate.cel` rules, run through our ValidatingAdmissionPolicy validator the way Kyverno's CEL handler
builds one (pkg/engine/handlers/validation/validate_cel.go): celPreconditions are matchConditions, the
rule message is the default of each expression's message, failure policy Fail (errors deny)."""

from __future__ import annotations

from evaluator.admission import activation
from evaluator.admission.evaluation import Inputs
from evaluator.policies.validating.compiler import compile_policy
from evaluator.policies.validating.validator import DENY, EVAL_ERROR, ValidateResult, validate

from .rule_validator import ERROR, FAIL, PASS, SKIP, RuleResponse


def _vap_spec(rule: dict) -> dict:
    cel = (rule.get("validate") or {}).get("cel") or {}
    message = (rule.get("validate") or {}).get("message", "") or ""
    validations = []
    for e in cel.get("expressions") or []:
        e = dict(e)
        if not e.get("message"):
            e["message"] = message
        validations.append(e)
    spec = {
        "failurePolicy": "Fail",
        "validations": validations,
        "variables": cel.get("variables") or [],
        "matchConditions": rule.get("celPreconditions") or [],
        "auditAnnotations": cel.get("auditAnnotations") or [],
    }
    if cel.get("paramKind"):
        spec["paramKind"] = cel["paramKind"]
    return {"metadata": {"name": rule.get("name", "")}, "spec": spec}


def _params(cel: dict, documents: list, namespace: str) -> tuple[list, str | None]:
    kind = cel.get("paramKind") or {}
    ref = cel.get("paramRef") or {}
    found = []
    for doc in documents:
        if doc.get("kind") != kind.get("kind") or doc.get("apiVersion") != kind.get("apiVersion"):
            continue
        meta = doc.get("metadata") or {}
        if ref.get("name") and meta.get("name") != ref["name"]:
            continue
        want_ns = ref.get("namespace") or ""
        if want_ns and (meta.get("namespace") or "") != want_ns:
            continue
        found.append(doc)
    if not found:
        return [], (
            f"error in parameterized resource: no params found for {kind.get('kind', '')} "
            f"{ref.get('namespace', '')}/{ref.get('name', '')} among the documents"
        )
    return found, None


def _stored_namespace(documents: list, ns: str) -> dict | None:
    """The Namespace object of the request: among the documents, else one with just its name."""
    if not ns:
        return None
    stored = next(
        (d for d in documents if d.get("kind") == "Namespace" and (d.get("metadata") or {}).get("name") == ns),
        None,
    )
    return stored or {"metadata": {"name": ns}}


def _cel_request(request: dict, operation: str, meta: dict, ns: str, gvk: tuple[str, str, str]) -> dict:
    group, version, kind = gvk
    return activation.cel_request(
        {
            "operation": operation,
            "name": meta.get("name", ""),
            "namespace": ns,
            "userInfo": request.get("userInfo") or {},
            "kind": {"group": group, "version": version, "kind": kind},
            "resource": request.get("resource") or {},
            "subResource": request.get("subResource") or "",
        },
        {"group": group, "version": version, "kind": kind},
        request.get("resource") or {},
    )


def _response(name: str, result: ValidateResult) -> RuleResponse | None:
    """The rule's answer from one validation run (skipped, first deny, first error), None when it passed."""
    if result.skipped:
        return RuleResponse(name, SKIP, "cel preconditions not met")
    for decision in result.decisions:
        if decision.action == DENY:
            return RuleResponse(name, FAIL, decision.message)
        if decision.evaluation == EVAL_ERROR:
            return RuleResponse(name, ERROR, decision.message)
    return None


def evaluate_rule(rule: dict, request: dict, resource: dict, m, offline) -> RuleResponse:
    """One run per matching params document (or one without params); the first that does not pass answers."""
    name = rule.get("name", "")
    cel = (rule.get("validate") or {}).get("cel") or {}
    compiled = compile_policy(_vap_spec(rule))
    operation = request.get("operation") or "CREATE"
    obj = request.get("object") if operation != "DELETE" else None
    old = request.get("oldObject") if operation != "CREATE" else None
    source = obj if obj is not None else (old or {})
    meta = source.get("metadata") or {}
    ns = "" if tuple(m.gvk) == ("", "v1", "Namespace") else meta.get("namespace") or ""
    ns_obj = _stored_namespace(offline.documents, ns)
    cel_req = _cel_request(request, operation, meta, ns, m.gvk)
    params_list: list = [None]
    if cel.get("paramKind"):
        params_list, err = _params(cel, offline.documents, ns)
        if err:
            return RuleResponse(name, ERROR, err)
    for params in params_list:
        inputs = Inputs(
            object=obj,
            old_object=old,
            request=cel_req,
            match_request=cel_req,
            params=params,
            namespace_object=activation.namespace_object(ns_obj),
            namespace_raw=activation.stored_namespace(ns_obj),
        )
        response = _response(name, validate(compiled, inputs))
        if response is not None:
            return response
    return RuleResponse(name, PASS, f"Validation rule '{name}' passed.")
