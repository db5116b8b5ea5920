"""`simulate(documents, request)`: one admission request through the admission chain as the API server runs it.

MutatingAdmissionPolicies first (evaluator.mutating), then, on the mutated object, every
ValidatingAdmissionPolicy (evaluator.admission.dispatch) and the Kyverno policies as a validating webhook
(evaluator.kyverno.webhook). Loading, API defaulting/validation and request inference come from
evaluator.admission; CEL from evaluator.validating.
Nothing here raises: unusable input becomes located entries of `result["errors"]`. The result schema is
documented in evaluator/validating/SCHEMA.md.
"""
from __future__ import annotations

import datetime as dt
import traceback
from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.admission import dispatch_ports as ports
from evaluator.admission.audit import audit_event
from evaluator.admission.dispatch import CompileCache, Dispatcher, DispatchResult
from evaluator.admission.response import (admission_review, client_warnings, denial_message, ferricel,
                                          kubectl_create_text, kubectl_text, status_for)
from evaluator.authz import CachingAuthorizer, RBACAuthorizer
from evaluator.k8s import fielderrors as fe
from evaluator.kyverno.webhook import KyvernoStage
from evaluator.mutating import MutatingStage
from evaluator.validating import expressions as ex
from evaluator.validating.cluster import ADMISSION_GROUP, ClusterIndex

VALIDATED_KINDS = frozenset({"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
                             "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"})

__all__ = ["simulate", "simulate_many", "Simulation"]


def _located(doc: Any, **extra: Any) -> dict[str, Any]:
    location = doc.location() if hasattr(doc, "location") else {}
    return {**location, "kind": getattr(doc, "kind", None), "name": getattr(doc, "name", None), **extra}


