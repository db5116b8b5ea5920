"""Evaluate one compiled MutatingPolicy (or autogen variant) on one input, as Kyverno's mpol engine does
(pkg/cel/policies/mpol/engine/engine.go handlePolicy + compiler/policy.go evaluate).

Order: matchConstraints (no match: no rule response at all), CEL PolicyExceptions (all their matchConditions
true: exempt, `rule is skipped|passed due to policy exception: <keys>`), matchConditions (false: `skip`), then
every mutation in order, each on the object the previous one left, with the MutatingAdmissionPolicy patchers
(`evaluator.policies.mutating.patchers`). Any error (a condition, a mutation) is the policy's one error
response, `failed to evaluate policy: <error>`, and none of its mutations apply; otherwise `success` and the
patched object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.admission import expressions as ex
from evaluator.admission.conditions import CompositionContext, LazyVariables, NO_VARIABLES
from evaluator.admission.matching import match_resources
from evaluator.policies.kyverno_vpol.engine import Inputs, exception_response
from evaluator.policies.kyverno_vpol.libs import bindings as library_bindings
from evaluator.policies.mutating.diff import json_patch_between, semantic_equal
from evaluator.policies.mutating.patchers import run_mutation
from evaluator.k8s.object_schema import ObjectSchema

from . import spec as sp
from .compiler import CompiledMutatingPolicy

PASS, SKIP, ERROR = "pass", "skip", "error"


@dataclass
class PolicyResponse:
    """One evaluation's rule responses (empty: not matched), the object after it (None: unchanged) and what
    each mutation did."""

    rules: list[dict[str, Any]] = field(default_factory=list)
    object: Any = None
    mutations: list[dict[str, Any]] = field(default_factory=list)


class _Failure(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _rule(name: str, status: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"rule": name, "result": status, "message": message, **extra}


def matches(constraints: Mapping[str, Any] | None, inputs: Inputs) -> tuple[bool, str | None]:
    """(matched, error) of matchConstraints; a policy without them matches nothing."""
    if not constraints or inputs.match_request is None:
        return False, None
    result = match_resources(constraints, inputs.match_request, inputs.namespace_lookup)
    return (False, result.error) if result.error else (result.matched, None)


def _conditions_hold(programs: tuple[ex.CompiledExpression, ...], activation: Mapping[str, Any]) -> bool:
    """compiler.Policy.match: any false -> False; otherwise every error joined is the error."""
    errors = []
    for compiled in programs:
        run = ex.run(compiled, activation)
        if run.error is not None:
            errors.append(run.error)
            continue
        if not isinstance(run.value, bool):
            errors.append(f"type conversion error from '{ex.type_name(run.value)}' to 'bool'")
            continue
        if not run.value:
            return False
    if errors:
        raise _Failure("; ".join(errors))
    return True


def activation_for(policy: CompiledMutatingPolicy, inputs: Inputs, obj: Any) -> dict[str, Any]:
    activation: dict[str, Any] = {
        "object": obj,
        "oldObject": inputs.old_object,
        "request": inputs.request,
        "namespaceObject": inputs.namespace_object,
        "exceptions": {"allowedImages": [], "allowedValues": []},
    }
    activation.update(library_bindings(inputs.context, sp.namespace_of(policy.document)))
    return activation


def with_variables(policy: CompiledMutatingPolicy, activation: dict[str, Any]) -> dict[str, Any]:
    scoped = dict(activation)
    if policy.variables:
        scoped["variables"] = LazyVariables(CompositionContext(policy.variables, trace=False), scoped)
    else:
        scoped["variables"] = NO_VARIABLES
    return scoped


def _exempt(policy: CompiledMutatingPolicy, activation: dict[str, Any]) -> dict[str, Any] | None:
    matched: list[Mapping[str, Any]] = []
    full = False
    images: list[str] = []
    values: list[str] = []
    for exc in policy.exceptions:
        try:
            hit = _conditions_hold(exc.conditions, with_variables(policy, activation))
        except _Failure:
            if full:
                continue
            raise
        if hit:
            matched.append(exc.document)
            exc_spec = sp.spec_of(exc.document)
            if not exc_spec.get("images") and not exc_spec.get("allowedValues"):
                full = True
            elif not full:
                images += list(exc_spec.get("images") or [])
                values += list(exc_spec.get("allowedValues") or [])
    if full:
        response = exception_response(matched)
        return _rule(response.rule, response.status, response.message, exceptions=list(response.exceptions))
    activation["exceptions"] = {"allowedImages": images, "allowedValues": values}
    return None


def evaluate(
    policy: CompiledMutatingPolicy,
    inputs: Inputs,
    current: Any,
    objschema: ObjectSchema,
    *,
    target: bool = False,
    check_match: bool = True,
) -> PolicyResponse:
    """One policy on `current` (the object as earlier policies left it). `target`: a mutate-existing target,
    matched by targetMatchConstraints/targetMatchConditions instead of the trigger's."""
    response = PolicyResponse()
    if policy.error is not None:
        response.rules.append(_rule("evaluation", ERROR, f"failed to evaluate policy: {policy.error}"))
        return response
    if check_match:
        constraints = policy.match_constraints
        if target and policy.target_constraints and policy.target_constraints.get("resourceRules"):
            constraints = policy.target_constraints
        matched, error = matches(constraints, inputs)
        if error is not None:
            response.rules.append(_rule("match", ERROR, f"failed to execute matching: {error}"))
            return response
        if not matched:
            return response
    activation = activation_for(policy, inputs, current)
    try:
        exempt = _exempt(policy, activation)
        if exempt is not None:
            response.rules.append(exempt)
            return response
        # one lazy `variables` map for the conditions and every mutation, each variable evaluated on first use
        # and kept (compiler/policy.go appendVariables on the evaluation's one data map)
        scoped = with_variables(policy, activation)
        conditions = policy.target_conditions if target else policy.match_conditions
        if not _conditions_hold(tuple(p for _, p in conditions), scoped):
            response.rules.append(_rule("", SKIP, "skip"))
            return response
        obj = _mutate(policy, scoped, current, objschema, response)
        annotations = _audit_annotations(policy, scoped)
    except _Failure as failure:
        response.rules.append(_rule("evaluation", ERROR, f"failed to evaluate policy: {failure.message}"))
        return response
    response.object = obj
    response.rules.append(_rule("", PASS, "success", **({"properties": annotations} if annotations else {})))
    return response


