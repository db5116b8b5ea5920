"""CustomResourceDefinition validation as kube-apiserver does it: schema rules (`x-kubernetes-validations`).

`validate(schema, obj, old_obj)` runs every rule of an OpenAPI v3 schema over a custom resource (the Go
`Validator.Validate`); `compile_rules(schema)` compiles the rules at the schema's root (the Go `Compile`)
with each rule's estimated cost. See evaluator/crd/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.crd.fieldpath import valid_field_path
from evaluator.crd.validator import Outcome, root_validator

__all__ = ["compile_rules", "validate", "validate_field_path"]

RUNTIME_COST_BUDGET = 10_000_000
PER_CALL_LIMIT = 1_000_000


def validate(
    schema: Mapping[str, Any],
    obj: Any,
    old_obj: Any = None,
    *,
    is_resource_root: bool = False,
    cost_budget: int = RUNTIME_COST_BUDGET,
    per_call_limit: int = PER_CALL_LIMIT,
    ratcheting: bool = False,
    root_path: str | None = "root",
    trace: bool = False,
    _decl_type_is_resource_root: bool | None = None,
) -> dict:
    """Errors (field.Error form, API server order), ratcheting warnings and the budget left (-1: ran out)."""
    from evaluator.crd.correlation import Correlation, Ratchet

    out = Outcome(trace)
    remaining = cost_budget
    schema = schema if isinstance(schema, Mapping) else {}
    try:
        validator = root_validator(schema, is_resource_root, per_call_limit, decl_root=_decl_type_is_resource_root)
        if validator is not None and obj is not None:
            ratchet = Ratchet(Correlation(obj, old_obj, schema)) if ratcheting else Ratchet()
            remaining = validator.validate(root_path or "", obj, old_obj, ratchet, cost_budget, out)
    except RecursionError:  # a schema or object nested beyond what we walk: an error, never a crash
        from evaluator.crd.fielderrors import FieldError

        out.errors.append(FieldError("InternalError", root_path or "", "schema or object nested too deeply"))
    result = {"errors": [e.to_dict() for e in out.errors], "warnings": out.warnings, "remainingBudget": remaining}
    if trace:
        result["rules"] = out.trace
    return result


def compile_rules(
    schema: Mapping[str, Any], *, is_resource_root: bool = False, per_call_limit: int = PER_CALL_LIMIT
) -> list[dict]:
    """One `{rule, error, maxCost, usesOldSelf}` per rule at the schema's root, in order."""
    try:
        return _compile_rules(schema, is_resource_root, per_call_limit)
    except RecursionError:  # a schema nested beyond what we walk: every rule gets the error
        from evaluator.crd import structural as st

        rules = st.rules(schema) if isinstance(schema, Mapping) else []
        return [
            {"rule": r.get("rule"), "error": "schema nested too deeply", "maxCost": 0, "usesOldSelf": False}
            for r in rules
        ]


def _compile_rules(schema: Mapping[str, Any], is_resource_root: bool, per_call_limit: int) -> list[dict]:
    from evaluator.crd import structural as st
    from evaluator.crd.compilation import compile_rule, type_name_for
    from evaluator.crd.estimation import estimate_for_schema
    from evaluator.crd.validator import decl_type

    schema = schema if isinstance(schema, Mapping) else {}
    rules = st.rules(schema)
    if not rules:
        return []
    self_type = decl_type(schema, is_resource_root, type_name_for(schema))
    estimator = estimate_for_schema(schema, is_resource_root)
    out = []
    for rule in rules:
        if self_type is None:
            out.append(
                {
                    "rule": rule.get("rule"),
                    "error": "failed to convert to declType for CEL validation rules",
                    "maxCost": 0,
                    "usesOldSelf": False,
                }
            )
            continue
        compiled = compile_rule(rule, schema, self_type, per_call_limit, estimator)
        error = compiled.error or compiled.message_error
        out.append(
            {
                "rule": rule.get("rule"),
                "error": error,
                "maxCost": compiled.max_cost,
                "usesOldSelf": compiled.uses_old_self,
                "messageExpressionError": compiled.message_error,
                "program": compiled.program is not None,
            }
        )
    return out


def validate_field_path(schema: Mapping[str, Any], path: str) -> dict:
    """Whether a rule's fieldPath names a field of the schema, and its normalized form."""
    result = valid_field_path(path, schema if isinstance(schema, Mapping) else {})
    return {"valid": result.error is None, "path": result.path if result.error is None else None, "error": result.error}
