"""One evaluation of a policy for one (binding, param): the API server's validator.Validate.

Order and budgets follow the server: matchConditions (budget 2.5e6, no namespaceObject, the request's
own resource), then validations (budget 1e7), then messageExpressions on what the validations left,
then auditAnnotations on a fresh 1e7 budget. Each list is its own composition context, so variables
are evaluated again (lazily) in each. Every step is traced.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.validating import expressions as ex
from evaluator.validating.compiler import CompiledPolicy
from evaluator.validating.conditions import OUT_OF_BUDGET, CompositionContext, ExpressionResult, for_input

RUNTIME_CEL_COST_BUDGET = 10_000_000
RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000
MAX_MESSAGE_BYTES = 5 * 1024

ADMIT, DENY = "admit", "deny"
EVAL_ADMIT, EVAL_DENY, EVAL_ERROR = "admit", "deny", "error"
PUBLISH, EXCLUDE, ERROR = "publish", "exclude", "error"


@dataclass
class Inputs:
    """The variables one evaluation binds (already in CEL-ready plain data)."""

    object: Any
    old_object: Any
    request: Mapping[str, Any]            # request.kind/resource = the matched (equivalent) ones
    match_request: Any                    # matchConditions see the request's own resource (value or thunk)
    params: Any
    namespace_object: Any                 # CreateNamespaceObject(namespace): a metadata subset
    namespace_raw: Any                    # the stored Namespace, as auditAnnotations receive it
    authorizer: Any = None                # the CEL `authorizer` value (None: undeclared at runtime)
    request_resource_authorizer: Any = None
    trace: bool = True                    # False: skip the per-expression trace (batch runs)


@dataclass
class Decision:
    index: int
    action: str
    evaluation: str
    message: str = ""
    reason: str = ""


@dataclass
class AuditAnnotationResult:
    key: str
    action: str
    value: str = ""
    error: str = ""


@dataclass
class ValidateResult:
    decisions: list[Decision] = field(default_factory=list)
    audit_annotations: list[AuditAnnotationResult] = field(default_factory=list)
    skipped: bool = False
    skip_reason: str = ""
    trace: dict[str, Any] = field(default_factory=dict)


def _action_for_error(failure_policy: str) -> str:
    return ADMIT if failure_policy == "Ignore" else DENY


def _bindings(inputs: Inputs, *, with_authorizer: bool, has_params: bool, request: Mapping, namespace: Any) -> dict:
    bound = {
        "object": inputs.object,
        "oldObject": inputs.old_object,
        "request": request,
        "namespaceObject": namespace,
    }
    if has_params:
        bound["params"] = inputs.params
    if with_authorizer and inputs.authorizer is not None:
        bound["authorizer"] = inputs.authorizer
        if inputs.request_resource_authorizer is not None:
            bound["authorizer.requestResource"] = inputs.request_resource_authorizer
    return bound


def _no_entry(compiled: ex.CompiledExpression, result: ExpressionResult | None, **extra: Any) -> None:
    return None


def _entry(compiled: ex.CompiledExpression, result: ExpressionResult | None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"expression": compiled.expression, **extra}
    if result is None:
        entry.update(evaluated=False, value=None, type=None, cost=0, error=None)
        return entry
    entry.update(
        evaluated=result.evaluated or result.error is not None,
        value=ex.to_json(result.value) if result.error is None else None,
        type=ex.type_name(result.value) if result.error is None else None,
        cost=result.cost,
        error=result.error,
    )
    return entry


def _variables_trace(phase: str, context: CompositionContext) -> list[dict[str, Any]]:
    if not context.trace:
        return []
    return [{"phase": phase, "name": v.name, "expression": v.expression, "value": v.value, "type": v.type,
             "cost": v.cost, "error": v.error} for v in (context.trace or [])]


def _aggregate(errors: list[str]) -> str:
    distinct: list[str] = []
    for error in errors:
        if error not in distinct:
            distinct.append(error)
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


def _match(policy: CompiledPolicy, inputs: Inputs, trace: dict) -> tuple[bool, str | None, str]:
    """(matches, error, failed condition name) as matchconditions.Matcher.Match."""
    compiled = [c for _, c in policy.match_conditions]
    match_request = inputs.match_request() if callable(inputs.match_request) else inputs.match_request
    bound = _bindings(inputs, with_authorizer=True, has_params=policy.has_params,
                      request=match_request, namespace=None)
    outcome, context = for_input(compiled, bound, policy.variables, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
                                 trace=inputs.trace)
    entry = _entry if inputs.trace else _no_entry
    trace["matchConditions"] = [
        entry(c, outcome.results[i] if i < len(outcome.results) else None, name=name)
        for i, (name, c) in enumerate(policy.match_conditions)]
    trace["variables"].extend(_variables_trace("matchConditions", context))
    if outcome.error is not None:
        if policy.failure_policy == "Ignore":
            return False, None, ""
        return False, outcome.error, ""
    errors: list[str] = []
    for (name, _), result in zip(policy.match_conditions, outcome.results):
        if result is None:
            continue
        if result.error is not None:
            errors.append(result.error)
        if result.error is None and result.value is False:
            return False, None, name
    if errors:
        if policy.failure_policy == "Ignore":
            return False, None, ""
        return False, _aggregate(errors), ""
    return True, None, ""


def _message_for(validation, message_result: ExpressionResult | None) -> tuple[str, str]:
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


def _evaluate_section(policy: CompiledPolicy, inputs: Inputs, trace: dict, section: str, expressions, budget: int,
                      *, with_authorizer: bool, namespace):
    """One `for_input` pass over a section's expressions; the variables it evaluated are traced under `section`."""
    bound = _bindings(inputs, with_authorizer=with_authorizer, has_params=policy.has_params,
                      request=inputs.request, namespace=namespace)
    outcome, context = for_input(expressions, bound, policy.variables, budget, trace=inputs.trace)
    trace["variables"].extend(_variables_trace(section, context))
    return outcome