class Simulation:
    """A loaded document set, ready for many requests (policies compiled once)."""

    def __init__(self, documents: Any, *, resource_registry: list[Mapping] | None = None,
                 api_validation: str = "enforce", defaulter: Any = None):
        self.errors: list[dict[str, Any]] = []
        self.api_validation = api_validation
        self.cache = CompileCache()
        records = self._load(documents)
        records = self._default_and_validate(records)
        records, duplicates = ports.deduplicate(records)
        self.errors.extend({"severity": "warning", **w} for w in duplicates)
        data = [r.data for r in records]
        crds = [d for d in data if d.get("kind") == "CustomResourceDefinition"]
        mapper, problems = ports.mapper_for(crds, resource_registry)
        self.errors.extend({"severity": "warning", "kind": "CustomResourceDefinition", "message": p} for p in problems)
        self.cluster = ClusterIndex(data, mapper)
        self.mutating = MutatingStage(data, mapper, defaulter)
        self.errors.extend(self.mutating.compile_errors())
        self.kyverno = KyvernoStage(data)
        self.rbac = RBACAuthorizer(data)
        self._data = data
        self._type_checks: dict[str, dict] | None = None
        self._records = {id(r.data): r for r in records}
        self._report_policies()
        self.errors.extend(self.kyverno.vpol.compile_errors(self._locate))

    def _locate(self, data: Any, path: str | None = None) -> dict[str, Any]:
        record = self._records.get(id(data))
        return record.location(path) if record is not None else {}

    # -- loading ----------------------------------------------------------------------------------
    def _load(self, documents: Any) -> list[Any]:
        if isinstance(documents, str):
            records, errors = ports.load_documents(documents)
        elif isinstance(documents, Mapping):
            records, errors = ports.load_objects([documents])
        elif isinstance(documents, Iterable):
            records, errors = [], []
            texts = [d for d in documents if isinstance(d, str)]
            objects = [d for d in documents if not isinstance(d, str)]
            for position, text in enumerate(texts):
                r, e = ports.load_documents(text, f"<text {position}>")
                records += r
                errors += e
            r, e = ports.load_objects(objects)
            records += r
            errors += e
        else:
            records, errors = [], [{"message": f"documents must be YAML text or a list of objects, "
                                               f"not {type(documents).__name__}", "document": None}]
        self.errors.extend({"severity": "error", **e} for e in errors)
        return records

    def _default_and_validate(self, records: list[Any]) -> list[Any]:
        kept = []
        for record in records:
            if record.group != ADMISSION_GROUP or record.kind not in VALIDATED_KINDS:
                kept.append(record)
                continue
            enforce = self.api_validation != "report"
            try:
                defaulted, errors, tolerated = ports.default_and_validate(record.data, ex.compile_check if enforce else None)
            except Exception as exc:  # a bug in validation must cost this document only
                self.errors.append(_located(record, severity="error",
                                            message=f"internal error while validating: {type(exc).__name__}: {exc}"))
                continue
            for warning in tolerated:
                self.errors.append(_located(record, severity="warning", **warning))
            if errors:
                for error in errors:
                    self.errors.append(_located(record, severity="error" if enforce else "warning",
                                                takesPart=not enforce, **error))
                if enforce:
                    continue
            record.data = dict(defaulted)
            if enforce and record.kind == "ValidatingAdmissionPolicy" and self._refused_by_compiler(record):
                continue
            kept.append(record)
        return kept

    def _refused_by_compiler(self, record: Any) -> bool:
        """The create-time compile also types `variables`: a reference to a variable that is not declared
        before is refused there too (the structural check above cannot see it)."""
        compiled = self.cache.get(record.data)
        for error in compiled.compile_errors:
            field_error = fe.invalid(error["path"], error["expression"], error["message"]).to_dict()
            self.errors.append(_located(record, severity="error", **field_error))
        return bool(compiled.compile_errors)

    def _report_policies(self) -> None:
        for binding in self.cluster.orphan_bindings():
            record = self._records.get(id(binding))
            policy = (binding.get("spec") or {}).get("policyName")
            self.errors.append(_located(record, severity="warning", path="spec.policyName",
                                        message=f'ValidatingAdmissionPolicy "{policy}" not found: the binding has no effect'))
        bound = {id(policy) for policy, _ in self.cluster.hooks()}
        for policy in self.cluster.policies:
            if id(policy) not in bound:
                name = (policy.get("metadata") or {}).get("name")
                self.errors.append(_located(self._records.get(id(policy)), severity="warning",
                                            message=f'ValidatingAdmissionPolicy "{name}" has no binding: it has no effect'))
        for policy, _ in self.cluster.hooks():
            compiled = self.cache.get(policy)
            record = self._records.get(id(policy))
            for error in compiled.compile_errors:
                self.errors.append(_located(record, severity="error", **error))

    # -- one request ------------------------------------------------------------------------------
    def _authorizers(self, request: Mapping[str, Any]) -> tuple[Any, Any]:
        return ex.make_authorizers(CachingAuthorizer(self.rbac.check), request)

    def type_checks(self) -> dict[str, dict]:
        """`evaluator.typecheck` of every ValidatingAdmissionPolicy (by name), computed once per document set."""
        if self._type_checks is None:
            from evaluator.typechecking import typecheck

            checks = {}
            for policy in self.cluster.policies:
                name = str((policy.get("metadata") or {}).get("name") or "(unnamed)")
                try:
                    checks[name] = typecheck(policy, self._data)
                except Exception as exc:  # a checker bug must not hide the decision
                    checks[name] = {"error": f"type checking failed: {type(exc).__name__}: {exc}"}
            self._type_checks = checks
        return self._type_checks

    def run(self, request: Any, *, now: dt.datetime | None = None, trace: bool = True, full: bool = True,
            type_checks: bool = True) -> dict[str, Any]:
        """The result for one request. Batch runs pass `trace=False` (no per-expression traces) and
        `full=False` (no audit event, AdmissionReview, kubectl text or type checks: those keys are null);
        `type_checks=False` leaves out only the type checks (the live editor computes them apart)."""
        errors = list(self.errors)
        if isinstance(request, str):
            records, load_errors = ports.load_documents(request, "<request>")
            errors += [{"severity": "error", "source": "request", **e} for e in load_errors]
            request = records[0].data if records else None
        normalized, request_errors, warnings = ports.normalize_request(request, self.cluster.mapper)
        errors += [{"severity": "error", "source": "request", **e} for e in request_errors]
        errors += [{"severity": "warning", "source": "request", "message": w} for w in warnings]
        if normalized is None or request_errors:
            return _bad_request(normalized or {}, errors)
        namespace = normalized.get("namespace")
        if namespace and namespace not in self.cluster.namespaces and self.cluster.hooks():
            errors.append({"severity": "warning", "source": "request",
                           "message": f'Namespace "{namespace}" is not among the documents: it is taken to exist '
                                      "with no labels"})
        exempt = ports.exempt_reason(normalized)
        if exempt is not None:
            result = _result(normalized, DispatchResult(), errors, exempt, now, full)
            result.update(mutation=None, patchedObject=None, kyverno=[], kyvernoGeneratedVAPs=[], typeChecking=None)
            return result
        mutation = self.mutating.run(normalized, self._authorizers)
        outcome = DispatchResult()
        kyverno_results: list[dict] = []
        kyverno_denial = None
        generated_vaps: list[dict] = []
        if mutation.denial is None:
            validated = self.mutating.request_for_validation(normalized, mutation)
            outcome = Dispatcher(self.cluster, self._authorizers, self.cache, trace=trace).dispatch(validated)
            kyverno_results, kyverno_denial, kyverno_warnings = self.kyverno.run(validated)
            outcome.warnings.extend(kyverno_warnings)
            generated_vaps = self.kyverno.compare_generated(validated)
        result = _result(normalized, outcome, errors, exempt, now, full)
        self.mutating.annotate(result, mutation, normalized, now)
        result["kyverno"] = kyverno_results
        result["kyvernoGeneratedVAPs"] = generated_vaps
        if kyverno_denial is not None and result["allowed"]:
            _deny_by_webhook(result, normalized, kyverno_denial, now, full)
        result["summary"] = _summary(result["policies"])
        result["typeChecking"] = self.type_checks() if full and type_checks else None
        return result


