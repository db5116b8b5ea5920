"""Untraced tuples of the commonest policy shape, evaluated straight into their result record.

A policy with only validations and static messages (no matchConditions, variables, messageExpressions or
auditAnnotations) decides each validation from its expression's value alone, so everything a decision says
except that value is known once the policy and binding are: the messages, the denial and warning texts,
the audit failure entries. `LeanTuple` holds those, made once per (policy, binding), and `decide` writes the
same record, denials, warnings and audit failures as `Dispatcher._dispatch_binding` would, without the
intermediate ValidateResult/Decision objects. Anything unusual (an error, the per-call limit, the budget)
makes `decide` return False before it wrote anything: the general path then runs from the start
(evaluation has no side effects), so errors and their wording keep one implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.admission.evaluation import RUNTIME_CEL_COST_BUDGET, Inputs
from evaluator.policies.validating.compiler import CompiledPolicy
from evaluator.policies.validating.validator import ADMIT, DENY, EVAL_ADMIT, EVAL_DENY, message_for, shared_activation

__all__ = ["LeanTuple", "lean_tuple"]


def lean_tuple(
    compiled: CompiledPolicy, policy_name: str, binding_name: str, actions: list[str], policy_name_ref: str
) -> LeanTuple | None:
    """The lean form of a (policy, binding), or None when the policy has another shape."""
    if compiled.match_conditions or compiled.variables or compiled.has_messages or compiled.audit_annotations:
        return None
    if any(c.program is None for c in compiled.validation_expressions):
        return None  # a compile error: the general path words it
    return LeanTuple(compiled, policy_name, binding_name, actions, policy_name_ref)


class LeanTuple:
    """One (policy, binding) of validations with static messages, prepared for untraced evaluation."""

    __slots__ = ("compiled", "policy_name", "binding_name", "actions", "programs", "admitted", "denied")

    def __init__(
        self, compiled: CompiledPolicy, policy_name: str, binding_name: str, actions: list[str], policy_name_ref: str
    ):
        self.compiled = compiled
        self.policy_name, self.binding_name, self.actions = policy_name, binding_name, actions
        self.programs = tuple(c.program.evaluate_plain for c in compiled.validation_expressions)
        # Per validation: its decision when the expression is true, and (decision, message, reason, warning,
        # audit failure) when it is not, as _dispatch_binding words them.
        self.admitted = tuple(
            {"index": v.index, "action": ADMIT, "evaluation": EVAL_ADMIT, "message": None, "reason": None}
            for v in compiled.validations
        )
        denied = []
        for position, v in enumerate(compiled.validations):
            message, reason = message_for(v, None)[0], v.reason or "Invalid"
            decision = {"index": v.index, "action": DENY, "evaluation": EVAL_DENY, "message": message or None}
            decision["reason"] = reason
            warning = (
                f"Validation failed for ValidatingAdmissionPolicy '{policy_name}' "
                f"with binding '{binding_name}': {message}"
            )
            failure = {
                "message": message,
                "policy": policy_name_ref,
                "binding": binding_name,
                "expressionIndex": position,
                "validationActions": list(actions),
            }
            denied.append((decision, message, reason, warning, failure))
        self.denied = tuple(denied)

    def decide(self, inputs: Inputs, record: dict[str, Any], out: Any, denial: Callable[..., Any]) -> bool:
        """Evaluate every validation, fill `record` (made by the caller with the keys of _record) and `out`;
        False, with nothing written, when the general path must do it."""
        compiled = self.compiled
        activation = shared_activation(
            compiled, inputs, compiled.uses_authorizer, inputs.request, inputs.namespace_object
        )
        budget = RUNTIME_CEL_COST_BUDGET
        failed = []
        for position, evaluate in enumerate(self.programs):
            try:
                outcome = evaluate(activation)
            except Exception:  # as ex.run_plain: the general path words it
                return False
            if outcome is None:
                return False
            budget -= outcome[1]
            if budget < 0:
                return False
            if outcome[0] is not True:
                failed.append(position)
        decisions = record["decisions"]
        if not failed:
            decisions.extend(dict(d) for d in self.admitted)
            return True
        outcomes = set()
        policy_name, binding_name = self.policy_name, self.binding_name
        for position, admitted in enumerate(self.admitted):
            if position not in failed:
                decisions.append(dict(admitted))
                continue
            decision, message, reason, warning, failure = self.denied[position]
            decisions.append(dict(decision))
            for action in self.actions:
                if action == "Deny":
                    out.denials.append(denial(policy_name, binding_name, message, reason))
                    outcomes.add("denied")
                elif action == "Audit":
                    out.validation_failures.append({**failure, "validationActions": list(self.actions)})
                    outcomes.add("audited")
                elif action == "Warn":
                    if warning not in out.warnings:
                        out.warnings.append(warning)
                    outcomes.add("warned")
        if outcomes:
            record["outcome"] = _worst(outcomes)
        return True


def _worst(outcomes: set[str]) -> str:
    """dispatcher._outcome for a tuple without errors."""
    for name in ("denied", "warned", "audited"):
        if name in outcomes:
            return name
    return "admitted"
