"""What one (policy, binding, param) evaluation binds, and the steps every CEL policy kind shares.

`Inputs` holds the CEL variables of one evaluation; `bindings()` turns them into an activation for one
section (the server declares `authorizer` in some sections only, and `namespaceObject` differs between
validations and auditAnnotations); `match_conditions()` is matchconditions.Matcher.Match with its own
budget, used by ValidatingAdmissionPolicy, MutatingAdmissionPolicy and any kind with `matchConditions`.
`trace_entry()` and `variables_trace()` build the per-expression trace records the result shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.admission import expressions as ex
from evaluator.admission.conditions import CompositionContext, ExpressionResult, for_input

RUNTIME_CEL_COST_BUDGET = 10_000_000
RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000


@dataclass
class Inputs:
    """The variables one evaluation binds (already in CEL-ready plain data)."""

    object: Any
    old_object: Any
    request: Mapping[str, Any]  # request.kind/resource = the matched (equivalent) ones
    match_request: Any  # matchConditions see the request's own resource (value or thunk)
    params: Any
    namespace_object: Any  # CreateNamespaceObject(namespace): a metadata subset
    namespace_raw: Any  # the stored Namespace, as auditAnnotations receive it
    authorizer: Any = None  # the CEL `authorizer` value (None: undeclared at runtime)
    request_resource_authorizer: Any = None
    # Or, built on first use: () -> (authorizer, requestResource authorizer); most policies never read them.
    authorizers: Callable[[], tuple[Any, Any]] | None = None
    trace: bool = True  # False: skip the per-expression trace (batch runs)
    activations: dict = field(default_factory=dict)  # untraced runs: activations shared within one request


class MatchConditionPolicy(Protocol):
    """What `match_conditions` reads of a compiled policy (or webhook): its conditions and variables."""

    failure_policy: str
    has_params: bool
    variables: Sequence[tuple[str, ex.CompiledExpression]]
    match_conditions: Sequence[tuple[str, ex.CompiledExpression]]


def bindings(inputs: Inputs, *, with_authorizer: bool, has_params: bool, request: Mapping, namespace: Any) -> dict:
    """The activation of one section: `params` only when declared, `authorizer` only where the server
    declares it (and only when an authorizer is available)."""
    bound = {
        "object": inputs.object,
        "oldObject": inputs.old_object,
        "request": request,
        "namespaceObject": namespace,
    }
    if has_params:
        bound["params"] = inputs.params
    if with_authorizer and inputs.authorizers is not None:
        inputs.authorizer, inputs.request_resource_authorizer = inputs.authorizers()
        inputs.authorizers = None
    if with_authorizer and inputs.authorizer is not None:
        bound["authorizer"] = inputs.authorizer
        if inputs.request_resource_authorizer is not None:
            bound["authorizer.requestResource"] = inputs.request_resource_authorizer
    return bound


def no_trace_entry(compiled: ex.CompiledExpression, result: ExpressionResult | None, **extra: Any) -> None:
    return None


def trace_entry(compiled: ex.CompiledExpression, result: ExpressionResult | None, **extra: Any) -> dict[str, Any]:
    """One expression's trace record: value, CEL type, cost and error (or not evaluated)."""
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


def variables_trace(phase: str, context: CompositionContext) -> list[dict[str, Any]]:
    """The variables a section evaluated, in order of first use, labelled with the section."""
    if not context.trace:
        return []
    return [
        {
            "phase": phase,
            "name": v.name,
            "expression": v.expression,
            "value": v.value,
            "type": v.type,
            "cost": v.cost,
            "error": v.error,
        }
        for v in (context.trace or [])
    ]


def _aggregate(errors: list[str]) -> str:
    distinct: list[str] = []
    for error in errors:
        if error not in distinct:
            distinct.append(error)
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


def match_conditions(policy: MatchConditionPolicy, inputs: Inputs, trace: dict) -> tuple[bool, str | None, str]:
    """(matches, error, failed condition name) as matchconditions.Matcher.Match; fills trace's
    "matchConditions" and extends trace's "variables"."""
    compiled = [c for _, c in policy.match_conditions]
    match_request = inputs.match_request() if callable(inputs.match_request) else inputs.match_request
    bound = bindings(
        inputs,
        with_authorizer=getattr(policy, "uses_authorizer", True),
        has_params=policy.has_params,
        request=match_request,
        namespace=None,
    )
    outcome, context = for_input(
        compiled, bound, policy.variables, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, trace=inputs.trace
    )
    entry = trace_entry if inputs.trace else no_trace_entry
    trace["matchConditions"] = [
        entry(c, outcome.results[i] if i < len(outcome.results) else None, name=name)
        for i, (name, c) in enumerate(policy.match_conditions)
    ]
    trace["variables"].extend(variables_trace("matchConditions", context))
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
