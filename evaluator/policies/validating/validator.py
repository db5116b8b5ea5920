"""One evaluation of a policy for one (binding, param): the API server's validator.Validate.

Order and budgets follow the server: matchConditions (budget 2.5e6, no namespaceObject, the request's
own resource), then validations (budget 1e7), then messageExpressions on what the validations left,
then auditAnnotations on a fresh 1e7 budget. Each list is its own composition context, so variables
are evaluated again (lazily) in each. Every step is traced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import expressions as ex
from evaluator.admission.conditions import (
    NO_VARIABLES,
    ExpressionResult,
    for_input,
)
from evaluator.admission.evaluation import (
    RUNTIME_CEL_COST_BUDGET,
    Inputs,
    bindings,
    match_conditions,
    no_trace_entry,
    trace_entry,
    variables_trace,
)
from evaluator.policies.validating.compiler import CompiledPolicy

MAX_MESSAGE_BYTES = 5 * 1024

ADMIT, DENY = "admit", "deny"
EVAL_ADMIT, EVAL_DENY, EVAL_ERROR = "admit", "deny", "error"
PUBLISH, EXCLUDE, ERROR = "publish", "exclude", "error"


@dataclass(slots=True)
class Decision:
    index: int
    action: str
    evaluation: str
    message: str = ""
    reason: str = ""


@dataclass(slots=True)
class AuditAnnotationResult:
    key: str
    action: str
    value: str = ""
    error: str = ""


@dataclass(slots=True)
class ValidateResult:
    decisions: list[Decision] = field(default_factory=list)
    audit_annotations: list[AuditAnnotationResult] = field(default_factory=list)
    skipped: bool = False
    skip_reason: str = ""
    trace: dict[str, Any] = field(default_factory=dict)


def _action_for_error(failure_policy: str) -> str:
    return ADMIT if failure_policy == "Ignore" else DENY


def message_for(validation, message_result: ExpressionResult | None) -> tuple[str, str]:
    """The denial text and where it came from, with the server's fallbacks."""
    message = ""
    source = "messageExpression"
    if message_result is not None and message_result.error is None and isinstance(message_result.value, str):
        message = message_result.value.strip()
        if len(message.encode()) > MAX_MESSAGE_BYTES or "\n" in message:
            message = ""
    if message == "" and validation.message:
        message, source = validation.message.strip(), "message"
    if message == "":
        message, source = f"failed expression: {validation.expression.expression.strip()}", "expression"
    return message, source


def _evaluate_section(
    policy: CompiledPolicy,
    inputs: Inputs,
    trace: dict,
    section: str,
    expressions,
    budget: int,
    *,
    with_authorizer: bool,
    namespace,
):
    """One `for_input` pass over a section's expressions; the variables it evaluated are traced under `section`."""
    bound = bindings(
        inputs,
        with_authorizer=with_authorizer,
        has_params=policy.has_params,
        request=inputs.request,
        namespace=namespace,
    )
    outcome, context = for_input(expressions, bound, policy.variables, budget, trace=inputs.trace)
    trace["variables"].extend(variables_trace(section, context))
    return outcome


def _nth(results: list, i: int):
    """The i-th result, or None where evaluation stopped before it (budget exhausted)."""
    return results[i] if i < len(results) else None


def _new_trace() -> dict[str, Any]:
    return {
        "matchConditions": [],
        "variables": [],
        "validations": [],
        "messageExpressions": [],
        "auditAnnotations": [],
        "budget": {},
    }


class _Discard(dict):
    """The trace of an untraced evaluation: every section reads as a list that forgets what is added, so
    the evaluation code stays one path and an untraced run builds nothing."""

    def __missing__(self, key: str) -> Any:
        return _FORGET

    def __setitem__(self, key: str, value: Any) -> None:
        pass


class _Forget(list):
    def append(self, item: Any) -> None:
        pass

    def extend(self, items: Any) -> None:
        pass


_FORGET = _Forget()
_DISCARD = _Discard()


def shared_activation(policy: CompiledPolicy, inputs: Inputs, with_authorizer: bool, request, namespace) -> dict:
    """The activation of a section without variables, shared by every policy of the request that binds the same
    values (CEL only reads it). Kept on `inputs` (one request) with the values it was built from, which it
    holds, so that an identity match is a true match."""
    params = inputs.params if policy.has_params else None
    key = (with_authorizer, policy.has_params, id(request), id(namespace), id(params))
    cache = inputs.activations
    hit = cache.get(key)
    if hit is not None and hit[0] is request and hit[1] is namespace and hit[2] is params:
        return hit[3]
    activation = bindings(
        inputs, with_authorizer=with_authorizer, has_params=policy.has_params, request=request, namespace=namespace
    )
    activation["variables"] = NO_VARIABLES
    cache[key] = (request, namespace, params, activation)
    return activation


