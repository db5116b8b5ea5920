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
from evaluator.policies.validating.compiler import CompiledPolicy, Validation
from evaluator.policies.validating.records import (
    ADMIT,
    DENY,
    ERROR,
    EVAL_ADMIT,
    EVAL_DENY,
    EVAL_ERROR,
    EXCLUDE,
    PUBLISH,
    annotation_entry,
    annotation_value,
    published,
    skip_reason,
)

MAX_MESSAGE_BYTES = 5 * 1024

__all__ = [
    "ADMIT",
    "DENY",
    "ERROR",
    "EVAL_ADMIT",
    "EVAL_DENY",
    "EVAL_ERROR",
    "EXCLUDE",
    "PUBLISH",
    "Decision",
    "ValidateResult",
    "validate",
]


@dataclass(slots=True)
class Decision:
    index: int
    action: str
    evaluation: str
    message: str = ""
    reason: str = ""


@dataclass(slots=True)
class ValidateResult:
    decisions: list[Decision] = field(default_factory=list)
    # Each auditAnnotation as the record lists it (records.annotation_entry).
    audit_annotations: list[dict[str, Any]] = field(default_factory=list)
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


def denied(validation: Validation, message_result: ExpressionResult | None) -> tuple[Decision, str]:
    """The decision of a validation whose expression was not true, and where its message came from."""
    message, source = message_for(validation, message_result)
    return Decision(validation.index, DENY, EVAL_DENY, message, validation.reason or "Invalid"), source


def validation_row(entry, validation: Validation, evaluation, decision: Decision, source: str | None):
    """A validation's trace row: its expression's value, and what it decided."""
    return entry(
        validation.expression,
        evaluation,
        index=validation.index,
        action=decision.action,
        evaluation_result=decision.evaluation,
        message=decision.message or None,
        messageSource=source,
        reason=decision.reason or None,
    )


def validations_budget(remaining: int) -> dict[str, int]:
    """The trace's budget entry of the validations."""
    return {"limit": RUNTIME_CEL_COST_BUDGET, "remaining": remaining}


def _nth(results: list, i: int):
    """The i-th result, or None where evaluation stopped before it (budget exhausted)."""
    return results[i] if i < len(results) else None


def new_trace() -> dict[str, Any]:
    """An evaluation's trace before anything ran."""
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