def _audit_annotations(policy: CompiledMutatingPolicy, activation: dict[str, Any]) -> dict[str, str]:
    """evaluateAuditAnnotations, on the patched object: a string value is kept when not empty."""
    out: dict[str, str] = {}
    for key, compiled in policy.audit_annotations:
        run = ex.run(compiled, activation)
        if run.error is not None:
            raise _Failure(f'failed to evaluate auditAnnotation "{key}": {run.error}')
        if isinstance(run.value, str):
            if run.value:
                out[key] = run.value
        else:
            problem = f"type conversion error from '{ex.type_name(run.value)}' to 'string'"
            raise _Failure(f'failed to convert auditAnnotation "{key}" expression: {problem}')
    return out


def _mutate(
    policy: CompiledMutatingPolicy,
    activation: dict[str, Any],
    current: Any,
    objschema: ObjectSchema,
    response: PolicyResponse,
) -> Any:
    obj = current
    for mutation in policy.mutations:
        outcome = run_mutation(mutation, obj, activation, (), objschema)
        entry: dict[str, Any] = {
            "index": mutation.index,
            "patchType": mutation.patch_type,
            "path": mutation.path,
            "error": outcome.error,
            "changed": False,
            "patch": [],
            "object": None,
            "testFailed": outcome.test_failed,
        }
        response.mutations.append(entry)
        if outcome.error is not None:
            raise _Failure(outcome.error)
        entry["patch"] = json_patch_between(obj, outcome.object)
        entry["changed"] = not semantic_equal(obj, outcome.object)
        entry["object"] = outcome.object
        obj = outcome.object
        activation["object"] = obj  # in place, as data[ObjectKey]: later expressions and variables see it
    return obj
