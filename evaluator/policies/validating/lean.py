"""Untraced tuples of the common policy shapes, evaluated straight into their result record.

A policy of matchConditions, variables, validations, messages or messageExpressions, auditAnnotations and
params decides each validation from its expression's value and, when it failed, its message. Everything
else a decision says is known once the policy and binding are: `LeanTuple` holds it, made once per (policy,
binding), and `decide` writes the same record, denials, warnings and audit failures as
`Dispatcher._dispatch_binding` would, without the intermediate ValidateResult/Decision objects. It
evaluates what `validator.validate` evaluates, in the same order and with the same budgets; anything
unusual (an error, the per-call limit, a budget) makes `decide` return None before it wrote anything: the
general path then runs from the start (evaluation has no side effects), so errors and their wording keep
one implementation.

Traced runs (the playground, `simulate`) take the commonest shape the same way: a policy of validations with
static messages and nothing else (`traceable`). `traced_record` writes the record with the trace the general
path would write, each trace row and decision copied from a template made once; a value that is not a bool
goes to the general path too, which renders it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.admission.conditions import NO_VARIABLES, CompositionContext, ExpressionResult, LazyVariables
from evaluator.admission.evaluation import (
    RUNTIME_CEL_COST_BUDGET,
    RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
    Inputs,
    bindings,
)
from evaluator.policies.validating.compiler import CompiledPolicy
from evaluator.policies.validating.validator import (
    ADMIT,
    DENY,
    EVAL_ADMIT,
    EVAL_DENY,
    EXCLUDE,
    PUBLISH,
    message_for,
    shared_activation,
)

__all__ = ["LeanTuple", "lean_tuple"]


def lean_tuple(
    compiled: CompiledPolicy,
    policy_name: str,
    binding_name: str,
    actions: list[str],
    policy_name_ref: str,
    failure_policy: str = "Fail",
) -> LeanTuple | None:
    """The lean form of a (policy, binding), or None when an expression did not compile."""
    expressions = [c for _, c in compiled.variables] + [c for _, c in compiled.match_conditions]
    expressions += list(compiled.validation_expressions)
    expressions += [c for c in compiled.message_expressions if c is not None] + list(compiled.audit_expressions)
    if any(c.program is None for c in expressions):
        return None  # a compile error: the general path words it
    return LeanTuple(compiled, policy_name, binding_name, actions, policy_name_ref, failure_policy)


def _run(
    programs: tuple,
    activation: Any,
    budget: int,
    context: CompositionContext | None = None,
) -> tuple[list, int] | None:
    """(values, remaining budget) of a section as `validator.validate` evaluates it (every expression in
    order on one budget; None entries are placeholders; the variables an expression used are charged before
    it), or None when anything failed or ran out of budget."""
    values = []
    for evaluate in programs:
        if evaluate is None:
            values.append(None)
            continue
        try:
            outcome = evaluate(activation)
        except Exception:  # as ex.run_plain: the general path words it
            return None
        if outcome is None or (context is not None and context.failed):
            return None
        if context is not None:
            budget -= context.get_and_reset_cost()
        budget -= outcome[1]
        if budget < 0:
            return None
        values.append(outcome[0])
    return values, budget


class LeanTuple:
    """One (policy, binding) of the shapes above, prepared for untraced evaluation."""

    __slots__ = (
        "compiled",
        "policy_name",
        "binding_name",
        "policy_name_ref",
        "actions",
        "conditions",
        "condition_names",
        "programs",
        "messages",
        "audits",
        "admitted",
        "denied",
        "traceable",
        "rows",
        "record",
        "failed_outcome",
        "plain",
    )

    def __init__(
        self,
        compiled: CompiledPolicy,
        policy_name: str,
        binding_name: str,
        actions: list[str],
        policy_name_ref: str,
        failure_policy: str = "Fail",
    ):
        self.compiled = compiled
        self.policy_name, self.binding_name, self.actions = policy_name, binding_name, actions
        self.policy_name_ref = policy_name_ref
        self.conditions = tuple(c.program.evaluate_plain for _, c in compiled.match_conditions)
        self.condition_names = tuple(name for name, _ in compiled.match_conditions)
        self.programs = tuple(c.program.evaluate_plain for c in compiled.validation_expressions)
        self.messages = (
            tuple(None if c is None else c.program.evaluate_plain for c in compiled.message_expressions)
            if compiled.has_messages
            else ()
        )
        self.audits = tuple(c.program.evaluate_plain for c in compiled.audit_expressions)
        # Per validation: its decision when the expression is true, and what a failure says when its
        # message is static (None: a messageExpression words it per request).
        self.admitted = tuple(
            {"index": v.index, "action": ADMIT, "evaluation": EVAL_ADMIT, "message": None, "reason": None}
            for v in compiled.validations
        )
        self.denied = tuple(
            None if v.message_expression is not None else self._failure(position, message_for(v, None)[0])
            for position, v in enumerate(compiled.validations)
        )
        self.traceable = not (
            compiled.variables or compiled.match_conditions or compiled.has_messages or compiled.audit_annotations
        )
        # Per validation, when traceable: its trace row when true, and when false (validator.validate's rows).
        self.rows = tuple(self._rows(v) for v in compiled.validations) if self.traceable else ()
        # The record of an admitted tuple without params (the keys and order of dispatcher._record): a traced
        # record is a copy of it, with its own lists and dicts put in.
        self.record = {
            "policy": policy_name,
            "binding": binding_name,
            "param": None,
            "outcome": "admitted",
            "skipReason": None,
            "failurePolicy": failure_policy,
            "validationActions": None,
            "error": None,
            "matchedKind": None,
            "matchedResource": None,
            "decisions": None,
            "auditAnnotations": None,
            "trace": None,
        }
        self.plain = not (compiled.has_params or compiled.uses_authorizer)  # see _plain_activation
        # A tuple's outcome once a validation failed: the same words whatever failed (see _act).
        self.failed_outcome = _worst({_ACTION_OUTCOMES[a] for a in actions if a in _ACTION_OUTCOMES})

    @staticmethod
    def _rows(validation: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        row = {"expression": validation.expression.expression, "index": validation.index}
        admitted = {
            **row,
            "action": ADMIT,
            "evaluation_result": EVAL_ADMIT,
            "message": None,
            "messageSource": None,
            "reason": None,
        }
        message, source = message_for(validation, None)
        denied = {
            **row,
            "action": DENY,
            "evaluation_result": EVAL_DENY,
            "message": message or None,
            "messageSource": source,
            "reason": validation.reason or "Invalid",
        }
        outcome = {"evaluated": True, "value": None, "type": "bool", "cost": 0, "error": None}
        return {**admitted, **outcome, "value": True}, {**denied, **outcome, "value": False}

    def _failure(self, position: int, message: str) -> tuple:
        """(decision, message, reason, warning, audit failure) of a failed validation, as _dispatch_binding
        words them."""
        v = self.compiled.validations[position]
        reason = v.reason or "Invalid"
        decision = {"index": v.index, "action": DENY, "evaluation": EVAL_DENY, "message": message or None}
        decision["reason"] = reason
        warning = (
            f"Validation failed for ValidatingAdmissionPolicy '{self.policy_name}' "
            f"with binding '{self.binding_name}': {message}"
        )
        failure = {
            "message": message,
            "policy": self.policy_name_ref,
            "binding": self.binding_name,
            "expressionIndex": position,
            "validationActions": list(self.actions),
        }
        return decision, message, reason, warning, failure

    def decide(
        self, inputs: Inputs, record: dict[str, Any], out: Any, denial: Callable[..., Any]
    ) -> list[tuple[str, str]] | None:
        """Evaluate the tuple, fill `record` (made by the caller with the keys of _record) and `out`, and
        return the audit annotations it publishes as (key, value); None, with nothing written, when the
        general path must do it."""
        compiled = self.compiled
        if self.conditions:
            match_request = inputs.match_request() if callable(inputs.match_request) else inputs.match_request
            activation, context = self._section(inputs, compiled.uses_authorizer, match_request, None)
            section = _run(self.conditions, activation, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, context)
            if section is None:
                return None
            for name, value in zip(self.condition_names, section[0]):
                if value is False:
                    record["outcome"] = "skipped"
                    record["skipReason"] = f"matchCondition '{name}' evaluated to false"
                    return []
        activation, context = self._section(inputs, compiled.uses_authorizer, inputs.request, inputs.namespace_object)
        section = _run(self.programs, activation, RUNTIME_CEL_COST_BUDGET, context)
        if section is None:
            return None
        values, remaining = section
        messages: list = []
        if self.messages:
            activation, context = self._section(inputs, False, inputs.request, inputs.namespace_object)
            section = _run(self.messages, activation, remaining, context)
            if section is None:
                return None
            messages = section[0]
        annotations = self._annotations(inputs) if self.audits else []
        if annotations is None:
            return None
        decisions = record["decisions"]
        for position, value in enumerate(values):
            if value is True:
                decisions.append(dict(self.admitted[position]))
                continue
            failed = self.denied[position]
            if failed is None:  # its messageExpression's value, with the server's fallbacks
                text = messages[position] if position < len(messages) else None
                validation = compiled.validations[position]
                message = message_for(validation, None if text is None else ExpressionResult(value=text))[0]
                failed = self._failure(position, message)
            decisions.append(dict(failed[0]))
            self._act(failed, out, denial)
            record["outcome"] = self.failed_outcome
        published = []
        for key, value in annotations:
            if value:
                published.append((key, value))
            record["auditAnnotations"].append(
                {"key": key, "action": PUBLISH if value else EXCLUDE, "value": value or None, "error": None}
            )
        return published

    def traced_record(
        self, inputs: Inputs, param: Any, matched_kind: Any, matched_resource: Any, out: Any, denial: Callable[..., Any]
    ) -> dict[str, Any] | None:
        """A `traceable` tuple's record with the trace `validator.validate` writes, made from the record
        template (one copy) and the rows', and its effect on `out`; None, with nothing written, when the
        general path must do it (an error, a budget, a value that is not a bool)."""
        activation = inputs.activations.get(_PLAIN) if self.plain else None
        if activation is None:
            activation = self._plain_activation(inputs)
        remaining = RUNTIME_CEL_COST_BUDGET
        outcomes = []
        for evaluate in self.programs:  # as _run: every expression on one budget, in order
            try:
                outcome = evaluate(activation)
            except Exception:  # as ex.run_plain: the general path words it
                return None
            if outcome is None:
                return None
            value = outcome[0]
            remaining -= outcome[1]
            if remaining < 0 or (value is not True and value is not False):
                return None
            outcomes.append(outcome)
        record = self.new_record(param, matched_kind, matched_resource)
        decisions = record["decisions"]
        rows = []
        position = 0
        for value, cost in outcomes:
            if value:
                decisions.append(self.admitted[position].copy())
                row = self.rows[position][0].copy()
            else:
                failed = self.denied[position]
                decisions.append(failed[0].copy())
                self._act(failed, out, denial)
                record["outcome"] = self.failed_outcome
                row = self.rows[position][1].copy()
            row["cost"] = cost
            rows.append(row)
            position += 1
        record["trace"] = {
            "matchConditions": [],
            "variables": [],
            "validations": rows,
            "messageExpressions": [],
            "auditAnnotations": [],
            "budget": {"validations": {"limit": RUNTIME_CEL_COST_BUDGET, "remaining": remaining}},
        }
        return record

    def new_record(self, param: Any, matched_kind: Any, matched_resource: Any) -> dict[str, Any]:
        """An admitted record of this tuple (dispatcher._tuple_record's): one copy of the template, with its own
        lists and copies of the shared match results put in. `param` is the param's key, or None."""
        record = self.record.copy()
        if param is not None:
            record["param"] = param
        record["validationActions"] = self.actions.copy()
        record["matchedKind"] = matched_kind.copy() if type(matched_kind) is dict else matched_kind
        record["matchedResource"] = matched_resource.copy() if type(matched_resource) is dict else matched_resource
        record["decisions"] = []
        record["auditAnnotations"] = []
        return record

    def _plain_activation(self, inputs: Inputs) -> dict:
        """The validations' activation of a tuple without variables: `shared_activation`'s. Without params
        or an authorizer it binds only what `inputs` holds for the whole request (the request's CEL values,
        the same for every such policy), so it is built once and kept on `inputs` under one key."""
        compiled = self.compiled
        if not self.plain:
            return shared_activation(
                compiled, inputs, compiled.uses_authorizer, inputs.request, inputs.namespace_object
            )
        activation = inputs.activations.get(_PLAIN)
        if activation is None:
            activation = bindings(
                inputs,
                with_authorizer=False,
                has_params=False,
                request=inputs.request,
                namespace=inputs.namespace_object,
            )
            activation["variables"] = NO_VARIABLES
            inputs.activations[_PLAIN] = activation
        return activation

    def _section(
        self, inputs: Inputs, with_authorizer: bool, request: Any, namespace: Any
    ) -> tuple[Any, CompositionContext | None]:
        """(activation, variables' context) of one section: shared by the request's policies when there are no
        variables; else its own composition context, as the server's, each variable evaluated once in it,
        when an expression first names it."""
        compiled = self.compiled
        if not compiled.variables:
            return shared_activation(compiled, inputs, with_authorizer, request, namespace), None
        activation = bindings(
            inputs,
            with_authorizer=with_authorizer,
            has_params=compiled.has_params,
            request=request,
            namespace=namespace,
        )
        context = CompositionContext(compiled.variables, trace=False, plain=True)
        activation["variables"] = LazyVariables(context, activation)
        return activation, context

    def _act(self, failed: tuple, out: Any, denial: Callable[..., Any]) -> None:
        """What a failed validation does under each of the binding's actions (as _dispatch_binding); the
        record's outcome is then `failed_outcome`."""
        _, message, reason, warning, failure = failed
        for action in self.actions:
            if action == "Deny":
                out.denials.append(denial(self.policy_name, self.binding_name, message, reason))
            elif action == "Audit":
                out.validation_failures.append({**failure, "validationActions": list(self.actions)})
            elif action == "Warn":
                if warning not in out.warnings:
                    out.warnings.append(warning)

    def _annotations(self, inputs: Inputs) -> list[tuple[str, str]] | None:
        """(key, value to publish or "" to exclude) of each auditAnnotation, as `validator.validate` decides
        them; None for an error or a value that is neither a string nor null (the general path words it)."""
        compiled = self.compiled
        activation, context = self._section(inputs, False, inputs.request, inputs.namespace_raw)
        section = _run(self.audits, activation, RUNTIME_CEL_COST_BUDGET, context)
        if section is None:
            return None
        found = []
        for annotation, value in zip(compiled.audit_annotations, section[0]):
            if isinstance(value, str):
                found.append((annotation.key, value.strip()))
            elif value is None:
                found.append((annotation.key, ""))
            else:
                return None
        return found


_PLAIN = "validations without params or authorizer"  # _plain_activation's key in Inputs.activations

# The outcome word each validationAction adds when a validation fails (as _dispatch_binding's).
_ACTION_OUTCOMES = {"Deny": "denied", "Audit": "audited", "Warn": "warned"}


def _worst(outcomes: set[str]) -> str:
    """dispatcher._outcome for a tuple without errors."""
    for name in ("denied", "warned", "audited"):
        if name in outcomes:
            return name
    return "admitted"
