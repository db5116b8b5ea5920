"""Tuples of the common policy shapes, evaluated straight into their result record (the shortcut).

A policy of matchConditions, variables, validations, messages or messageExpressions, auditAnnotations and
params decides each validation from its expression's value and, when it failed, its message. Everything
else a decision says is known once the policy and binding are: `LeanTuple` holds it, made once per (policy,
binding), and `decide` writes the same record, denials, warnings and audit failures as the dispatcher's
general path, without the intermediate ValidateResult/Decision objects. What it writes is not worded here:
it is what the general path's own declarations (`records`, the binding's `TupleForm`, `validator.denied`,
`validator.validation_row`) answer, computed ahead where no request changes it. It evaluates what
`validator.validate` evaluates, in the same order and with the same budgets; anything unusual (an error,
the per-call limit, a budget) makes `decide` return False before it wrote anything: the general path then
runs from the start (evaluation has no side effects), so errors and their wording keep one implementation.

Traced runs (the playground, `simulate`) take the commonest shape the same way: a policy of validations with
static messages and nothing else (`traceable`). `traced_record` writes the record with the trace the general
path would write, each trace row and decision copied from one made ahead; a value that is not a bool goes to
the general path too, which renders it.

The dispatcher takes none of this under `shortcuts.off()`.
"""

from __future__ import annotations

from typing import Any

from evaluator.admission.conditions import NO_VARIABLES, CompositionContext, ExpressionResult, LazyVariables
from evaluator.admission.evaluation import (
    RUNTIME_CEL_COST_BUDGET,
    RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
    Inputs,
    bindings,
    trace_entry,
)
from evaluator.policies.validating.compiler import CompiledPolicy, Validation
from evaluator.policies.validating.records import (
    ADMIT,
    EVAL_ADMIT,
    EVAL_DENY,
    TupleForm,
    annotation_value,
    collect,
    decision_entry,
    published,
    skip_reason,
)
from evaluator.policies.validating.validator import (
    Decision,
    denied,
    new_trace,
    shared_activation,
    validation_row,
    validations_budget,
)

__all__ = ["LeanTuple", "lean_tuple"]


