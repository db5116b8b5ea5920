"""CustomResourceDefinition validation as a policy kind of the admission core (the SCHEMA stage).

A thin adapter over `evaluator.crd`: CRDs whose rules the API server refuses on create are refused here
too (their custom resources then do not exist); a request for a custom resource of an accepted CRD is
validated against its version's schema and rules between mutating and validating admission.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evaluator.admission.policy_kind import (
    SCHEMA,
    Denial,
    KindOutcome,
    RequestContext,
    Setup,
    register,
)
from evaluator.crd.cost_report import cost_report
from evaluator.crd.definition import check_crd
from evaluator.crd.fielderrors import FieldError
from evaluator.crd.stage import CRDStage, is_crd
from evaluator.crd.suggest import suggest_max_items

_VERSION_ROOT = re.compile(r"^(spec\.versions\[(\d+)\]\.schema\.openAPIV3Schema|spec\.validation\.openAPIV3Schema)\.")


def _max_items_hint(crd: Mapping[str, Any], error: FieldError) -> str | None:
    """For a rule refused for its estimated cost: which maxItems would let the API server accept it."""
    if (
        error.type != "FieldValueForbidden"
        or not error.field.endswith(".rule")
        or not error.detail.startswith("estimated rule cost exceeds budget")
    ):
        return None
    match = _VERSION_ROOT.match(error.field)
    if match is None:
        return None
    spec = crd.get("spec") if isinstance(crd.get("spec"), Mapping) else {}
    if match.group(2) is not None:
        versions = spec.get("versions") or []
        version = versions[int(match.group(2))] if int(match.group(2)) < len(versions) else {}
        schema = ((version.get("schema") or {}) if isinstance(version, Mapping) else {}).get("openAPIV3Schema")
    else:
        schema = (spec.get("validation") or {}).get("openAPIV3Schema")
    if not isinstance(schema, Mapping):
        return None
    try:
        n = suggest_max_items(schema, error.field, match.group(1))
    except RecursionError:
        return None
    if n is None:
        return "no maxItems is enough: bound the strings the rule reads with maxLength, or simplify the rule"
    return f"maxItems/maxProperties of {n} or less on every list and map without one brings this rule within budget"


@register
class CustomResourceValidation:
    name = "CustomResourceDefinition"
    stage = SCHEMA
    order = 100
    result_keys: Mapping[str, Any] = {"crdValidation": None}

    def __init__(self) -> None:
        self.runner: CRDStage | None = None
        self._locate: Any = lambda document, **fields: dict(fields)
        self.active = False
        self.idle = False
        self.refused: dict[tuple[str, str], str] = {}  # (group, kind) -> name of a CRD the API server refused
        self._refused_documents: list[Mapping[str, Any]] = []  # their costs are shown all the same

    def refuse(self, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        if not is_crd(document):
            return []
        try:
            errors = check_crd(document)
        except RecursionError:
            errors = None
        if errors is None or errors:
            self._refused_documents.append(document)
            spec = document.get("spec") if isinstance(document.get("spec"), Mapping) else {}
            names = spec.get("names") if isinstance(spec.get("names"), Mapping) else {}
            meta = document.get("metadata") if isinstance(document.get("metadata"), Mapping) else {}
            self.refused[(str(spec.get("group") or ""), str(names.get("kind") or ""))] = str(meta.get("name") or "")
        if errors is None:
            return [{"message": "schema nested too deeply", "path": "spec"}]
        out = []
        for e in errors:
            entry = {
                "path": e.field,
                "type": e.text[len(e.field) + 2 :].split(":", 1)[0] if e.field else e.type,
                "reason": e.type,
                "message": e.detail,
                "text": e.text,
                "field": e.field,
            }
            hint = _max_items_hint(document, e)
            if hint:
                entry["hint"] = hint
            out.append(entry)
        return out

    def load(self, setup: Setup) -> list[dict[str, Any]]:
        self.runner = CRDStage(list(setup.documents))
        self._locate = setup.locate
        self.idle = not self.refused and not self.runner.crds  # nothing to validate nor to refuse
        # Object validation reads no namespace, so this kind never asks for the "Namespace ... is not among
        # the documents" warning (the only use of `active` in the chain).
        self.active = False
        return []

    def evaluate(self, request: Mapping[str, Any], context: RequestContext) -> KindOutcome:
        missing = self._of_refused_crd(request)
        if missing is not None:
            return missing
        if self.runner is None or not self.runner.crds:
            return KindOutcome()
        try:
            result = self.runner.run(request)
        except Exception as exc:  # a bug here must cost this kind only
            return KindOutcome(keys={"crdValidation": {"error": f"internal error: {type(exc).__name__}: {exc}"}})
        if result is None:
            return KindOutcome()
        denial = None
        if result["status"] is not None:
            denial = Denial(
                status=result["status"],
                denials=[{"crd": result["crd"], "message": result["status"]["message"], "reason": "Invalid"}],
            )
        return KindOutcome(denial=denial, warnings=list(result["warnings"]), keys={"crdValidation": result})

    def type_checks(self) -> dict[str, dict]:
        """Each CRD's rules with their estimated cost (info diagnostics at the rules), by CRD name."""
        if self.runner is None:
            return {}
        checks: dict[str, dict] = {}
        for crd in [*self.runner.crds, *self._refused_documents]:
            meta = crd.get("metadata") if isinstance(crd.get("metadata"), Mapping) else {}
            report = cost_report(crd, lambda **fields: self._locate(crd, **fields))
            if report["diagnostics"]:
                checks[str(meta.get("name") or "(unnamed)")] = report
        return checks

    def _of_refused_crd(self, request: Mapping[str, Any]) -> KindOutcome | None:
        """A custom resource whose CRD was refused does not exist: kubectl cannot even map its kind."""
        kind = request.get("kind") if isinstance(request.get("kind"), Mapping) else {}
        crd = self.refused.get((str(kind.get("group") or ""), str(kind.get("kind") or "")))
        if crd is None:
            return None
        obj = request.get("object") if isinstance(request.get("object"), Mapping) else {}
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
        version = f"{kind.get('group')}/{kind.get('version')}" if kind.get("group") else str(kind.get("version"))
        message = (
            f'resource mapping not found for name: "{meta.get("name") or request.get("name") or ""}" namespace: '
            f'"{meta.get("namespace") or request.get("namespace") or ""}" from "STDIN": no matches for kind '
            f'"{kind.get("kind")}" in version "{version}"\nensure CRDs are installed first'
        )
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "NotFound",
            "details": {"kind": kind.get("kind"), "group": kind.get("group")},
            "code": 404,
        }
        return KindOutcome(
            denial=Denial(status=status, denials=[{"crd": crd, "message": message, "reason": "NotFound"}]),
            keys={
                "crdValidation": {
                    "crd": crd,
                    "refused": True,
                    "allowed": False,
                    "errors": [],
                    "warnings": [],
                    "rules": [],
                    "estimatedCosts": [],
                    "remainingBudget": None,
                    "status": status,
                }
            },
        )
