"""Compile and type-check the CEL of Kyverno rules (`validate.cel`, `celPreconditions`) as a
ValidatingAdmissionPolicy's, so an author gets the same located errors and type warnings as for a VAP.

Kyverno runs a `validate.cel` rule through the VAP validator (cel_rules.py): its expressions, variables,
auditAnnotations and celPreconditions are a VAP's validations, variables, auditAnnotations and
matchConditions. We compile that VAP, type-check it against the kinds the rule matches, and report each
finding at the rule's own field path (`spec.rules[0].validate.cel.expressions[1].expression`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_FIELDS = (
    ("spec.validations", "validate.cel.expressions"),
    ("spec.variables", "validate.cel.variables"),
    ("spec.auditAnnotations", "validate.cel.auditAnnotations"),
    ("spec.matchConditions", "celPreconditions"),
)


def rule_path(rule_index: int, vap_path: str) -> str:
    """A path in the VAP built from rule `rule_index` → the same field in the Kyverno policy."""
    for vap_prefix, rule_prefix in _FIELDS:
        if vap_path.startswith(vap_prefix + "["):
            return f"spec.rules[{rule_index}].{rule_prefix}{vap_path[len(vap_prefix) :]}"
    return f"spec.rules[{rule_index}]"


def _cel_rules(policy: Mapping[str, Any]) -> list[tuple[int, dict]]:
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    rules = spec.get("rules") if isinstance(spec.get("rules"), list) else []
    return [
        (i, r)
        for i, r in enumerate(rules)
        if isinstance(r, dict)
        and (isinstance((r.get("validate") or {}).get("cel"), Mapping) or r.get("celPreconditions"))
    ]


def has_cel(policy: Mapping[str, Any]) -> bool:
    return bool(_cel_rules(policy))


def _rule_vap(rule: dict) -> dict:
    from evaluator.policies.kyverno.cel_rules import _vap_spec

    return _vap_spec(rule)


def compile_errors(policy: Mapping[str, Any]) -> list[dict]:
    """`[{path, expression, message}]` for every CEL expression of the policy's rules that does not compile."""
    from evaluator.policies.validating.compiler import compile_policy

    out = []
    for index, rule in _cel_rules(policy):
        try:
            compiled = compile_policy(_rule_vap(rule))
        except Exception:  # a malformed rule is Kyverno's validation's business, not ours to crash on
            continue
        for error in compiled.compile_errors:
            out.append({**error, "path": rule_path(index, error["path"])})
    return out


def _match_constraints(rule: dict) -> dict:
    """The VAP matchConstraints Kyverno would generate from the rule's match block (vap_generation.py)."""
    from evaluator.k8s.restmapping import builtin_mapper
    from evaluator.policies.kyverno.vap_generation import _filters, _rules_for

    rules: list[dict] = []
    top, any_f, all_f = _filters(rule.get("match"))
    for res in ([top.get("resources")] if top.get("resources") else []) + [
        f.get("resources") or {} for f in any_f + all_f
    ]:
        try:
            _rules_for(builtin_mapper(), res, rules, True)
        except (ValueError, AttributeError, TypeError):
            continue
    return {"resourceRules": rules}


def typecheck(policy: Mapping[str, Any], documents: Sequence[Any] = ()) -> dict:
    """The type checker's report over every CEL rule of the policy, fieldRefs in the policy's own terms."""
    from evaluator.typechecking import typecheck as typecheck_vap

    diagnostics: list[dict] = []
    checked: list[dict] = []
    for index, rule in _cel_rules(policy):
        vap = _rule_vap(rule)
        vap = {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": vap["metadata"],
            "spec": {**vap["spec"], "matchConstraints": _match_constraints(rule)},
        }
        report = typecheck_vap(vap, documents)
        checked += [k for k in report.get("typesChecked", []) if k not in checked]
        for diagnostic in report.get("diagnostics", []):
            if diagnostic.get("fieldRef"):
                diagnostic = {**diagnostic, "fieldRef": rule_path(index, diagnostic["fieldRef"])}
            diagnostics.append(diagnostic)
    return {"typesChecked": checked, "diagnostics": diagnostics}


def located_errors(policies: Sequence[Mapping[str, Any]], locate: Any) -> list[dict]:
    """Every CEL compile error and `{{ }}` JMESPath syntax error of the policies, located through
    ``locate(policy, **fields)`` (the admission core's Setup.locate)."""
    from evaluator.admission.error_location import point_of, value_at
    from evaluator.policies.kyverno.jmes_diagnostics import syntax_errors

    out = []
    for policy in policies:
        for error in compile_errors(policy):
            out.append(locate(policy, severity="error", path=error["path"], message=error["message"]))
        for error in syntax_errors(policy):
            point = point_of(value_at(policy, error["path"]), error["offset"])
            out.append(locate(policy, severity="error", path=error["path"], message=error["message"], point=point))
    return out


def type_checks(policies: Sequence[Mapping[str, Any]], documents: Sequence[Any], locate: Any) -> dict[str, dict]:
    """`typecheck` of each policy with CEL rules, by `Kind/name`; an expression that does not compile is
    left to its compile error (not repeated as a type warning); diagnostics located in the text."""
    from evaluator.admission.error_location import locate_diagnostics

    checks: dict[str, dict] = {}
    for policy in policies:
        if not has_cel(policy):
            continue
        key = f"{policy.get('kind')}/{(policy.get('metadata') or {}).get('name') or '(unnamed)'}"
        try:
            report = typecheck(policy, documents)
        except Exception as exc:  # a checker bug must not hide the decision
            checks[key] = {"error": f"type checking failed: {type(exc).__name__}: {exc}"}
            continue
        broken = {e["path"] for e in compile_errors(policy)}
        report["diagnostics"] = [d for d in report["diagnostics"] if d.get("fieldRef") not in broken]
        locate_diagnostics(report, lambda policy=policy, **fields: locate(policy, **fields))
        checks[key] = report
    return checks