def validate(policy: CompiledPolicy, inputs: Inputs) -> ValidateResult:
    """The general path, for every shape, error and budget (LeanTuple takes the common cases first)."""
    fp = policy.failure_policy
    tracing = inputs.trace
    entry = trace_entry if tracing else no_trace_entry
    result = ValidateResult(trace=_new_trace() if tracing else {})
    trace = result.trace if tracing else _DISCARD
    if policy.match_conditions:
        matches, error, failed = match_conditions(policy, inputs, trace)
        if error is not None:
            result.decisions = [Decision(-1, _action_for_error(fp), EVAL_ERROR, error)]
            return result
        if not matches:
            result.skipped = True
            result.skip_reason = (
                f"matchCondition '{failed}' evaluated to false"
                if failed
                else "matchConditions errored and failurePolicy is Ignore"
            )
            return result

    outcome = _evaluate_section(
        policy,
        inputs,
        trace,
        "validations",
        policy.validation_expressions,
        RUNTIME_CEL_COST_BUDGET,
        with_authorizer=policy.uses_authorizer,
        namespace=inputs.namespace_object,
    )
    if tracing:
        trace["budget"]["validations"] = {
            "limit": RUNTIME_CEL_COST_BUDGET,
            "remaining": outcome.remaining if outcome.error is None else 0,
        }
    if outcome.error is not None:
        trace["validations"] = [
            entry(v.expression, _nth(outcome.results, i), index=v.index) for i, v in enumerate(policy.validations)
        ]
        result.decisions = [Decision(-1, _action_for_error(fp), EVAL_ERROR, outcome.error)]
        return result

    message_results: list = []
    message_budget_error = None
    if policy.has_messages:
        message_outcome = _evaluate_section(
            policy,
            inputs,
            trace,
            "messageExpressions",
            policy.message_expressions,
            outcome.remaining,
            with_authorizer=False,
            namespace=inputs.namespace_object,
        )
        message_budget_error = message_outcome.error
        message_results = message_outcome.results
        for i, v in enumerate(policy.validations):
            if v.message_expression is not None:
                trace["messageExpressions"].append(entry(v.message_expression, _nth(message_results, i), index=v.index))

    for i, validation in enumerate(policy.validations):
        evaluation = outcome.results[i]
        message_result = _nth(message_results, i)
        decision = Decision(validation.index, ADMIT, EVAL_ADMIT)
        source = None
        if evaluation.error is not None:
            decision.action, decision.evaluation, decision.message = _action_for_error(fp), EVAL_ERROR, evaluation.error
        elif message_budget_error is not None:
            decision.action, decision.evaluation = _action_for_error(fp), EVAL_ERROR
            decision.message = f"failed messageExpression: {message_budget_error}"
        elif evaluation.value is not True:
            decision.action, decision.evaluation = DENY, EVAL_DENY
            decision.reason = validation.reason or "Invalid"
            decision.message, source = message_for(validation, message_result)
        result.decisions.append(decision)
        if tracing:
            trace["validations"].append(
                entry(
                    validation.expression,
                    evaluation,
                    index=validation.index,
                    action=decision.action,
                    evaluation_result=decision.evaluation,
                    message=decision.message or None,
                    messageSource=source,
                    reason=decision.reason or None,
                )
            )

    if not policy.audit_annotations:
        if not inputs.trace:
            result.trace = {}
        return result
    audit_outcome = _evaluate_section(
        policy,
        inputs,
        trace,
        "auditAnnotations",
        policy.audit_expressions,
        RUNTIME_CEL_COST_BUDGET,
        with_authorizer=False,
        namespace=inputs.namespace_raw,
    )
    if audit_outcome.error is not None:
        result.decisions = [Decision(-1, _action_for_error(fp), EVAL_ERROR, audit_outcome.error)]
        result.audit_annotations = []
        trace["auditAnnotations"] = [
            entry(a.value_expression, _nth(audit_outcome.results, i), key=a.key)
            for i, a in enumerate(policy.audit_annotations)
        ]
        return result
    for annotation, evaluation in zip(policy.audit_annotations, audit_outcome.results):
        item = AuditAnnotationResult(annotation.key, EXCLUDE)
        if evaluation.error is not None:
            item.action = EXCLUDE if fp == "Ignore" else ERROR
            item.error = evaluation.error
        elif isinstance(evaluation.value, str):
            value = evaluation.value.strip()
            if value:
                item.action, item.value = PUBLISH, value
        elif evaluation.value is None:
            item.action = EXCLUDE
        else:
            item.action = ERROR
            item.error = (
                f"valueExpression '{annotation.value_expression.expression}' resulted in unsupported return "
                f"type: {ex.type_name(evaluation.value)}. Return type must be either string or null."
            )
        result.audit_annotations.append(item)
        trace["auditAnnotations"].append(
            entry(annotation.value_expression, evaluation, key=annotation.key, action=item.action)
        )
    if not inputs.trace:
        result.trace = {}
    return result


__all__ = ["Decision", "AuditAnnotationResult", "ValidateResult", "validate"]