def _nth(results: list, i: int):
    """The i-th result, or None where evaluation stopped before it (budget exhausted)."""
    return results[i] if i < len(results) else None


def validate(policy: CompiledPolicy, inputs: Inputs) -> ValidateResult:
    fp = policy.failure_policy
    entry = _entry if inputs.trace else _no_entry
    result = ValidateResult(trace={"matchConditions": [], "variables": [], "validations": [],
                                   "messageExpressions": [], "auditAnnotations": [], "budget": {}})
    trace = result.trace
    if policy.match_conditions:
        matches, error, failed = _match(policy, inputs, trace)
        if error is not None:
            result.decisions = [Decision(-1, _action_for_error(fp), EVAL_ERROR, error)]
            return result
        if not matches:
            result.skipped = True
            result.skip_reason = (f"matchCondition '{failed}' evaluated to false" if failed
                                  else "matchConditions errored and failurePolicy is Ignore")
            return result

    outcome = _evaluate_section(policy, inputs, trace, "validations", policy.validation_expressions,
                                RUNTIME_CEL_COST_BUDGET, with_authorizer=True, namespace=inputs.namespace_object)
    trace["budget"]["validations"] = {"limit": RUNTIME_CEL_COST_BUDGET,
                                      "remaining": outcome.remaining if outcome.error is None else 0}
    if outcome.error is not None:
        trace["validations"] = [entry(v.expression, _nth(outcome.results, i), index=v.index)
                                for i, v in enumerate(policy.validations)]
        result.decisions = [Decision(-1, _action_for_error(fp), EVAL_ERROR, outcome.error)]
        return result

    message_results: list = []
    message_budget_error = None
    if policy.has_messages:
        message_outcome = _evaluate_section(policy, inputs, trace, "messageExpressions", policy.message_expressions,
                                            outcome.remaining, with_authorizer=False, namespace=inputs.namespace_object)
        message_budget_error = message_outcome.error
        message_results = message_outcome.results
        for i, v in enumerate(policy.validations):
            if v.message_expression is not None:
                trace["messageExpressions"].append(entry(v.message_expression, _nth(message_results, i),
                                                         index=v.index))

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
            decision.message, source = _message_for(validation, message_result)
        result.decisions.append(decision)
        trace["validations"].append(entry(validation.expression, evaluation, index=validation.index,
                                           action=decision.action, evaluation_result=decision.evaluation,
                                           message=decision.message or None, messageSource=source,
                                           reason=decision.reason or None))

    if not policy.audit_annotations:
        if not inputs.trace:
            result.trace = {}
        return result
    audit_outcome = _evaluate_section(policy, inputs, trace, "auditAnnotations", policy.audit_expressions,
                                      RUNTIME_CEL_COST_BUDGET, with_authorizer=False, namespace=inputs.namespace_raw)
    if audit_outcome.error is not None:
        result.decisions = [Decision(-1, _action_for_error(fp), EVAL_ERROR, audit_outcome.error)]
        result.audit_annotations = []
        trace["auditAnnotations"] = [entry(a.value_expression, _nth(audit_outcome.results, i), key=a.key)
                                     for i, a in enumerate(policy.audit_annotations)]
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
            item.error = (f"valueExpression '{annotation.value_expression.expression}' resulted in unsupported return "
                          f"type: {ex.type_name(evaluation.value)}. Return type must be either string or null.")
        result.audit_annotations.append(item)
        trace["auditAnnotations"].append(entry(annotation.value_expression, evaluation, key=annotation.key,
                                                action=item.action))
    if not inputs.trace:
        result.trace = {}
    return result


__all__ = ["Inputs", "Decision", "AuditAnnotationResult", "ValidateResult", "validate", "OUT_OF_BUDGET",
           "RUNTIME_CEL_COST_BUDGET", "RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS"]