def _deny_by_webhook(result: dict[str, Any], request: Mapping[str, Any], status: dict[str, Any],
                     now: dt.datetime | None, full: bool) -> None:
    """A validating webhook (Kyverno) denied a request that every admission policy let through."""
    result["allowed"] = False
    result["status"] = status
    result["statusObject"] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", **status}
    result["ferricel"] = {"accepted": False, "message": status["message"], "code": status["code"]}
    annotations = result["auditAnnotations"]
    if full:
        result["auditEvent"] = audit_event(request, status, annotations, now)
        result["response"] = admission_review(request, False, status, result["warnings"], annotations)
        result["kubectl"] = {"text": kubectl_text(request, status, result["warnings"]),
                             "create": kubectl_create_text(request, status)}


def _bad_request(request: Mapping[str, Any], errors: list[dict]) -> dict[str, Any]:
    details = "; ".join(e.get("message", "") for e in errors if e.get("severity") == "error" and e.get("source") == "request")
    status = {"code": 400, "reason": "BadRequest", "message": f"invalid admission request: {details}"}
    return {
        "allowed": False, "status": status, "warnings": [], "auditAnnotations": {}, "auditEvent": None,
        "response": {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                     "response": {"uid": "", "allowed": False, "status": status}},
        "ferricel": {"accepted": False, "message": status["message"], "code": 400},
        "policies": [], "errors": errors, "request": request or None, "exempt": None, "kubectl": None,
        "summary": _summary([]), "mutation": None, "patchedObject": None, "kyverno": [], "kyvernoGeneratedVAPs": [],
        "typeChecking": None,
    }


def _summary(policies: list[dict]) -> dict[str, int]:
    counts = {"admitted": 0, "denied": 0, "warned": 0, "audited": 0, "skipped": 0, "error": 0}
    for record in policies:
        counts[record["outcome"]] = counts.get(record["outcome"], 0) + 1
    return counts


def _result(request: Mapping[str, Any], outcome: DispatchResult, errors: list[dict], exempt: str | None,
            now: dt.datetime | None, full: bool = True) -> dict[str, Any]:
    allowed = not outcome.denials
    status = status_object = None
    first = None
    if outcome.denials:
        first = outcome.denials[0]
        status_object = status_for(request, first.policy, first.binding, first.message, first.reason)
        status = {"code": status_object["code"], "reason": status_object["reason"], "message": status_object["message"]}
    annotations = dict(outcome.audit_annotations)
    warnings = client_warnings(outcome.warnings)
    return {
        "allowed": allowed,
        "status": status,
        "statusObject": status_object,
        "warnings": warnings,
        "auditAnnotations": annotations,
        "auditEvent": audit_event(request, status, annotations, now) if full else None,
        "response": admission_review(request, allowed, status, warnings, annotations) if full else None,
        "ferricel": ferricel(allowed, (first.message, first.reason) if first else None),
        "denials": [{"policy": d.policy, "binding": d.binding, "message": denial_message(d.policy, d.binding, d.message),
                     "reason": d.reason or "Invalid"} for d in outcome.denials],
        "kubectl": {"text": kubectl_text(request, status, warnings),
                    "create": kubectl_create_text(request, status)} if full else None,
        "policies": outcome.policies,
        "summary": _summary(outcome.policies),
        "errors": errors,
        "request": dict(request) if full else None,
        "exempt": exempt,
    }


def _crash(exc: BaseException) -> dict[str, Any]:
    error = {"severity": "error", "message": f"internal error: {type(exc).__name__}: {exc}",
             "traceback": traceback.format_exc(limit=8)}
    result = _bad_request({}, [error])
    result["status"] = {"code": 500, "reason": "InternalError", "message": error["message"]}
    result["ferricel"] = {"accepted": False, "message": error["message"], "code": 500}
    return result


def simulate(documents: Any, request: Any, *, resource_registry: list[Mapping] | None = None,
             api_validation: str = "enforce", now: dt.datetime | None = None,
             defaulter: Any = None) -> dict[str, Any]:
    """Admit or deny `request` against `documents`; never raises (see SCHEMA.md for the result).

    `api_validation="enforce"` drops documents the API server would refuse (as `kubectl apply` would);
    `"report"` lists the same errors as warnings but lets the documents take part, as objects built
    in-process (the API server's own unit tests) do. `resource_registry` replaces the built-in REST
    mapping by `[{kind, resource, subresource}]` rows."""
    try:
        return Simulation(documents, resource_registry=resource_registry, api_validation=api_validation,
                          defaulter=defaulter).run(request, now=now)
    except Exception as exc:  # the contract: errors are data
        return _crash(exc)


def simulate_many(documents: Any, requests: Iterable[Any], *, resource_registry: list[Mapping] | None = None,
                  api_validation: str = "enforce", now: dt.datetime | None = None) -> list[dict[str, Any]]:
    """`simulate` for many requests against one document set, compiling each policy once."""
    requests = list(requests)
    try:
        simulation = Simulation(documents, resource_registry=resource_registry, api_validation=api_validation)
    except Exception as exc:
        return [_crash(exc) for _ in requests]
    results = []
    for request in requests:
        try:
            results.append(simulation.run(request, now=now))
        except Exception as exc:
            results.append(_crash(exc))
    return results
