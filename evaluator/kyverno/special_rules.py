"""validate.podSecurity and validate.cel rules (delegating to their own modules when available)."""

from __future__ import annotations

from .rule_validator import ERROR, RuleResponse


def validate_pod_security(rule: dict, resource: dict, operation: str, old: dict | None = None,
                          enforce: bool = False, exception_excludes: list | None = None) -> RuleResponse | None:
    from .pss import evaluate_rule

    return evaluate_rule(rule, resource, operation, old, enforce, exception_excludes)


def validate_cel(rule: dict, request: dict, resource: dict, m, offline) -> RuleResponse:
    try:
        from .cel_rules import evaluate_rule
    except ImportError:
        return RuleResponse(rule.get("name", ""), ERROR, "validate.cel not implemented yet")
    return evaluate_rule(rule, request, resource, m, offline)