def lean_tuple(compiled: CompiledPolicy, form: TupleForm) -> LeanTuple | None:
    """The lean form of a (policy, binding), or None when an expression did not compile."""
    expressions = [c for _, c in compiled.variables] + [c for _, c in compiled.match_conditions]
    expressions += list(compiled.validation_expressions)
    expressions += [c for c in compiled.message_expressions if c is not None] + list(compiled.audit_expressions)
    if any(c.program is None for c in expressions):
        return None  # a compile error: the general path words it
    return LeanTuple(compiled, form)


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
    """One (policy, binding) of the shapes above, prepared for evaluation straight into its record."""

    __slots__ = (
        "compiled",
        "form",
        "conditions",
        "condition_names",
        "programs",
        "messages",
        "audits",
        "admitted",
        "denied",
        "traceable",
        "rows",
        "plain",
    )

    def __init__(self, compiled: CompiledPolicy, form: TupleForm):
        self.compiled = compiled
        self.form = form  # the binding's record template, outcome words and actions
        self.conditions = tuple(c.program.evaluate_plain for _, c in compiled.match_conditions)
        self.condition_names = tuple(name for name, _ in compiled.match_conditions)
        self.programs = tuple(c.program.evaluate_plain for c in compiled.validation_expressions)
        self.messages = (
            tuple(None if c is None else c.program.evaluate_plain for c in compiled.message_expressions)
            if compiled.has_messages
            else ()
        )
        self.audits = tuple(c.program.evaluate_plain for c in compiled.audit_expressions)
        # Per validation: its decision entry when the expression is true, and `TupleForm.failure` of its
        # failure when its message is static (None: a messageExpression words it per request).
        self.admitted = tuple(decision_entry(v.index, ADMIT, EVAL_ADMIT, "", "") for v in compiled.validations)
        self.denied = tuple(
            None if v.message_expression is not None else self._failure(position, v, None)
            for position, v in enumerate(compiled.validations)
        )
        self.traceable = not (
            compiled.variables or compiled.match_conditions or compiled.has_messages or compiled.audit_annotations
        )
        # Per validation, when traceable: its trace row when true, and when false (validator.validate's rows).
        self.rows = tuple(self._rows(v) for v in compiled.validations) if self.traceable else ()
        self.plain = not (compiled.has_params or compiled.uses_authorizer)  # see _plain_activation

    @staticmethod
    def _rows(validation: Validation) -> tuple[dict[str, Any], dict[str, Any]]:
        """The validation's trace rows when it held and when it failed, as the general path writes them (the
        cost is the request's: set on each copy)."""
        held = Decision(validation.index, ADMIT, EVAL_ADMIT)
        failed, source = denied(validation, None)
        return (
            validation_row(trace_entry, validation, ExpressionResult(True, evaluated=True), held, None),
            validation_row(trace_entry, validation, ExpressionResult(False, evaluated=True), failed, source),
        )

    def _failure(self, position: int, validation: Validation, message: ExpressionResult | None) -> tuple:
        """`TupleForm.failure` of the validation at `position` when it did not hold (its message's value)."""
        decision, _ = denied(validation, message)
        return self.form.failure(position, decision.index, EVAL_DENY, decision.message, decision.reason)

    def decide(self, inputs: Inputs, record: dict[str, Any], out: Any, collector: dict[str, list[str]]) -> bool:
        """Evaluate the tuple, fill `record` (`TupleForm.new_record`'s) and `out`, and collect the audit
        annotations it publishes; False, with nothing written, when the general path must do it."""
        if self.conditions:
            failed = self._conditions(inputs)
            if failed is None:
                return False
            if failed:
                record["outcome"] = "skipped"
                record["skipReason"] = skip_reason(failed)
                return True
        compiled = self.compiled
        activation, context = self._section(inputs, compiled.uses_authorizer, inputs.request, inputs.namespace_object)
        section = _run(self.programs, activation, RUNTIME_CEL_COST_BUDGET, context)
        if section is None:
            return False
        values, remaining = section
        messages: list = []
        if self.messages:
            activation, context = self._section(inputs, False, inputs.request, inputs.namespace_object)
            section = _run(self.messages, activation, remaining, context)
            if section is None:
                return False
            messages = section[0]
        annotations = self._annotations(inputs) if self.audits else ()
        if annotations is None:
            return False
        decisions, form = record["decisions"], self.form
        for position, value in enumerate(values):
            if value is True:
                decisions.append(dict(self.admitted[position]))
                continue
            failed = self.denied[position]
            if failed is None:  # its messageExpression's value, with the server's fallbacks
                text = messages[position] if position < len(messages) else None
                message = None if text is None else ExpressionResult(value=text)
                failed = self._failure(position, compiled.validations[position], message)
            decisions.append(dict(failed[0]))
            form.apply(failed, out)
            record["outcome"] = form.failed_outcome
        entries = record["auditAnnotations"]
        for key, value in annotations:
            entries.append(published(key, value))
            if value:
                collect(collector, key, value)
        return True

    def _conditions(self, inputs: Inputs) -> str | None:
        """The name of the first matchCondition that is false, "" when all hold; None when the general path
        must evaluate them."""
        match_request = inputs.match_request() if callable(inputs.match_request) else inputs.match_request
        activation, context = self._section(inputs, self.compiled.uses_authorizer, match_request, None)
        section = _run(self.conditions, activation, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, context)
        if section is None:
            return None
        for name, value in zip(self.condition_names, section[0]):
            if value is False:
                return name
        return ""

    def traced_record(self, inputs: Inputs, where: tuple, out: Any) -> dict[str, Any] | None:
        """A `traceable` tuple's record with the trace `validator.validate` writes, made from the record
        template (one copy) and the rows', and its effect on `out`; None, with nothing written, when the
        general path must do it (an error, a budget, a value that is not a bool). `where`: the record's (param
        key, matchedKind, matchedResource)."""
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
        form = self.form
        record = form.new_record(*where)
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
                form.apply(failed, out)
                record["outcome"] = form.failed_outcome
                row = self.rows[position][1].copy()
            row["cost"] = cost
            rows.append(row)
            position += 1
        trace = record["trace"] = new_trace()
        trace["validations"] = rows
        trace["budget"]["validations"] = validations_budget(remaining)
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
            text = annotation_value(value)
            if text is None:
                return None
            found.append((annotation.key, text))
        return found


_PLAIN = "validations without params or authorizer"  # _plain_activation's key in Inputs.activations