class _Run:
    """One `validate` call's state: the policy, its inputs, the result and trace being written."""

    __slots__ = ("policy", "inputs", "result", "trace", "entry")

    def __init__(self, policy: CompiledPolicy, inputs: Inputs):
        self.policy, self.inputs = policy, inputs
        self.result = ValidateResult(trace=new_trace() if inputs.trace else {})
        self.trace = self.result.trace if inputs.trace else _DISCARD
        self.entry = trace_entry if inputs.trace else no_trace_entry

    def section(self, name: str, expressions, budget: int, with_authorizer: bool, namespace):
        """One `for_input` pass over a section's expressions; the variables it evaluated are traced under `name`."""
        inputs, policy = self.inputs, self.policy
        bound = bindings(
            inputs,
            with_authorizer=with_authorizer,
            has_params=policy.has_params,
            request=inputs.request,
            namespace=namespace,
        )
        outcome, context = for_input(expressions, bound, policy.variables, budget, trace=inputs.trace)
        self.trace["variables"].extend(variables_trace(name, context))
        return outcome

    def error(self, message: str) -> ValidateResult:
        """The result of a section that failed as a whole: one decision under the failurePolicy."""
        self.result.decisions = [Decision(-1, _action_for_error(self.policy.failure_policy), EVAL_ERROR, message)]
        return self.result

    def done(self) -> ValidateResult:
        if not self.inputs.trace:
            self.result.trace = {}
        return self.result

    def matches(self) -> ValidateResult | None:
        """None when the matchConditions hold; else the result (skipped, or their error)."""
        matches, error, failed = match_conditions(self.policy, self.inputs, self.trace)
        if error is not None:
            return self.error(error)
        if matches:
            return None
        self.result.skipped = True
        self.result.skip_reason = (
            skip_reason(failed) if failed else "matchConditions errored and failurePolicy is Ignore"
        )
        return self.result

    def validations(self) -> ValidateResult | None:
        """Evaluate the validations and their messages into decisions; the result when it ends here."""
        policy, inputs, trace = self.policy, self.inputs, self.trace
        outcome = self.section(
            "validations",
            policy.validation_expressions,
            RUNTIME_CEL_COST_BUDGET,
            policy.uses_authorizer,
            inputs.namespace_object,
        )
        if inputs.trace:
            trace["budget"]["validations"] = validations_budget(outcome.remaining if outcome.error is None else 0)
        if outcome.error is not None:
            trace["validations"] = [
                self.entry(v.expression, _nth(outcome.results, i), index=v.index)
                for i, v in enumerate(policy.validations)
            ]
            return self.error(outcome.error)
        message_results, message_error = self.messages(outcome.remaining) if policy.has_messages else ([], None)
        for i, validation in enumerate(policy.validations):
            evaluation = outcome.results[i]
            decision, source = self.decide(validation, evaluation, _nth(message_results, i), message_error)
            self.result.decisions.append(decision)
            if inputs.trace:
                trace["validations"].append(validation_row(self.entry, validation, evaluation, decision, source))
        return None

    def decide(
        self, validation: Validation, evaluation, message_result, message_error: str | None
    ) -> tuple[Decision, str | None]:
        """A validation's decision (and its message's source) from its expression's and message's results."""
        if evaluation.error is not None:
            return Decision(
                validation.index, _action_for_error(self.policy.failure_policy), EVAL_ERROR, evaluation.error
            ), None
        if message_error is not None:
            message = f"failed messageExpression: {message_error}"
            return Decision(validation.index, _action_for_error(self.policy.failure_policy), EVAL_ERROR, message), None
        if evaluation.value is not True:
            return denied(validation, message_result)
        return Decision(validation.index, ADMIT, EVAL_ADMIT), None

    def messages(self, budget: int) -> tuple[list, str | None]:
        """(results, budget error) of the messageExpressions, on what the validations left."""
        policy = self.policy
        outcome = self.section(
            "messageExpressions", policy.message_expressions, budget, False, self.inputs.namespace_object
        )
        for i, v in enumerate(policy.validations):
            if v.message_expression is not None:
                self.trace["messageExpressions"].append(
                    self.entry(v.message_expression, _nth(outcome.results, i), index=v.index)
                )
        return outcome.results, outcome.error

    def annotations(self) -> ValidateResult:
        """Evaluate the auditAnnotations (a fresh budget) into the result's entries."""
        policy = self.policy
        budget = RUNTIME_CEL_COST_BUDGET  # a fresh one
        outcome = self.section("auditAnnotations", policy.audit_expressions, budget, False, self.inputs.namespace_raw)
        if outcome.error is not None:
            self.result.audit_annotations = []
            self.trace["auditAnnotations"] = [
                self.entry(a.value_expression, _nth(outcome.results, i), key=a.key)
                for i, a in enumerate(policy.audit_annotations)
            ]
            return self.error(outcome.error)
        for annotation, evaluation in zip(policy.audit_annotations, outcome.results):
            item = self.annotation(annotation, evaluation)
            self.result.audit_annotations.append(item)
            self.trace["auditAnnotations"].append(
                self.entry(annotation.value_expression, evaluation, key=annotation.key, action=item["action"])
            )
        return self.done()

    def annotation(self, annotation, evaluation) -> dict[str, Any]:
        """An auditAnnotation's entry: published, excluded, or an error (excluded under Ignore)."""
        if evaluation.error is not None:
            action = EXCLUDE if self.policy.failure_policy == "Ignore" else ERROR
            return annotation_entry(annotation.key, action, "", evaluation.error)
        value = annotation_value(evaluation.value)
        if value is not None:
            return published(annotation.key, value)
        error = (
            f"valueExpression '{annotation.value_expression.expression}' resulted in unsupported return "
            f"type: {ex.type_name(evaluation.value)}. Return type must be either string or null."
        )
        return annotation_entry(annotation.key, ERROR, "", error)


def validate(policy: CompiledPolicy, inputs: Inputs) -> ValidateResult:
    """The general path, for every shape, error and budget (LeanTuple takes the common cases first)."""
    run = _Run(policy, inputs)
    if policy.match_conditions:
        ended = run.matches()
        if ended is not None:
            return ended
    ended = run.validations()
    if ended is not None:
        return ended
    if not policy.audit_annotations:
        return run.done()
    return run.annotations()
