"""any/all condition blocks of preconditions and deny (variables.EvaluateConditions)."""

from __future__ import annotations

from . import operators
from .context import Context
from .variables import SubstitutionError, substitute_read


class ConditionError(Exception):
    pass


def _join(parts: list[str], sep: str) -> str:
    return sep.join(p for p in parts if p)


def evaluate_condition(ctx: Context, condition: dict) -> tuple[bool, str]:
    if not isinstance(condition, dict):
        raise ConditionError("invalid condition")
    try:
        key = substitute_read(ctx, condition.get("key"))
    except SubstitutionError as err:
        raise ConditionError(f"failed to substitute variables in condition key: {err}") from None
    try:
        value = substitute_read(ctx, condition.get("value"))
    except SubstitutionError as err:
        raise ConditionError(f"failed to substitute variables in condition value: {err}") from None
    try:
        result = operators.evaluate(condition.get("operator", ""), key, value)
    except KeyError:
        raise ConditionError("failed to create handler for condition operator: %!w(<nil>)") from None
    return result, condition.get("message", "") or ""


def evaluate_conditions(ctx: Context, conditions: object) -> tuple[bool, str]:
    """Returns (passed, message). Raises ConditionError."""
    if conditions is None:
        return True, ""
    true_msgs: list[str] = []
    if isinstance(conditions, list):
        for c in conditions:
            ok, msg = evaluate_condition(ctx, c)
            if not ok:
                return False, msg
            true_msgs.append(msg)
        return True, _join(true_msgs, ";")
    if not isinstance(conditions, dict):
        raise ConditionError("invalid condition")
    any_conditions = conditions.get("any")
    all_conditions = conditions.get("all") or []
    any_result, all_result = True, True
    false_msgs: list[str] = []
    if any_conditions is not None:
        any_result = False
        for c in any_conditions:
            ok, msg = evaluate_condition(ctx, c)
            if ok:
                any_result = True
                true_msgs.append(msg)
                break
            false_msgs.append(msg)
    for c in all_conditions:
        ok, msg = evaluate_condition(ctx, c)
        if not ok:
            all_result = False
            false_msgs.append(msg)
            break
        true_msgs.append(msg)
    if any_result and all_result:
        return True, _join(true_msgs, "; ")
    return False, _join(false_msgs, "; ")
