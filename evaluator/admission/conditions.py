"""Evaluate a list of expressions as the API server's `condition.ForInput` does, with composited variables.

Each call is one composition context (cel/composition.go): `variables` is a lazy map whose entries are
evaluated on first use, memoised (errors too) and charged to the running budget before the expression
that used them. The budget is checked after each expression: variables' cost first, then the
expression's own; running out ends the whole list with the server's out-of-budget error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.admission import expressions as ex

OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


@dataclass
class ExpressionResult:
    """One expression's outcome: a CEL value or an error text, as the server would word it."""

    value: Any = None
    error: str | None = None
    cost: int = 0
    evaluated: bool = False


@dataclass
class ForInputResult:
    results: list[ExpressionResult | None]
    remaining: int
    error: str | None = None


@dataclass
class VariableTrace:
    name: str
    expression: str
    value: Any = None
    type: str | None = None
    cost: int = 0
    error: str | None = None


class CompositionContext:
    """Per-list state: memoised variables, their accumulated (not yet charged) cost, and a trace."""

    def __init__(self, variables: Sequence[tuple[str, ex.CompiledExpression]], trace: bool = True, plain: bool = False):
        self.compiled = dict(variables)
        self.accumulated_cost = 0
        self.memo: dict[str, tuple[Any, str | None]] = {}
        self.trace: list[VariableTrace] | None = [] if trace else None
        # plain: variables evaluated by the hot path's `run_plain`; one that fails sets `failed` (its error
        # text and cost are unknown), and the caller must then do the section again the general way.
        self.plain = plain
        self.failed = False

    def get_and_reset_cost(self) -> int:
        cost, self.accumulated_cost = self.accumulated_cost, 0
        return cost

    def resolve(self, name: str, activation: Mapping[str, Any]) -> tuple[Any, str | None]:
        if name in self.memo:
            return self.memo[name]
        compiled = self.compiled[name]
        entry = None
        if self.trace is not None:  # reserve the slot now: the trace lists variables in order of first use
            entry = VariableTrace(name, compiled.expression)
            self.trace.append(entry)
        cost = 0
        if compiled.error is not None:
            outcome = (None, f'composited variable "{name}" fails to compile: {compiled.error}')
        elif self.plain:
            plain = ex.run_plain(compiled, activation)
            if plain is None:
                self.failed = True
                outcome = (None, f'composited variable "{name}" fails to evaluate')
            else:
                outcome, cost = (plain[0], None), plain[1]
                self.accumulated_cost += cost
        else:
            run = ex.run(compiled, activation)
            cost = run.cost
            self.accumulated_cost += cost
            if run.error is not None:
                outcome = (None, f'composited variable "{name}" fails to evaluate: {run.error}')
            else:
                outcome = (run.value, None)
        self.memo[name] = outcome
        if entry is not None:
            value, error = outcome
            entry.cost, entry.error = cost, error
            if error is None:
                entry.value, entry.type = ex.to_json(value), ex.type_name(value)
        return outcome


_EMPTY_CONTEXT = CompositionContext((), trace=False)
NO_VARIABLES: Mapping[str, Any] = {}  # what `variables` is in a policy that declares none


class LazyVariables(Mapping):
    """The `variables` map: looking a name up evaluates it once in the referring expression's activation."""

    def __init__(self, context: CompositionContext, activation: Mapping[str, Any]):
        self._context = context
        self._activation = activation

    def __getitem__(self, name: str) -> Any:
        if name not in self._context.compiled:
            raise KeyError(name)
        value, error = self._context.resolve(name, self._activation)
        if error is not None:
            raise ex.evaluation_error(error)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._context.compiled

    def __iter__(self) -> Iterator[str]:
        return iter(self._context.compiled)

    def __len__(self) -> int:
        return len(self._context.compiled)


def for_input(
    compiled: Sequence[ex.CompiledExpression | None],
    bindings: Mapping[str, Any],
    variables: Sequence[tuple[str, ex.CompiledExpression]],
    budget: int,
    *,
    trace: bool = True,
) -> tuple[ForInputResult, CompositionContext]:
    """Run every expression (None marks a placeholder) against one activation built from `bindings`."""
    if all(item is None for item in compiled):  # nothing to run: no activation, no variables
        return ForInputResult([None] * len(compiled), budget), _EMPTY_CONTEXT
    activation = dict(bindings)
    if variables:
        context = CompositionContext(variables, trace=trace)
        activation["variables"] = LazyVariables(context, activation)
    else:  # no variables of its own: nothing to memoise or charge (a caller's shared `variables` stays)
        context = _EMPTY_CONTEXT
        activation.setdefault("variables", NO_VARIABLES)
    results: list[ExpressionResult | None] = []
    remaining = budget
    for item in compiled:
        if item is None:
            results.append(None)
            continue
        if item.error is not None:
            results.append(ExpressionResult(error=f"compilation error: {item.error}"))
            continue
        run = ex.run(item, activation)
        composition_cost = context.get_and_reset_cost()
        if composition_cost > remaining:
            return ForInputResult(results, -1, OUT_OF_BUDGET), context
        remaining -= composition_cost
        if run.cost > remaining:
            results.append(ExpressionResult(error=OUT_OF_BUDGET, cost=run.cost, evaluated=True))
            return ForInputResult(results, -1, OUT_OF_BUDGET), context
        remaining -= run.cost
        if run.error is not None:
            results.append(
                ExpressionResult(
                    error=f"expression '{item.expression}' resulted in error: {run.error}",
                    cost=run.cost,
                    evaluated=True,
                )
            )
        else:
            results.append(ExpressionResult(value=run.value, cost=run.cost, evaluated=True))
    return ForInputResult(results, remaining), context
